package store

import (
	"bytes"
	"io/fs"
	"sync"
	"time"
)

// FileCache keeps what small files (configuration, the trust list) parse
// to, and reads a file again only when it changed: when its size or
// modification time differ from the last read, or its stamp does (the
// change time and inode on Unix; elsewhere the bytes themselves are read
// and compared, which saves the parsing only). A process that consults
// such files on every request pays a status call for each, not a read and
// a parse. It is safe for concurrent use; the values it returns are
// shared and must not be modified.
type FileCache[T any] struct {
	// Parse turns a file's content into its value.
	Parse func(data []byte) (T, error)
	// Max bounds a read, checked on the open file: a file the caller's
	// status call found small can be swapped for a named pipe or grow
	// before it is read. 0 is MaxReadSize.
	Max int64

	mu    sync.Mutex
	files map[string]cachedFile[T]
}

type cachedFile[T any] struct {
	size  int64
	mtime time.Time
	stamp uint64
	data  []byte // the content, where there is no stamp to compare
	val   T
	err   error
}

// maxCachedFiles bounds a FileCache: past it, the cache starts again.
const maxCachedFiles = 256

// Get returns the value of the file at path, whose status the caller has
// just read (info, from os.Stat), and the error Parse or the read gave.
func (c *FileCache[T]) Get(path string, info fs.FileInfo) (T, error) {
	stamp := pathStamp(path)
	c.mu.Lock()
	old, ok := c.files[path]
	c.mu.Unlock()
	if ok && old.size == info.Size() && old.mtime.Equal(info.ModTime()) && (stamp != 0 && old.stamp == stamp) {
		return old.val, old.err
	}
	limit := c.Max
	if limit <= 0 {
		limit = MaxReadSize
	}
	data, _, err := readRegular(path, limit)
	if err != nil {
		var zero T
		return zero, err // not kept: a read that failed is tried again
	}
	if ok && stamp == 0 && old.size == info.Size() && old.mtime.Equal(info.ModTime()) && bytes.Equal(old.data, data) {
		return old.val, old.err
	}
	f := cachedFile[T]{size: info.Size(), mtime: info.ModTime(), stamp: stamp}
	if stamp == 0 {
		f.data = data
	}
	f.val, f.err = c.Parse(data)
	c.mu.Lock()
	if c.files == nil || len(c.files) >= maxCachedFiles {
		c.files = map[string]cachedFile[T]{}
	}
	c.files[path] = f
	c.mu.Unlock()
	return f.val, f.err
}
