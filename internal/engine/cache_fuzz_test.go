package engine

import (
	"path/filepath"
	"testing"

	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/rank"
	"github.com/ocmem/ocmem/internal/snapfile"
	"github.com/ocmem/ocmem/internal/store"
)

// FuzzOpenSegment feeds damaged caches to the engine's decoder (the format's
// checks, snapfile.Open, then the engine's own). The CRC would turn away
// nearly every random change, so the fuzzer's input gets correct CRCs
// before decoding (snapfile.Reseal): what is tested is that no table,
// however wrong, makes the decoder (or a use of what it accepted, the
// compiled tables among them) crash.
func FuzzOpenSegment(f *testing.F) {
	dir := f.TempDir()
	f.Setenv("OCMEM_CACHE_DIR", filepath.Join(dir, "cache"))
	r := roots{filepath.Join(dir, "global"), filepath.Join(dir, "project")}
	e := r.engine(options.Options{})
	for _, req := range []RememberRequest{
		{Scope: "project", Category: "facts", Kind: "fact", Summary: "kafka retention is seven days", LoadWhen: []string{"kafka"}, Body: "三十天 retention"},
		{Scope: "global", Category: "preferences", Kind: "preference", Summary: "answer in Chinese", Body: "用中文"},
	} {
		if _, err := e.Remember(req); err != nil {
			f.Fatal(err)
		}
	}
	e.Invalidate()
	s, err := e.Load()
	if err != nil {
		f.Fatal(err)
	}
	c, err := e.loader.Contents(s)
	if err != nil {
		f.Fatal(err)
	}
	p := filepath.Join(dir, "seed.bin")
	if err := snapfile.Write(p, c); err != nil {
		f.Fatal(err)
	}
	seed, err := snapfile.Map(p)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(append([]byte(nil), seed...))
	f.Fuzz(func(t *testing.T, data []byte) {
		data = append([]byte(nil), data...)
		snapfile.Reseal(data)
		snap, err := e.loader.OpenSegment(data, false)
		if err != nil {
			return
		}
		for _, r := range []store.Root{e.global, e.project} {
			e.keptTables(r, snap)
		}
		for i := range snap.Len() {
			snap.File(i)
		}
		snap.Corpus = snap.Corpus.WithHits(make([]int32, snap.Len()))
		rank.Rank(snap.Corpus, "kafka retention 三十天", rank.Params{Limit: 4})
	})
}
