package reliability_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/store"
)

// Writers killed with SIGKILL at random points (Unix; a killed process
// gets no chance to clean up) must leave no partial memory file, no temp
// file that loads as a memory, a valid .state.json, and a store that
// compile and inspect find clean. Two kinds of writer are killed in turn:
// this test binary re-executed as a loop over engine.Remember (with
// supersedes, forgets, recalls that count hits, and compiles), and the
// real `ocmem remember`.

const envCrashWriter = "OCMEM_RELIABILITY_CRASH_WRITER"

// crashWriter is the re-executed writer: it writes until killed, printing
// each acknowledged step. FORGETTING comes before a forget, so a kill in
// between leaves the id's fate open.
func crashWriter(root string) int {
	e := engine.New(engine.Config{ProjectDir: root})
	seed, _ := strconv.ParseUint(os.Getenv(envCrashWriter+"_SEED"), 10, 64)
	r := rand.New(rand.NewPCG(seed, uint64(os.Getpid())))
	out := bufio.NewWriter(os.Stdout)
	say := func(format string, args ...any) {
		fmt.Fprintf(out, format+"\n", args...)
		out.Flush()
	}
	var mine []string
	for i := 0; i < 10000; i++ {
		switch op := r.IntN(10); {
		case op == 0 && len(mine) > 0:
			id := mine[r.IntN(len(mine))]
			say("FORGETTING %s", id)
			if _, err := e.Forget(store.Project, id, engine.FromPerson); err == nil {
				say("FORGOT %s", id)
			}
		case op == 1:
			e.Recall("crash writer memory", engine.RecallOptions{Limit: 3, Count: true})
		case op == 2:
			e.Compile()
		default:
			req := engine.RememberRequest{Scope: store.Project, Category: []string{"facts", "pitfalls", "decisions"}[r.IntN(3)],
				Kind: memory.KindFact, Summary: fmt.Sprintf("crash writer %d memory %d", os.Getpid(), i),
				Body: strings.Repeat("A line of body text to make the write take a while.\n", r.IntN(200)), LoadWhen: []string{"crash"}}
			if op == 3 && len(mine) > 0 {
				req.Supersedes = mine[len(mine)-1]
			}
			w, err := e.Remember(req)
			if err != nil {
				continue // e.g. superseding a memory another writer forgot
			}
			say("ID %s", w.ID)
			mine = append(mine, w.ID)
		}
	}
	return 0
}

func TestKilledWriters(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL is a Unix signal")
	}
	kills := 30
	if long() {
		kills = 300
	}
	w := newWorld(t)
	root := w.project
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	acked := map[string]bool{} // ids whose write was acknowledged and not forgotten
	uncertain := map[string]bool{}
	finishedFirst, strayTemps := 0, 0
	// The kill delays suit an idle machine. On a loaded one (CI runs
	// several packages at once) a writer may not have started when it is
	// killed, and then nothing is tested. The faster of two writers run
	// to the end measures the machine, and the delays stretch by as much.
	// Their memories are not counted as acknowledged.
	quickest := time.Duration(math.MaxInt64)
	for i := range 2 {
		start := time.Now()
		if r := w.ocmem(t, "", "remember", "--category", "facts", "--kind", "fact",
			"--summary", fmt.Sprintf("calibration writer %d", i), "--body", "Timed."); r.code != 0 {
			t.Fatalf("ocmem remember: exit %d\n%s", r.code, r.stderr)
		}
		quickest = min(quickest, time.Since(start))
	}
	const idleWrite = 40 * time.Millisecond // a remember on an idle 2-core machine
	stretch := max(1, float64(quickest)/float64(idleWrite))
	t.Logf("a write takes %v here: kill delays × %.1f", quickest, stretch)
	watchdog(t, 5*time.Minute, "killing writers", func() {
		for k := 0; k < kills; k++ {
			var cmd *exec.Cmd
			var delay time.Duration
			if k%2 == 0 {
				cmd = exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(append([]string{}, w.env...), envCrashWriter+"="+root, envCrashWriter+"_SEED="+strconv.Itoa(k))
				delay = time.Duration(float64(10+rng.IntN(150)) * stretch * float64(time.Millisecond))
			} else {
				cmd = exec.Command(ocmemBin(t), "remember", "--category", "facts", "--kind", "fact",
					"--summary", fmt.Sprintf("cli writer %d", k), "--load-when", "crash",
					"--body", strings.Repeat("CLI body line.\n", rng.IntN(300)))
				cmd.Env = w.env
				delay = time.Duration(float64(rng.IntN(30)) * stretch * float64(time.Millisecond))
			}
			var stdout bytes.Buffer
			cmd.Stdout = &stdout
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(delay)
			cmd.Process.Kill() // SIGKILL
			if err := cmd.Wait(); err == nil {
				finishedFirst++
			}
			for _, line := range strings.Split(stdout.String(), "\n") {
				f := strings.Fields(line)
				switch {
				case len(f) == 2 && f[0] == "ID":
					acked[f[1]] = true
				case len(f) == 2 && f[0] == "FORGETTING":
					uncertain[f[1]] = true
				case len(f) == 2 && f[0] == "FORGOT":
					delete(acked, f[1])
					delete(uncertain, f[1])
				case len(f) >= 2 && f[0] == "remembered":
					id := strings.TrimPrefix(f[1], "project:")
					acked[id] = true
				}
			}
			// After every kill: whatever is on disk loads, or is a temp file
			// Load ignores.
			files, problems, err := store.Root{Scope: store.Project, Dir: root}.Load()
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range problems {
				t.Errorf("after kill %d: %v", k+1, p)
			}
			for _, f := range files {
				if strings.HasPrefix(filepath.Base(f.Rel), ".") || strings.HasSuffix(f.Rel, ".tmp") {
					t.Errorf("after kill %d: a temp file loaded as a memory: %s", k+1, f.Rel)
				}
			}
			if t.Failed() {
				return
			}
		}
	})
	if t.Failed() {
		return
	}
	// Every acknowledged write survived its writer's death.
	files, _, _ := store.Root{Scope: store.Project, Dir: root}.Load()
	have := map[string]bool{}
	for _, f := range files {
		have[f.Memory.ID] = true
	}
	for id := range acked {
		if !have[id] && !uncertain[id] {
			t.Errorf("acknowledged memory %s is gone", id)
		}
	}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(d.Name(), ".tmp") {
			strayTemps++
			if !strings.HasPrefix(d.Name(), ".") {
				t.Errorf("a temp file without a leading dot: %s", p)
			}
		}
		return nil
	})
	if b, err := os.ReadFile(filepath.Join(root, store.StateFile)); err == nil && !json.Valid(b) {
		t.Errorf(".state.json is not valid JSON after the kills:\n%s", b)
	}
	// compile repairs what a kill between a write and its compile left;
	// then inspect finds no error.
	if r := w.ocmem(t, "", "compile"); r.code != 0 {
		t.Fatalf("ocmem compile: exit %d\n%s", r.code, r.stderr)
	}
	r := w.ocmem(t, "", "inspect", "--json")
	var rep engine.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("inspect --json: %v\n%s", err, r.stdout)
	}
	warnings := 0
	for _, is := range rep.Issues {
		if is.Severity == engine.SevError {
			t.Errorf("after the kills and a compile: %s", is)
		} else {
			warnings++ // a kill between a supersede's two files leaves the old one unmarked
		}
	}
	if r.code != 0 && !t.Failed() {
		t.Errorf("ocmem inspect exited %d", r.code)
	}
	t.Logf("%d kills (%d writers finished first); %d memories on disk, %d acknowledged; %d stray temp files (ignored by Load); %d inspect warnings",
		kills, finishedFirst, len(files), len(acked), strayTemps, warnings)
	if len(acked) == 0 {
		t.Error("no write was ever acknowledged: the kills came too early to test anything")
	}
}
