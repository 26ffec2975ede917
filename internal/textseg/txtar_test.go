package textseg

import (
	"github.com/rogpeppe/go-internal/txtar"
)

// archive is a txtar archive of the golden tests.
type archive struct{ *txtar.Archive }

func parseArchiveFile(file string) (*archive, error) {
	a, err := txtar.ParseFile(file)
	if err != nil {
		return nil, err
	}
	return &archive{a}, nil
}

func (a *archive) format() []byte { return txtar.Format(a.Archive) }

func (a *archive) file(name string) *txtar.File {
	for i := range a.Files {
		if a.Files[i].Name == name {
			return &a.Files[i]
		}
	}
	return nil
}
