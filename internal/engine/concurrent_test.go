package engine

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/store"
)

// Environment of the re-executed test binary in TestConcurrentRemember.
const (
	envConcurrentRoot   = "OCMEM_TEST_CONCURRENT_ROOT"
	envConcurrentWorker = "OCMEM_TEST_CONCURRENT_WORKER"
)

const (
	concurrentProcs      = 4
	concurrentGoroutines = 4
	concurrentEach       = 15
)

// rememberBatch is one writer's share: some summaries shared by every
// writer (so slugs collide and need -2, -3, … under contention), some its
// own. It returns the ids written.
func rememberBatch(e *Engine, worker string) ([]string, error) {
	var ids []string
	for i := range concurrentEach {
		summary := fmt.Sprintf("Worker %s memory %d", worker, i)
		if i%3 == 0 {
			summary = fmt.Sprintf("共享的摘要 %d", i)
		}
		w, err := e.Remember(RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: summary,
			LoadWhen: []string{"worker " + worker}, Body: "written by " + worker + "\n"})
		if err != nil {
			return ids, err
		}
		ids = append(ids, w.ID)
	}
	return ids, nil
}

// TestConcurrentRememberHelper is the body of each writer process; it does
// nothing unless TestConcurrentRemember started it.
func TestConcurrentRememberHelper(t *testing.T) {
	root := os.Getenv(envConcurrentRoot)
	if root == "" {
		t.Skip("started by TestConcurrentRemember only")
	}
	worker := os.Getenv(envConcurrentWorker)
	ids, err := rememberBatch(New(Config{ProjectDir: root}), worker)
	for _, id := range ids {
		fmt.Printf("ID %s\n", id)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func TestConcurrentRemember(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 120 memories from several processes")
	}
	root := filepath.Join(t.TempDir(), "project")
	var (
		mu   sync.Mutex
		ids  []string
		errs []error
		wg   sync.WaitGroup
	)
	record := func(got []string, err error) {
		mu.Lock()
		defer mu.Unlock()
		ids = append(ids, got...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	for p := range concurrentProcs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestConcurrentRememberHelper$", "-test.count=1")
			cmd.Env = append(os.Environ(), envConcurrentRoot+"="+root, envConcurrentWorker+"=p"+strconv.Itoa(p))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			var got []string
			sc := bufio.NewScanner(bytes.NewReader(out))
			for sc.Scan() {
				if id, ok := strings.CutPrefix(sc.Text(), "ID "); ok {
					got = append(got, id)
				}
			}
			if err != nil {
				err = fmt.Errorf("process p%d: %v\n%s%s", p, err, out, stderr.Bytes())
			}
			record(got, err)
		}()
	}
	shared := New(Config{ProjectDir: root})
	for g := range concurrentGoroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Half share one engine (it is safe for concurrent use), half
			// have their own, as separate sessions would.
			e := shared
			if g%2 == 1 {
				e = New(Config{ProjectDir: root})
			}
			record(rememberBatch(e, "g"+strconv.Itoa(g)))
		}()
	}
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	const total = (concurrentProcs + concurrentGoroutines) * concurrentEach
	if len(ids) != total {
		t.Fatalf("writers reported %d ids, want %d", len(ids), total)
	}
	sorted := slices.Sorted(slices.Values(ids))
	if c := slices.Compact(slices.Clone(sorted)); len(c) != total {
		t.Fatalf("two writers were given the same id: %d distinct of %d", len(c), total)
	}

	// Every memory file is there and parses.
	for _, id := range ids {
		m := readMemory(t, filepath.Join(root, filepath.FromSlash(id)+".md"))
		if m.ID != id {
			t.Errorf("%s.md holds id %s", id, m.ID)
		}
	}
	// The index lists every one exactly once, nothing else.
	linkRE := regexp.MustCompile(`^- \[([^\]]+)\]\(`)
	var listed []string
	for _, l := range indexLines(t, root, "facts") {
		m := linkRE.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("torn index line %q", l)
			continue
		}
		listed = append(listed, "facts/"+m[1])
	}
	slices.Sort(listed)
	if !slices.Equal(listed, sorted) {
		t.Errorf("facts/index.md lists %d memories, want the %d written", len(listed), total)
	}
	rootMD := readString(t, filepath.Join(root, store.RootFile))
	if row := fmt.Sprintf("| facts | %d | 0 |", total); !strings.Contains(rootMD, row) {
		t.Errorf("ROOT.md lacks the registry row %q", row)
	}
	// The writers share summaries on purpose (to race for slugs).
	mustInspectClean(t, New(Config{ProjectDir: root}), "near-duplicate")
	// No temp file was left behind.
	for k := range tree(t, root) {
		if strings.HasSuffix(k, ".tmp") {
			t.Errorf("stray temp file %s", k)
		}
	}
}
