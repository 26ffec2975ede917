package memory_test

import (
	"bytes"
	"os"
	"strings"
)

// A minimal txtar reader and writer: the format of golang.org/x/tools/txtar.
//
// Not github.com/rogpeppe/go-internal/txtar, which go.mod lists: since v1.14
// it only wraps golang.org/x/tools/txtar, and x/tools is in neither go.mod
// nor go.sum, so importing it does not build. The format is a few lines.

type archive struct {
	comment []byte
	files   []archiveFile
}

type archiveFile struct {
	name string
	data []byte
}

func readArchive(path string) (*archive, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseArchive(data), nil
}

// parseArchive parses comment lines, then "-- name --" marker lines each
// followed by that file's lines. A non-empty file's missing final newline is
// supplied, as x/tools/txtar does.
func parseArchive(data []byte) *archive {
	a := new(archive)
	cur := &a.comment
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		if name, ok := markerName(line); ok {
			a.files = append(a.files, archiveFile{name: name})
			cur = &a.files[len(a.files)-1].data
			continue
		}
		*cur = append(*cur, line...)
	}
	a.comment = fixNL(a.comment)
	for i := range a.files {
		a.files[i].data = fixNL(a.files[i].data)
	}
	return a
}

func fixNL(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] != '\n' {
		b = append(b, '\n')
	}
	return b
}

func markerName(line []byte) (string, bool) {
	s := strings.TrimSuffix(string(line), "\n")
	if !strings.HasPrefix(s, "-- ") || !strings.HasSuffix(s, " --") || len(s) < 6 {
		return "", false
	}
	name := strings.TrimSpace(s[3 : len(s)-3])
	return name, name != ""
}

func (a *archive) format() []byte {
	var b bytes.Buffer
	b.Write(fixNL(a.comment))
	for _, f := range a.files {
		b.WriteString("-- " + f.name + " --\n")
		b.Write(fixNL(f.data))
	}
	return b.Bytes()
}

// file returns the data of the named file, and whether it is there.
func (a *archive) file(name string) ([]byte, bool) {
	for _, f := range a.files {
		if f.name == name {
			return f.data, true
		}
	}
	return nil, false
}

// set replaces the named file's data, adding the file if it is missing.
func (a *archive) set(name string, data []byte) {
	for i := range a.files {
		if a.files[i].name == name {
			a.files[i].data = data
			return
		}
	}
	a.files = append(a.files, archiveFile{name, data})
}

// remove deletes the named file if it is there.
func (a *archive) remove(name string) {
	for i := range a.files {
		if a.files[i].name == name {
			a.files = append(a.files[:i], a.files[i+1:]...)
			return
		}
	}
}
