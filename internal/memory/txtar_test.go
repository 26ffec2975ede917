package memory_test

import (
	"github.com/rogpeppe/go-internal/txtar"
)

// archive is a txtar archive with the small edits the golden tests need.
type archive struct{ *txtar.Archive }

func readArchive(path string) (*archive, error) {
	a, err := txtar.ParseFile(path)
	if err != nil {
		return nil, err
	}
	return &archive{a}, nil
}

func parseArchive(data []byte) *archive { return &archive{txtar.Parse(data)} }

func (a *archive) format() []byte { return txtar.Format(a.Archive) }

// file returns the data of the named file, and whether it is there.
func (a *archive) file(name string) ([]byte, bool) {
	for _, f := range a.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return nil, false
}

// set replaces the named file's data, adding the file if it is missing.
func (a *archive) set(name string, data []byte) {
	for i := range a.Files {
		if a.Files[i].Name == name {
			a.Files[i].Data = data
			return
		}
	}
	a.Files = append(a.Files, txtar.File{Name: name, Data: data})
}

// remove deletes the named file if it is there.
func (a *archive) remove(name string) {
	for i := range a.Files {
		if a.Files[i].Name == name {
			a.Files = append(a.Files[:i], a.Files[i+1:]...)
			return
		}
	}
}
