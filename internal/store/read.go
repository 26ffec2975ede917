package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
)

// MaxReadSize bounds any file of a root the engine reads that is not a
// memory (ROOT.md, index.md): a compiled index of 100,000 memories is about
// 15 MB. Memory files have their own, smaller limit, memory.MaxFileSize.
const MaxReadSize = 64 << 20

// maxStateSize bounds .state.json: a counter per memory and a cursor per
// session is kilobytes; anything larger is not ours and is ignored.
const maxStateSize = 16 << 20

// errNotRegular is returned for a path that is a named pipe, a device, a
// socket or a directory: reading one could block forever or never end.
var errNotRegular = errors.New("not a regular file")

// readRegular reads a regular file of at most max bytes. It opens without
// blocking (a named pipe opened for reading would wait for a writer
// forever), then checks the open file's mode and size before reading a
// byte; a file that grows past max while being read is refused too. Checking
// the open file, not the path, leaves no gap for the path to be swapped in
// between.
func readRegular(path string, max int64) ([]byte, fs.FileInfo, error) {
	return readRegularAs(path, max, nil)
}

// readRegularAs is readRegular for a caller that holds what the file most
// likely contains (held, non-nil): when the file is held byte for byte,
// held itself is returned, and a 10 MB ROOT.md (100,000 memories) that a
// write reads again under the lock costs a comparison, not a second copy
// beside the one the snapshot keeps.
func readRegularAs(path string, max int64, held []byte) ([]byte, fs.FileInfo, error) {
	f, err := openNoBlock(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, info, notRegular(info.Mode())
	}
	if info.Size() > max {
		return nil, info, tooLarge(info.Size(), max)
	}
	if held != nil && info.Size() == int64(len(held)) {
		same, err := readsAs(f, held)
		if err != nil {
			return nil, info, err
		}
		if same {
			return held, info, nil
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, info, err
		}
	}
	// Sized by the file: io.ReadAll would grow its buffer a doubling at a
	// time, copying a 10 MB ROOT.md (100,000 memories) a dozen times.
	var b bytes.Buffer
	b.Grow(int(min(info.Size(), max)) + bytes.MinRead)
	if _, err := b.ReadFrom(io.LimitReader(f, max+1)); err != nil {
		return nil, info, err
	}
	data := b.Bytes()
	if int64(len(data)) > max {
		return nil, info, fmt.Errorf("file grew past the %d-byte limit while being read", max)
	}
	return data, info, nil
}

// readsAs reports whether what r reads, to its end, is want.
func readsAs(r io.Reader, want []byte) (bool, error) {
	buf := make([]byte, 64<<10)
	for {
		n, err := io.ReadFull(r, buf)
		if n > len(want) || !bytes.Equal(buf[:n], want[:n]) {
			return false, nil
		}
		want = want[n:]
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return len(want) == 0, nil
		case err != nil:
			return false, err
		}
	}
}

func tooLarge(size, max int64) error {
	return fmt.Errorf("file is %d bytes, over the %d-byte limit", size, max)
}

// notRegular names what a path is instead of a regular file.
func notRegular(m fs.FileMode) error {
	what := ""
	switch {
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0:
		what = "a device"
	default:
		return errNotRegular
	}
	return fmt.Errorf("%w: %s", errNotRegular, what)
}

// IsNotRegular reports whether err says a path is not a regular file.
func IsNotRegular(err error) bool { return errors.Is(err, errNotRegular) }
