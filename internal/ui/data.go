package ui

import (
	"bytes"
	"crypto/sha256"
	"html/template"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/render"
)

// row is one memory as the list shows it.
type row struct {
	Scope        engine.Scope
	ID           string
	Kind         string
	Category     string
	Summary      string
	Path         string
	Created      int64
	Updated      int64
	Pinned       bool
	Supersedes   string
	SupersededBy string
	ProposedBy   string
	Hits         int
	Decay        float64
}

// view is the memory list of one engine snapshot.
type view struct {
	snap       *engine.Snapshot
	rows       []row
	textOnce   sync.Once
	texts      []string // per row: what the text filter searches, lower-cased; made on first use
	kinds      []string
	categories []string
}

type viewCache struct {
	mu sync.Mutex
	v  *view
}

// currentView returns the list of the engine's current snapshot, built
// once per snapshot.
func (s *Server) currentView() (*view, error) {
	snap, err := s.e.Load()
	if err != nil {
		return nil, err
	}
	s.view.mu.Lock()
	defer s.view.mu.Unlock()
	if s.view.v != nil && s.view.v.snap == snap {
		return s.view.v, nil
	}
	now := s.cfg.Now().UnixMilli()
	half := s.e.Options().HalfLifeDays
	files := snap.Files()
	v := &view{snap: snap, rows: make([]row, len(files))}
	kinds, cats := map[string]bool{}, map[string]bool{}
	for i, f := range files {
		m := f.Memory
		r := row{
			Scope: f.Scope, ID: m.ID, Kind: string(m.Kind), Category: m.Category(), Summary: m.Summary, Path: f.Path,
			Created: m.Created, Updated: m.Updated, Pinned: m.Pinned, Supersedes: m.Supersedes, SupersededBy: m.SupersededBy, ProposedBy: m.ProposedBy,
			Hits: snap.Corpus.Meta(i).Hits, Decay: engine.Decay(now, m.Updated, half, m.Pinned),
		}
		v.rows[i] = r
		kinds[r.Kind], cats[r.Category] = true, true
	}
	// Every kind is offered, present or not, in the order the format
	// lists them (a person looks for rule proposals before there is one);
	// a kind no memory should have is offered after them.
	for _, k := range engine.Kinds {
		v.kinds = append(v.kinds, string(k))
		delete(kinds, string(k))
	}
	odd := slices.Sorted(maps.Keys(kinds))
	v.kinds = append(v.kinds, odd...)
	for c := range cats {
		v.categories = append(v.categories, c)
	}
	slices.Sort(v.categories)
	s.view.v = v
	return v, nil
}

// filter is the memory list's query.
type filter struct {
	Scope, Kind, Category, Text string
	Page                        int
	// Stale keeps the memories whose anchored code changed or went
	// (inspect's stale warnings), once the checks are done.
	Stale bool
}

func (v *view) filter(f filter) []int {
	text := strings.ToLower(strings.TrimSpace(f.Text))
	if text != "" {
		v.textOnce.Do(func() {
			v.texts = make([]string, len(v.rows))
			for i, f := range v.snap.Files() {
				m := f.Memory
				v.texts[i] = strings.ToLower(m.ID + "\n" + m.Summary + "\n" + m.Highlight + "\n" + strings.Join(m.LoadWhen, "\n") + "\n" + m.Body)
			}
		})
	}
	var out []int
	for i := range v.rows {
		r := &v.rows[i]
		if f.Scope != "" && string(r.Scope) != f.Scope || f.Kind != "" && r.Kind != f.Kind ||
			f.Category != "" && r.Category != f.Category || text != "" && !strings.Contains(v.texts[i], text) {
			continue
		}
		out = append(out, i)
	}
	return out
}

// checkCache holds the last consistency report (engine.Inspect), by the
// generation and the repository's fingerprint it was made at: a commit
// can make a memory stale without changing a memory file. Inspect reads
// every file, so it runs in the background and the pages show the latest
// report they have.
type checkCache struct {
	mu      sync.Mutex
	gen     uint64
	code    string // engine.CodeState's fingerprint
	rep     *engine.Report
	running bool
	done    chan struct{} // closed when the running check ends
}

// checks returns the latest report (nil before the first one ends), and
// starts a new check when files changed or the repository moved since it
// was made.
func (s *Server) checks() *engine.Report {
	gen := s.generation()
	_, code := s.e.CodeState()
	s.checks_.mu.Lock()
	defer s.checks_.mu.Unlock()
	c := &s.checks_
	if (c.rep == nil || c.gen != gen || c.code != code) && !c.running {
		c.running = true
		c.done = make(chan struct{})
		delay := time.Duration(0)
		if c.rep != nil {
			delay = s.recheckDelay
		}
		go s.runCheck(delay, c.done)
	}
	return c.rep
}

// runCheck runs Inspect after delay, which lets a burst of changes (a git
// checkout, an extraction writing several memories) settle first.
func (s *Server) runCheck(delay time.Duration, done chan struct{}) {
	defer close(done)
	select {
	case <-time.After(delay):
	case <-s.closed:
	}
	gen := s.generation()
	_, code := s.e.CodeState()
	rep, err := s.e.Inspect()
	c := &s.checks_
	c.mu.Lock()
	c.running = false
	if err != nil {
		s.cfg.Log.Warn("ui: inspect failed", "err", err)
		c.mu.Unlock()
		return
	}
	c.rep, c.gen, c.code = rep, gen, code
	c.mu.Unlock()
	s.notifyChecked()
}

// waitChecks waits for the running check, if any; for tests.
func (s *Server) waitChecks() {
	s.checks_.mu.Lock()
	done := s.checks_.done
	s.checks_.mu.Unlock()
	if done != nil {
		<-done
	}
}

// issuesByPath groups a report's issues by file.
func issuesByPath(rep *engine.Report) map[string][]engine.Issue {
	out := map[string][]engine.Issue{}
	if rep == nil {
		return out
	}
	for _, is := range rep.Issues {
		out[is.Path] = append(out[is.Path], is)
	}
	return out
}

// redact masks every suspected secret in text (internal/secrets), keeping
// the first characters the scanner reveals. Display of legacy files that
// predate the write-time check goes through it. The result is cached by the
// text's digest: a page shows the same bodies on every view, and a body a
// stranger filled with the scanner's keywords costs a scan's whole budget.
func redact(text string) string {
	if len(text) < redactCacheMin {
		return redactText(text)
	}
	key := sha256.Sum256([]byte(text))
	redactCache.mu.Lock()
	out, ok := redactCache.m[key]
	redactCache.mu.Unlock()
	if ok {
		return out
	}
	out = redactText(text)
	redactCache.mu.Lock()
	if redactCache.m == nil || redactCache.bytes+len(out) > redactCacheBytes {
		redactCache.m, redactCache.bytes = map[[32]byte]string{}, 0
	}
	redactCache.m[key] = out
	redactCache.bytes += len(out)
	redactCache.mu.Unlock()
	return out
}

// The redaction cache holds results for texts of at least redactCacheMin
// bytes (a shorter one scans in microseconds), at most redactCacheBytes of
// them; when full it starts over.
const (
	redactCacheMin   = 256
	redactCacheBytes = 32 << 20
)

var redactCache struct {
	mu    sync.Mutex
	m     map[[32]byte]string
	bytes int
}

// hiddenText stands for a text whose suspected secret the mask cannot
// cover.
const hiddenText = "[hidden: this text holds a suspected secret]"

// redactText is redact without the cache. The text is masked as a write's
// check reads it, escapes and character references decoded, so a token
// that only Markdown spells out is masked too.
func redactText(text string) string {
	out, ok := engine.MaskSecrets(text)
	if !ok {
		return hiddenText
	}
	return out
}

var md = goldmark.New(goldmark.WithExtensions(extension.GFM))

// markdown renders a memory body: secrets masked first, raw HTML dropped
// and dangerous links removed (goldmark's defaults, not relaxed here).
// What it renders is scanned again: rendering turns escapes, character
// references and code spans into a token's characters, and a token that
// only the rendered page spells out hides the whole body (masking inside
// HTML could cut a tag).
func markdown(body string) template.HTML {
	var b bytes.Buffer
	if err := md.Convert([]byte(redact(body)), &b); err != nil {
		return template.HTML("<pre>" + template.HTMLEscapeString(redact(body)) + "</pre>")
	}
	if out, ok := engine.MaskSecrets(b.String()); !ok || out != b.String() {
		return template.HTML("<p>" + template.HTMLEscapeString(hiddenText) + "</p>")
	}
	return template.HTML(b.String())
}

var funcs = template.FuncMap{
	"redact": redact,
	// shown writes out what a browser would not show (a zero-width or
	// bidirectional character, a control) where a person decides on a
	// rule: the rules and trust pages.
	"shown":    engine.Visible,
	"markdown": markdown,
	"date": func(ms int64) string {
		if ms == 0 {
			return "—"
		}
		return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04")
	},
	"clock": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") },
	"f2":    func(x float64) string { return strconvF(x, 2) },
	"f3":    func(x float64) string { return strconvF(x, 3) },
	"runes": func(s string) int { return utf8.RuneCountInString(s) },
	"join":  strings.Join,
	"add":   func(a, b int) int { return a + b },
	"code":  codeSpans,
	// stale is the state inspect's stale warning gives a memory
	// ("changed", "gone"), or "".
	"stale":  staleState,
	"plural": plural,
	// written is a matched term as the memory writes it, not its stem.
	"written": render.AsWritten,
	// diffClass is how a line of engine.Diff is shown: added, removed or kept.
	"diffClass": func(l string) string {
		switch {
		case strings.HasPrefix(l, "+"):
			return "add"
		case strings.HasPrefix(l, "-"):
			return "del"
		}
		return "same"
	},
}

// codeSpans shows text that names commands in backticks (the engine's
// reasons, "`ocmem trust` puts it in force") with those as code: the text
// is escaped first, and only the backtick pairs become markup.
func codeSpans(text string) template.HTML {
	parts := strings.Split(template.HTMLEscapeString(redact(text)), "`")
	if len(parts)%2 == 0 { // an unpaired backtick: leave the text as it is
		return template.HTML(strings.Join(parts, "`"))
	}
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 {
			b.WriteString("<code>" + p + "</code>")
		} else {
			b.WriteString(p)
		}
	}
	return template.HTML(b.String())
}

func strconvF(x float64, prec int) string { return strconv.FormatFloat(x, 'f', prec, 64) }

// staleState is the state of a memory's stale warning among its issues:
// the message's first word ("gone: …", "changed: …"); "" without one.
func staleState(issues []engine.Issue) string {
	for _, is := range issues {
		if is.Check == "stale" {
			state, _, _ := strings.Cut(is.Message, ":")
			return state
		}
	}
	return ""
}
