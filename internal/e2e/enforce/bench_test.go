package enforce

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
)

// TestToolCallOverheadV1 and TestToolCallOverheadV2 measure what ocmem's
// check, and a hundred guarded rules, add to a tool call in the real
// OpenCode: the model makes benchCalls shell calls of `true`, without
// ocmem, and with it in a project whose global root holds benchRules hard
// rules, once where none carries a guard and once where each guards a
// command no call runs (so every call is checked against every guard and
// allowed). A call is timed twice: by OpenCode's own tool
// part (its state's start and end, which hold the plugin's hook, ocmem's
// check and the shell), and by the gap between the fake model's arrivals
// of the request that asked for the call and of the one carrying its
// result (the above and the next turn). The two sides alternate, each
// first in turn, so the machine's load falls on both alike. They run only
// with OCMEM_E2E_ENFORCE_BENCH=1 (OCMEM_E2E_ENFORCE_BENCH_RUNS sets the
// runs per side, default 6):
//
//	OCMEM_E2E_ENFORCE_BENCH=1 go test -count=1 -timeout 25m ./internal/e2e/enforce -run '^TestToolCallOverheadV[12]$' -v
func TestToolCallOverheadV1(t *testing.T) {
	benchOverhead(t, e2e.NewEnv, e2e.NewOcmemEnv, "bash")
}

// TestToolCallOverheadV2 is TestToolCallOverheadV1 on OpenCode 2.0.15.
func TestToolCallOverheadV2(t *testing.T) {
	benchOverhead(t, func(t testing.TB) *e2e.Env { return e2e.NewEnvWith(t, e2e.EnvOptions{V2: true}) }, e2e.NewOcmemEnv2, "shell")
}

const (
	benchCalls = 20
	benchRules = 100
)

func benchOverhead(t *testing.T, newBare, newEnv func(testing.TB) *e2e.Env, shell string) {
	e2e.SkipShort(t)
	if os.Getenv("OCMEM_E2E_ENFORCE_BENCH") == "" {
		t.Skip("set OCMEM_E2E_ENFORCE_BENCH=1 to time tool calls with and without guards")
	}
	runs := 6
	if n, err := strconv.Atoi(os.Getenv("OCMEM_E2E_ENFORCE_BENCH_RUNS")); err == nil && n > 0 {
		runs = n
	}
	bare, plain, guarded := newBare(t), newEnv(t), newEnv(t)
	benchRulesIn(plain, false)
	benchRulesIn(guarded, true)
	// The guards are in force: ocmem check stops a command they name
	// (exit status 1) and lets the benchmark's through.
	for _, c := range []struct {
		cmd  string
		code int
	}{{"deploy-042 now", 1}, {"true", 0}} {
		cmd := exec.Command(e2e.Ocmem(t), "check", "--", c.cmd)
		cmd.Dir, cmd.Env = guarded.Dir, guarded.Environ()
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != c.code {
			t.Fatalf("ocmem check -- %s: exit %d, want %d:\n%s", c.cmd, code, c.code, out)
		}
	}

	var script []fakellm.Reply
	for i := range benchCalls {
		script = append(script, fakellm.Call(shell, map[string]any{"command": "true", "description": fmt.Sprintf("call %d", i)}))
	}
	script = append(script, fakellm.Text("done"))
	run := func(e *e2e.Env) (gaps, parts []time.Duration) {
		e.Fake.Reset()
		e.Fake.SetResponder(fakellm.Script(script...))
		r := e.MustRun("run", "--format", "json", "run true a few times")
		return callTimes(t, e.Fake.Requests()), toolPartTimes(t, r.Stdout, shell)
	}
	type side struct {
		name        string
		e           *e2e.Env
		gaps, parts []time.Duration
	}
	sides := []*side{{name: "no ocmem", e: bare}, {name: "no guards", e: plain}, {name: fmt.Sprint(benchRules, " guarded rules"), e: guarded}}
	for _, s := range sides {
		run(s.e) // first runs pay one-off costs (caches, snapshots)
	}
	for i := range runs {
		for j := range sides { // each side first in turn: none always follows another
			s := sides[(i+j)%len(sides)]
			g, p := run(s.e)
			s.gaps, s.parts = append(s.gaps, g...), append(s.parts, p...)
		}
	}
	report := func(what string, get func(*side) []time.Duration) {
		base := percentile(get(sides[1]), 50)
		var b strings.Builder
		fmt.Fprintf(&b, "%s, %s, %d calls per side:", shell, what, len(get(sides[0])))
		for _, s := range sides {
			d := get(s)
			p50 := percentile(d, 50)
			fmt.Fprintf(&b, "\n    %-18s p50 %8v  p90 %8v  p50 / no guards' %.3f (%+.1f ms)", s.name, ms(p50), ms(percentile(d, 90)),
				float64(p50)/float64(base), float64(p50-base)/float64(time.Millisecond))
		}
		t.Log(b.String())
	}
	report("tool part (OpenCode's start to end)", func(s *side) []time.Duration { return s.parts })
	report("request to request (fake model)", func(s *side) []time.Duration { return s.gaps })
}

// toolPartTimes returns the time OpenCode records for each completed call
// of the tool, from its tool part's state.time (`opencode run --format
// json` prints the part when the call ends). The plugin's hook runs
// between the start and the end.
func toolPartTimes(t *testing.T, stdout, tool string) []time.Duration {
	t.Helper()
	var out []time.Duration
	for _, line := range strings.Split(stdout, "\n") {
		var ev struct {
			Type string
			Part struct {
				Tool  string
				State struct {
					Status string
					Time   struct{ Start, End int64 }
				}
			}
		}
		if json.Unmarshal([]byte(line), &ev) != nil || ev.Type != "tool_use" || ev.Part.Tool != tool || ev.Part.State.Status != "completed" {
			continue
		}
		out = append(out, time.Duration(ev.Part.State.Time.End-ev.Part.State.Time.Start)*time.Millisecond)
	}
	if len(out) != benchCalls {
		t.Fatalf("%d completed %s tool parts in opencode's output, want %d:\n%s", len(out), tool, benchCalls, e2e.Tail(stdout, 2000))
	}
	return out
}

// benchRulesIn writes benchRules global hard rules into e, each guarding
// (with guards) a command the benchmark never runs.
func benchRulesIn(e *e2e.Env, guards bool) {
	dir := filepath.Join(e.ConfigDir(), "memory", "rules")
	for i := range benchRules {
		block := ""
		if guards {
			block = fmt.Sprintf("enforce:\n  bash:\n    \"deploy-%03d *\": deny\n    \"rm -rf /srv/%03d*\": ask\n", i, i)
		}
		e.WriteFile(filepath.Join(dir, fmt.Sprintf("rule-%03d.md", i)), fmt.Sprintf(
			"---\nid: rules/rule-%03d\nkind: rule\nsummary: Never run deploy step %03d by hand\n%s---\nThe pipeline runs it.\n", i, i, block))
	}
}

// callTimes returns, for each tool call of the agent loop, the time from
// the request answered with the call to the request carrying its result.
func callTimes(t *testing.T, reqs []fakellm.Request) []time.Duration {
	t.Helper()
	agent := fakellm.Agent(reqs)
	if len(agent) < benchCalls+1 {
		t.Fatalf("%d agent requests, want %d", len(agent), benchCalls+1)
	}
	var out []time.Duration
	for i := 1; i <= benchCalls; i++ {
		if n := len(agent[i].ToolResults()); n != i {
			t.Fatalf("request %d carries %d tool results, want %d", i, n, i)
		}
		out = append(out, agent[i].Received.Sub(agent[i-1].Received))
	}
	return out
}

func percentile(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
