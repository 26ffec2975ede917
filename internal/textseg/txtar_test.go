package textseg

import (
	"bytes"
	"os"
	"strings"
)

// A minimal txtar reader and writer (the format of golang.org/x/tools/txtar).
//
// Why not github.com/rogpeppe/go-internal/txtar, which go.mod lists: since
// v1.14 it is a thin wrapper over golang.org/x/tools/txtar, and x/tools is not
// in go.mod or go.sum. The format is a dozen lines of code; a test-only copy
// is cheaper than a new module.

type archive struct {
	comment []byte
	files   []archiveEntry
}

type archiveEntry struct {
	name string
	data []byte
}

func parseArchiveFile(file string) (*archive, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return parseArchive(data), nil
}

// parseArchive parses data: comment lines, then "-- name --" marker lines each
// followed by that file's lines. A missing final newline is supplied.
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
			a.files = append(a.files, archiveEntry{name: name})
			cur = &a.files[len(a.files)-1].data
			continue
		}
		*cur = append(*cur, line...)
	}
	fixNL := func(b []byte) []byte {
		if len(b) > 0 && b[len(b)-1] != '\n' {
			b = append(b, '\n')
		}
		return b
	}
	a.comment = fixNL(a.comment)
	for i := range a.files {
		a.files[i].data = fixNL(a.files[i].data)
	}
	return a
}

func markerName(line []byte) (string, bool) {
	s := strings.TrimRight(string(line), "\r\n")
	if !strings.HasPrefix(s, "-- ") || !strings.HasSuffix(s, " --") || len(s) < 6 {
		return "", false
	}
	name := strings.TrimSpace(s[3 : len(s)-3])
	return name, name != ""
}

func (a *archive) format() []byte {
	var b bytes.Buffer
	b.Write(a.comment)
	for _, f := range a.files {
		b.WriteString("-- " + f.name + " --\n")
		b.Write(f.data)
	}
	return b.Bytes()
}

func (a *archive) file(name string) *archiveEntry {
	for i := range a.files {
		if a.files[i].name == name {
			return &a.files[i]
		}
	}
	return nil
}
