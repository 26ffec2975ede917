package engine

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/ocmem/ocmem/internal/tiers"
	"github.com/ocmem/ocmem/internal/trust"
)

// BenchmarkStable is the stable tiers (rules and outline, with the project
// rules' decisions) of a snapshot loaded from the load cache, as the first
// turn after a load computes them. Each operation renders a fresh copy of
// the same snapshot. "all": no trust list, every rule in force (a library
// caller); "untrusted": the project is not trusted, so its rules are
// proposals (serve in a repository the user never trusted); "accepted":
// trusted with every rule pinned, each rule's text digested against its pin.
func BenchmarkStable(b *testing.B) {
	for _, mode := range []string{"all", "untrusted", "accepted"} {
		for _, size := range benchSizes {
			b.Run(fmt.Sprintf("%s/memories=%d", mode, size), func(b *testing.B) {
				c := benchCorpus(b, size)
				b.Setenv("OCMEM_CACHE_DIR", filepath.Join(c.dir, "cache"))
				if _, err := benchEngine(c).Load(); err != nil { // writes the cache
					b.Fatal(err)
				}
				e := benchEngine(c)
				switch mode {
				case "untrusted":
					e.trust = &fakeTrust{}
				case "accepted":
					e.trust = &fakeTrust{trusted: true}
				}
				s, err := e.Load()
				if err != nil {
					b.Fatal(err)
				}
				if mode == "accepted" {
					e.trust.(*fakeTrust).pins = tiers.Project(s, e.project, trust.AllInForce()).Pins()
				}
				b.ReportAllocs()
				cpu0, _ := processCPU()
				n := 0
				for b.Loop() {
					if st := e.stableTiersOf(s); st.text[0] == "" {
						b.Fatal("no rules tier")
					}
					n++
				}
				reportCPU(b, cpu0, n)
			})
		}
	}
}
