package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A value must reach the most hits over the training sets and stay within
// 0.03 of the best MRR on each; then the best mean score wins, and of tied
// values the middle one.
func TestChooseLOSO(t *testing.T) {
	f := func(hit, mrr, prec float64) losoFigure {
		return losoFigure{hit: hit, mrr: mrr, quiet: -1, precision: prec, quietG: -1, precisionG: -1, scopeViolation: -1, wanting: 10}
	}
	for _, tc := range []struct {
		name    string
		figures [][]losoFigure
		train   []int
		want    int
	}{
		{"most hits first", [][]losoFigure{{f(0.9, 0.9, 0.9)}, {f(1, 0.88, 0.5)}}, []int{0}, 1},
		{"the most hits, every one losing MRR: they tie", [][]losoFigure{{f(0.9, 0.9, 0.9)}, {f(1, 0.8, 0.5)}, {f(1, 0.8, 0.9)}, {f(1, 0.8, 0.1)}}, []int{0}, 2},
		{"best score among the most hits", [][]losoFigure{{f(1, 0.8, 0.5)}, {f(1, 0.8, 0.6)}}, []int{0}, 1},
		{"an MRR loss over 0.03 on any set is out", [][]losoFigure{
			{f(1, 0.93, 0.5), f(1, 0.9, 0.5)},
			{f(1, 0.95, 0.9), f(1, 0.85, 0.9)},
		}, []int{0, 1}, 0},
		{"the set left out is not looked at", [][]losoFigure{
			{f(1, 0.9, 0.5), f(0, 0, 0)},
			{f(1, 0.9, 0.6), f(0, 0, 0)},
		}, []int{0}, 1},
		{"of ties the middle one", [][]losoFigure{{f(1, 0.9, 0.5)}, {f(1, 0.9, 0.5)}, {f(1, 0.9, 0.5)}}, []int{0}, 1},
	} {
		if got := chooseLOSO(tc.figures, tc.train); got != tc.want {
			t.Errorf("%s: chose %d, want %d", tc.name, got, tc.want)
		}
	}
}

// evalDir makes four development sets of one memory and one query each.
func evalDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	mem := "---\nid: facts/kafka-retention\nkind: fact\nsummary: Kafka keeps messages seven days\n" +
		"load_when:\n  - kafka retention\ncreated: 1785500000000\nupdated: 1785500000000\n---\nRetention is seven days.\n"
	for _, set := range []string{"dev", "turns-dev", "ops-dev", "ml-dev"} {
		write(t, filepath.Join(dir, set, "project", "facts", "kafka-retention.md"), mem)
		write(t, filepath.Join(dir, set, "queries.jsonl"),
			`{"id":"q1","q":"how long does kafka keep messages","relevant":["project:facts/kafka-retention"],"tags":["plain"]}`+"\n")
	}
	return dir
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDump(t *testing.T) {
	out := filepath.Join(t.TempDir(), "dump.jsonl")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"dump", "-eval", evalDir(t), "-o", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var sets []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var line struct {
			Set   string
			N     int
			Given []string
			Cands []struct{ Key string }
			Terms map[string]int
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		sets = append(sets, line.Set)
		if line.N != 1 || len(line.Cands) != 1 || line.Cands[0].Key != "project:facts/kafka-retention" || line.Terms["kafka"] != 1 {
			t.Errorf("%s: %s", line.Set, sc.Text())
		}
	}
	if got := strings.Join(sets, " "); got != "dev turns-dev ops-dev ml-dev" {
		t.Errorf("sets %q", got)
	}
}

func TestLOSOOneParam(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"loso", "-eval", evalDir(t), "-param", "MinHeadTerms"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	// The choice on all four, one line per set left out, one per value.
	if len(lines) != 1+4+5 || !strings.HasPrefix(lines[0], "MinHeadTerms: chosen on all four: ") ||
		!strings.Contains(lines[1], "dev        left out: chosen ") {
		t.Errorf("output:\n%s", stdout.String())
	}
}

func TestUsage(t *testing.T) {
	eval := evalDir(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "usage: ocmem-tune"},
		{[]string{"sweep"}, `unknown command "sweep"`},
		{[]string{"loso", "extra"}, "unexpected arguments"},
		{[]string{"loso", "-eval", eval, "-param", "Nope"}, `-param "Nope" is none of InjectCutoff,`},
		{[]string{"dump", "-eval", filepath.Join(eval, "missing")}, "development set dev:"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(tc.args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}
