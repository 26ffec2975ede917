package store_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/store"
)

// The cross-process tests re-run this test binary as helpers: the
// environment says what a helper does.
const (
	helperMode = "OCMEM_STORE_HELPER"      // "append" or "state"
	helperRoot = "OCMEM_STORE_HELPER_ROOT" // the memory root
	helperID   = "OCMEM_STORE_HELPER_ID"   // which helper this is
)

const (
	helperProcs  = 6
	appendRounds = 50
	stateRounds  = 25
)

// TestHelperProcess is not a test: it is the body of the helper processes
// the cross-process tests start.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperMode)
	if mode == "" {
		t.Skip("runs only as a helper process of TestLockAcrossProcesses and TestUpdateStateAcrossProcesses")
	}
	r := store.Root{Scope: store.Project, Dir: os.Getenv(helperRoot)}
	id := os.Getenv(helperID)
	// Wait for the go signal, so that every helper is running before any
	// starts: without it the first could finish before the last starts.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, err := os.Stat(filepath.Join(r.Dir, "go")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no go signal")
		}
	}
	switch mode {
	case "append":
		shared := filepath.Join(r.Dir, "shared.txt")
		for i := range appendRounds {
			unlock, err := r.Lock()
			if err != nil {
				t.Fatal(err)
			}
			// A read-modify-write that loses lines unless the lock excludes
			// every other process: the sleep widens the window.
			b, err := os.ReadFile(shared)
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			time.Sleep(200 * time.Microsecond)
			b = fmt.Appendf(b, "%s %d\n", id, i)
			if err := os.WriteFile(shared, b, 0o644); err != nil {
				t.Fatal(err)
			}
			unlock()
		}
	case "state":
		for range stateRounds {
			if err := r.UpdateState(func(s *store.State) { bump(s, "shared", "helper-"+id) }); err != nil {
				t.Fatal(err)
			}
		}
	default:
		t.Fatalf("unknown helper mode %q", mode)
	}
}

func bump(s *store.State, ids ...string) {
	if s.Hits == nil {
		s.Hits = map[string]int{}
	}
	for _, id := range ids {
		s.Hits[id]++
	}
}

// startHelpers starts n helper processes on dir; the returned function lets
// them go and waits for them.
func startHelpers(t *testing.T, mode, dir string, n int) (run func()) {
	t.Helper()
	type proc struct {
		cmd *exec.Cmd
		out bytes.Buffer
	}
	procs := make([]*proc, n)
	for i := range procs {
		p := &proc{cmd: exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")}
		p.cmd.Env = append(os.Environ(), helperMode+"="+mode, helperRoot+"="+dir, helperID+"="+strconv.Itoa(i))
		p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs[i] = p
	}
	return func() {
		t.Helper()
		writeFile(t, filepath.Join(dir, "go"), "")
		for i, p := range procs {
			if err := p.cmd.Wait(); err != nil {
				t.Errorf("helper %d: %v\n%s", i, err, p.out.String())
			}
		}
	}
}

func TestLockAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := tempDir(t)
	startHelpers(t, "append", dir, helperProcs)()
	b, err := os.ReadFile(filepath.Join(dir, "shared.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != helperProcs*appendRounds {
		t.Fatalf("%d lines, want %d: the lock let processes overwrite each other", len(lines), helperProcs*appendRounds)
	}
	// Each helper's lines are all there, in its order.
	next := map[string]int{}
	for _, l := range lines {
		id, n, _ := strings.Cut(l, " ")
		if n != strconv.Itoa(next[id]) {
			t.Fatalf("line %q out of order: helper %s's next line is %d", l, id, next[id])
		}
		next[id]++
	}
	if len(next) != helperProcs {
		t.Errorf("lines from %d helpers, want %d", len(next), helperProcs)
	}
}

// The lock also excludes goroutines of one process: each Lock opens the
// lock file anew.
func TestLockAcrossGoroutines(t *testing.T) {
	dir := tempDir(t)
	r := store.Root{Scope: store.Project, Dir: dir}
	var wg sync.WaitGroup
	var inside, maxInside int
	var mu sync.Mutex
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				unlock, err := r.Lock()
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				inside++
				maxInside = max(maxInside, inside)
				mu.Unlock()
				time.Sleep(50 * time.Microsecond)
				mu.Lock()
				inside--
				mu.Unlock()
				unlock()
			}
		}()
	}
	wg.Wait()
	if maxInside != 1 {
		t.Errorf("%d goroutines held the lock at once", maxInside)
	}
}

func TestReadState(t *testing.T) {
	dir := tempDir(t)
	r := store.Root{Scope: store.Project, Dir: dir}
	empty := func(what string, s *store.State) {
		t.Helper()
		if s == nil || s.Version != 1 || len(s.Hits) != 0 || len(s.Cursors) != 0 {
			t.Errorf("%s: state %+v, want an empty version-1 state", what, s)
		}
	}
	empty("unconfigured root", store.Root{Scope: store.Global}.ReadState())
	empty("missing root", store.Root{Scope: store.Global, Dir: filepath.Join(dir, "none")}.ReadState())
	empty("missing file", r.ReadState())
	for _, bad := range []string{"", "{", "not json", `{"hits": {"a": "many"}}`, `{"hits": {"a": 1}, "cursors": 5}`, "[]"} {
		writeFile(t, filepath.Join(dir, ".state.json"), bad)
		empty(fmt.Sprintf("corrupt %q", bad), r.ReadState())
	}
	writeFile(t, filepath.Join(dir, ".state.json"), `{"version":1,"hits":{"b":2,"a":5},"cursors":{"ses_1":"msg_9"},"future":true}`)
	s := r.ReadState()
	if s.Hits["a"] != 5 || s.Hits["b"] != 2 || s.Cursors["ses_1"] != "msg_9" {
		t.Errorf("state %+v", s)
	}
	if got := strings.Join(s.SortedHits(), ","); got != "a,b" {
		t.Errorf("SortedHits = %s, want a,b", got)
	}
}

// readStateFile decodes .state.json strictly: it must be valid JSON.
func readStateFile(t *testing.T, dir string) store.State {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ".state.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s store.State
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf(".state.json is not valid JSON: %v\n%s", err, b)
	}
	return s
}

func TestUpdateState(t *testing.T) {
	dir := filepath.Join(tempDir(t), "new-root")
	r := store.Root{Scope: store.Project, Dir: dir}
	for range 3 {
		if err := r.UpdateState(func(s *store.State) { bump(s, "facts/a") }); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.UpdateState(func(s *store.State) {
		bump(s, "facts/b")
		if s.Cursors == nil {
			s.Cursors = map[string]string{}
		}
		s.Cursors["ses_1"] = "msg_2"
		s.Version = 99 // the store owns the version
	}); err != nil {
		t.Fatal(err)
	}
	s := readStateFile(t, dir)
	if s.Version != 1 || s.Hits["facts/a"] != 3 || s.Hits["facts/b"] != 1 || s.Cursors["ses_1"] != "msg_2" {
		t.Errorf("state %+v", s)
	}
	// UpdateState made the root, with its .gitignore, and left no temp file.
	if got := strings.Join(names(t, dir), " "); got != ".gitattributes .gitignore .ocmem.lock .state.json" {
		t.Errorf("root holds %s", got)
	}

	// A corrupt file is started over, and written back valid.
	writeFile(t, filepath.Join(dir, ".state.json"), "{garbage")
	if err := r.UpdateState(func(s *store.State) { bump(s, "facts/a") }); err != nil {
		t.Fatal(err)
	}
	if s := readStateFile(t, dir); s.Hits["facts/a"] != 1 || len(s.Hits) != 1 {
		t.Errorf("after a corrupt file: %+v", s)
	}
}

// Increments from goroutines and processes at once: none is lost.
func TestUpdateStateAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := tempDir(t)
	r := store.Root{Scope: store.Project, Dir: dir}
	const procs, goroutines = 3, 4
	run := startHelpers(t, "state", dir, procs)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for { // start with the helpers
				if _, err := os.Stat(filepath.Join(dir, "go")); err == nil {
					break
				}
				time.Sleep(time.Millisecond)
			}
			for range stateRounds {
				if err := r.UpdateState(func(s *store.State) { bump(s, "shared", fmt.Sprintf("goroutine-%d", g)) }); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	run()
	wg.Wait()
	s := readStateFile(t, dir)
	if want := (procs + goroutines) * stateRounds; s.Hits["shared"] != want {
		t.Errorf("shared counter %d, want %d: increments were lost", s.Hits["shared"], want)
	}
	for i := range procs {
		if n := s.Hits["helper-"+strconv.Itoa(i)]; n != stateRounds {
			t.Errorf("helper %d counted %d, want %d", i, n, stateRounds)
		}
	}
	for g := range goroutines {
		if n := s.Hits[fmt.Sprintf("goroutine-%d", g)]; n != stateRounds {
			t.Errorf("goroutine %d counted %d, want %d", g, n, stateRounds)
		}
	}
}
