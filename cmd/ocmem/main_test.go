package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/testscript"
)

// The CLI is tested end to end: testdata/script/*.txtar run the real
// command (this test binary, re-executed as "ocmem") against roots in the
// script's work directory.

func TestMain(m *testing.M) {
	// testscript.RunMain is deprecated in favour of Main; the effect is the
	// same: "ocmem" in a script runs run(args) in a fresh process and exits
	// with its code.
	testscript.Main(m, map[string]func(){
		"ocmem": func() { os.Exit(run(os.Args[1:])) },
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                filepath.Join("testdata", "script"),
		RequireUniqueNames: true,
		Setup: func(env *testscript.Env) error {
			// A safety net under the scripts' own env lines: nothing may
			// reach the real home, config or cache of whoever runs the tests.
			w := env.WorkDir
			for k, v := range map[string]string{
				"HOME":                w + "/home",
				"USERPROFILE":         w + "/home",
				"XDG_CONFIG_HOME":     w + "/home/.config",
				"XDG_CACHE_HOME":      w + "/home/.cache",
				"OPENCODE_CONFIG_DIR": w + "/home/.config/opencode",
				"OCMEM_GLOBAL":        w + "/global",
				"OCMEM_PROJECT":       w + "/project",
				"OCMEM_CACHE_DIR":     w + "/cache",
				"OCMEM_LOG":           w + "/ocmem.log",
			} {
				env.Setenv(k, v)
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":     cmdExits,
			"gentoken":  cmdGenToken,
			"expand":    cmdExpand,
			"json":      cmdJSON,
			"tree":      cmdTree,
			"tiercount": cmdTierCount,
			"mtime":     cmdMtime,
			"setmatch":  cmdSetMatch,
		},
	})
}

// exits N PROGRAM ARGS… runs a program and wants exit status N; its
// stdout and stderr are kept for the next commands, as exec keeps them.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits N program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad status %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

// setmatch VAR REGEXP sets VAR to REGEXP's first group in the last
// command's stdout (multi-line mode), as a person copies a value a command
// printed into the next one.
func cmdSetMatch(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: setmatch VAR REGEXP")
	}
	re, err := regexp.Compile("(?m)" + args[1])
	if err != nil || re.NumSubexp() < 1 {
		ts.Fatalf("setmatch: want a regexp with a group: %q (%v)", args[1], err)
	}
	m := re.FindStringSubmatch(ts.ReadFile("stdout"))
	if m == nil {
		ts.Fatalf("setmatch: no match for %q in stdout", args[1])
	}
	ts.Setenv(args[0], m[1])
}

// gentoken [aws] VAR sets VAR to a value shaped like a GitHub personal
// access token (aws: an AWS access key id), built at run time so no
// token-looking literal is in the tree. The value depends on VAR's name
// alone: two variables hold two different tokens.
func cmdGenToken(ts *testscript.TestScript, neg bool, args []string) {
	prefix, alphabet, n := "gh"+"p_", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 36
	if len(args) == 2 && args[0] == "aws" {
		prefix, alphabet, n = "AK"+"IA", "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16
		args = args[1:]
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: gentoken [aws] VAR")
	}
	h := fnv.New64a()
	h.Write([]byte(args[0]))
	r := rand.New(rand.NewPCG(7, h.Sum64()))
	b := []byte(prefix)
	for range n {
		b = append(b, alphabet[r.IntN(len(alphabet))])
	}
	ts.Setenv(args[0], string(b))
}

// expand SRC DST writes SRC with its $VAR and ${VAR} replaced by the
// script's variables to DST: a file that holds a value made at run time
// (gentoken).
func cmdExpand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: expand SRC DST")
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(os.Expand(ts.ReadFile(args[0]), ts.Getenv)), 0o644))
}

// json FILE EXPR… checks a JSON document (FILE may be stdout or stderr).
// EXPR is a dotted path into it (numbers index arrays), then:
//
//	path          the value exists and is not null
//	path=VALUE    the value is the string VALUE, or encodes as VALUE
//	path#=N       the value is an array (or object) of N elements
//	path>0        the value is a number above zero
//
// With !, every EXPR must fail.
func cmdJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: json FILE EXPR...")
	}
	var doc any
	if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &doc); err != nil {
		ts.Fatalf("json: %s is not JSON: %v", args[0], err)
	}
	exprRE := regexp.MustCompile(`^([^=#>]+)(=|#=|>0)?(.*)$`)
	for _, expr := range args[1:] {
		m := exprRE.FindStringSubmatch(expr)
		if m == nil {
			ts.Fatalf("json: bad expression %q", expr)
		}
		v, found := lookupJSON(doc, m[1])
		var err error
		switch {
		case !found || v == nil:
			err = fmt.Errorf("%s is missing", m[1])
		case m[2] == "=":
			got, ok := v.(string)
			if !ok {
				b, _ := json.Marshal(v)
				got = string(b)
			}
			if got != m[3] {
				err = fmt.Errorf("%s is %q, want %q", m[1], got, m[3])
			}
		case m[2] == "#=":
			n := -1
			switch x := v.(type) {
			case []any:
				n = len(x)
			case map[string]any:
				n = len(x)
			}
			if strconv.Itoa(n) != m[3] {
				err = fmt.Errorf("%s has %d elements, want %s", m[1], n, m[3])
			}
		case m[2] == ">0":
			if f, ok := v.(float64); !ok || f <= 0 {
				err = fmt.Errorf("%s is %v, want a number above 0", m[1], v)
			}
		}
		if neg && err == nil {
			ts.Fatalf("json: %s holds, want it not to", expr)
		}
		if !neg && err != nil {
			ts.Fatalf("json: %v", err)
		}
	}
}

func lookupJSON(v any, path string) (any, bool) {
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[k]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// mtime FILE MS sets a file's modification time to MS, Unix milliseconds,
// as an editor saving it then would.
func cmdMtime(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: mtime FILE MS")
	}
	ms, err := strconv.ParseInt(args[1], 10, 64)
	ts.Check(err)
	at := time.UnixMilli(ms)
	ts.Check(os.Chtimes(ts.MkAbs(args[0]), at, at))
}

// tree DIR prints every file under DIR with a hash of its content, so a
// script can tell (with cp and cmp) that nothing at all changed.
func cmdTree(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: tree DIR")
	}
	dir := ts.MkAbs(args[0])
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			lines = append(lines, filepath.ToSlash(rel)+"/")
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		lines = append(lines, filepath.ToSlash(rel)+" "+hex.EncodeToString(sum[:8]))
		return nil
	})
	ts.Check(err)
	sort.Strings(lines)
	fmt.Fprintln(ts.Stdout(), strings.Join(lines, "\n"))
}

// tiercount FILE checks the text output of `ocmem inject`: each tier's
// header states the tier's length in characters (runes), and that must be
// the length of the text printed under it.
func cmdTierCount(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: tiercount FILE")
	}
	headerRE := regexp.MustCompile(`(?m)^==== (hard rules|outline|bodies) \((\d+) characters; [^)]*\) ====\n`)
	out := ts.ReadFile(args[0])
	locs := headerRE.FindAllStringSubmatchIndex(out, -1)
	if len(locs) != 3 {
		ts.Fatalf("tiercount: %d tier headers, want 3", len(locs))
	}
	for i, loc := range locs {
		end := len(out)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		} else if j := strings.Index(out[loc[1]:], "\n==== not repeated"); j >= 0 {
			end = loc[1] + j + 1
		}
		text := out[loc[1]:end]
		want, _ := strconv.Atoi(out[loc[4]:loc[5]])
		if text == "(empty)\n" {
			text = ""
		}
		// The text is printed with a final newline added when it lacks one.
		n := utf8.RuneCountInString(text)
		if n != want && n-1 != want {
			ts.Fatalf("tiercount: %s says %d characters, prints %d", out[loc[2]:loc[3]], want, n)
		}
	}
}
