package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// The write path: a fresh `ocmem remember` and `ocmem forget` process, the
// same two through `ocmem serve` (the model's memory_remember and
// memory_forget), and a hand edit until serve's next recall finds it. With
// -compare, a second binary (an older build) is measured in the same run,
// the two alternated call by call, so that their ratio is from the same
// minutes of this machine. Every memory written is forgotten again; the
// hand-edited file is removed at the end.

// writeResult is one binary's write path at one size.
type writeResult struct {
	Binary        string   `json:"binary"`
	CLIRemember   runStats `json:"cli_remember"`
	CLIForget     runStats `json:"cli_forget"`
	CLIRSSMB      float64  `json:"cli_write_rss_mb"` // the largest peak RSS of its CLI writes
	ServeRemember runStats `json:"serve_remember"`
	ServeForget   runStats `json:"serve_forget"`
	// A summary rewritten by hand until serve's recall returns it.
	ServeHandEdit runStats `json:"serve_hand_edit"`
}

// cliEnv is the environment of a measured process of the binary who (0:
// this build, 1: the one compared): none of the user's own OCMEM_*
// settings, and a load cache of its own, so that two builds whose cache
// formats differ do not each turn the other's away and load cold.
func cliEnv(cor *corpus, who int) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OCMEM_") {
			env = append(env, kv)
		}
	}
	cache := cor.cacheDir()
	if who > 0 {
		cache += fmt.Sprintf("-compared-%d", who)
	}
	return append(env, "OCMEM_CACHE_DIR="+cache)
}

// measureWrites measures each binary's write path, runs times each,
// alternating the binaries.
func measureWrites(bins []string, cor *corpus, runs int) ([]writeResult, error) {
	defer keepState(cor.global, cor.project)()
	res := make([]writeResult, len(bins))
	type durs struct{ rem, forget, srem, sforget, edit []time.Duration }
	ds := make([]durs, len(bins))
	for i, b := range bins {
		res[i].Binary = b
		// A warm-up write: the first one also writes the compiled files of
		// a corpus that has none yet, and fills the cache.
		if _, _, _, err := cliWrite(b, cor, i, -1); err != nil {
			return nil, err
		}
	}
	for round := range runs {
		for k := range bins {
			i := (k + round) % len(bins)
			rem, forget, rss, err := cliWrite(bins[i], cor, i, round)
			if err != nil {
				return nil, err
			}
			ds[i].rem, ds[i].forget = append(ds[i].rem, rem), append(ds[i].forget, forget)
			res[i].CLIRSSMB = max(res[i].CLIRSSMB, rss)
		}
	}
	// One serve process at a time: another one's watcher would reload and
	// recompile after every write measured. Each is started, written to
	// once unmeasured (a long-running serve process has written before),
	// measured, and stopped.
	edit := filepath.Join(cor.project, "facts", "bench-hand-edit.md")
	defer os.Remove(edit)
	for round := range runs {
		for k := range bins {
			i := (k + round) % len(bins)
			s, err := startServer(bins[i], cor, i)
			if err != nil {
				return nil, err
			}
			_, _, err = s.write(i, 1000+round)
			var rem, forget, d time.Duration
			if err == nil {
				rem, forget, err = s.write(i, round)
			}
			if err == nil {
				d, err = s.handEdit(edit, fmt.Sprintf("quagga%dx%d", i, round))
			}
			s.close()
			if err != nil {
				return nil, err
			}
			ds[i].srem, ds[i].sforget, ds[i].edit = append(ds[i].srem, rem), append(ds[i].sforget, forget), append(ds[i].edit, d)
		}
	}
	for i := range res {
		res[i].CLIRemember, res[i].CLIForget = statsOf(ds[i].rem), statsOf(ds[i].forget)
		res[i].ServeRemember, res[i].ServeForget, res[i].ServeHandEdit = statsOf(ds[i].srem), statsOf(ds[i].sforget), statsOf(ds[i].edit)
	}
	return res, nil
}

func benchSummary(who, round int) string {
	return fmt.Sprintf("write bench %d-%d: the staging queue drains before a deploy", who, round)
}

var rememberedID = regexp.MustCompile(`(?i)remembered project:(\S+)`)

// cliWrite runs a fresh remember, then a fresh forget of what it wrote.
func cliWrite(bin string, cor *corpus, who, round int) (rem, forget time.Duration, rssMB float64, err error) {
	roots := []string{"--global", cor.global, "--project", cor.project}
	out, rem, rss1, err := runProbed(cliEnv(cor, who), append([]string{bin, "remember", "--category", "facts", "--kind", "fact",
		"--summary", benchSummary(who, round), "--load-when", "部署", "--body", "Measured by ocmem-bench."}, roots...)...)
	if err != nil {
		return 0, 0, 0, err
	}
	m := rememberedID.FindSubmatch(out)
	if m == nil {
		return 0, 0, 0, fmt.Errorf("ocmem remember: no id in %q", out)
	}
	_, forget, rss2, err := runProbed(cliEnv(cor, who), append(append([]string{bin, "forget", "--scope", "project"}, roots...), string(m[1]))...)
	if err != nil {
		return 0, 0, 0, err
	}
	return rem, forget, float64(max(rss1, rss2)) / (1 << 20), nil
}

// server is a running `ocmem serve`, spoken to as the plugin does.
type server struct {
	cmd *exec.Cmd
	in  interface {
		Write([]byte) (int, error)
		Close() error
	}
	out *bufio.Reader
	id  int
	// flat: the build reads a tool's arguments at the top of the request.
	flat bool
}

func startServer(bin string, cor *corpus, who int) (*server, error) {
	cmd := exec.Command(bin, "serve", "--global", cor.global, "--project", cor.project)
	cmd.Env = append(cliEnv(cor, who), "OCMEM_LOG="+filepath.Join(cor.dir, "serve-writes.log"))
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, in: in, out: bufio.NewReader(out)}
	if _, err := s.call("system", map[string]any{"sessionID": "ses_writes"}); err != nil {
		s.close()
		return nil, err
	}
	// A build from before tool arguments travelled apart, as "args" (one
	// -compare may name), reads them at the top of the request: it finds
	// no query in this probe.
	if _, err := s.call("recall", map[string]any{"sessionID": "ses_writes", "args": map[string]any{"query": "probe"}}); err != nil {
		if !strings.Contains(err.Error(), "query is empty") {
			s.close()
			return nil, err
		}
		s.flat = true
	}
	return s, nil
}

// tool calls one of the four tools with the model's arguments, in the
// request shape the build reads.
func (s *server) tool(method string, args map[string]any) (string, error) {
	params := map[string]any{"sessionID": "ses_writes", "args": args}
	if s.flat {
		params = map[string]any{"sessionID": "ses_writes"}
		for k, v := range args {
			params[k] = v
		}
	}
	return s.call(method, params)
}

func (s *server) close() {
	s.in.Close()
	s.cmd.Wait()
}

// call sends one request and returns the reply's text.
func (s *server) call(method string, params map[string]any) (string, error) {
	s.id++
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.id, "method": method, "params": params})
	if _, err := s.in.Write(append(req, '\n')); err != nil {
		return "", err
	}
	line, err := s.out.ReadBytes('\n')
	if err != nil {
		return "", fmt.Errorf("ocmem serve: %s: %w", method, err)
	}
	var resp struct {
		Result struct{ Text, Warning string }
		Error  *struct{ Message string }
	}
	if err := json.Unmarshal(line, &resp); err != nil || resp.Error != nil {
		return "", fmt.Errorf("ocmem serve: %s: %v %v", method, err, resp.Error)
	}
	if resp.Result.Warning != "" {
		return "", fmt.Errorf("ocmem serve: %s: %s", method, resp.Result.Warning)
	}
	return resp.Result.Text, nil
}

// write remembers a memory through serve and forgets it again.
func (s *server) write(who, round int) (rem, forget time.Duration, err error) {
	start := time.Now()
	text, err := s.tool("remember", map[string]any{"category": "facts", "kind": "fact",
		"summary": benchSummary(who, 100+round), "body": "Measured by ocmem-bench.", "load_when": []string{"部署"}})
	rem = time.Since(start)
	if err != nil {
		return 0, 0, err
	}
	m := rememberedID.FindStringSubmatch(text)
	if m == nil {
		return 0, 0, fmt.Errorf("serve remember: no id in %q", text)
	}
	start = time.Now()
	if _, err := s.tool("forget", map[string]any{"id": m[1], "scope": "project"}); err != nil {
		return 0, 0, err
	}
	return rem, time.Since(start), nil
}

// handEdit writes a memory file by hand and asks serve to recall its new
// word until it answers with it; it returns how long that took.
func (s *server) handEdit(path, word string) (time.Duration, error) {
	data := fmt.Sprintf("---\nid: facts/bench-hand-edit\nkind: fact\nsummary: hand edit %s\nload_when: [%s]\n---\nEdited by ocmem-bench.\n", word, word)
	start := time.Now()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		return 0, err
	}
	for deadline := start.Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		text, err := s.tool("recall", map[string]any{"query": word, "limit": 1})
		if err != nil {
			return 0, err
		}
		if strings.Contains(text, "bench-hand-edit") {
			return time.Since(start), nil
		}
	}
	return 0, fmt.Errorf("serve never answered with the hand edit %q", word)
}

// writeWrites prints the write path's table, when it was measured.
func writeWrites(w io.Writer, r *report) {
	header := false
	for _, s := range r.Sizes {
		for i, x := range s.Writes {
			if !header {
				fmt.Fprintf(w, "\n**Write path** (ocmem %s · %s · load average %s at start, %s at end), median of %d, ms; peak RSS of the CLI writes, MB\n\n",
					r.Machine.Commit, r.Machine.Date, r.Machine.LoadStart, r.Machine.LoadEnd, x.CLIRemember.N)
				fmt.Fprintln(w, "| memories | binary | CLI remember | CLI forget | CLI RSS | serve remember | serve forget | hand edit seen by serve |")
				fmt.Fprintln(w, "|---:|---|---:|---:|---:|---:|---:|---:|")
				header = true
			}
			name := "this build"
			if i > 0 {
				name = filepath.Base(x.Binary)
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", count(s.Memories), name,
				num(x.CLIRemember.Median), num(x.CLIForget.Median), num(x.CLIRSSMB),
				num(x.ServeRemember.Median), num(x.ServeForget.Median), num(x.ServeHandEdit.Median))
		}
	}
}
