package ui

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/pathsafe"
)

// page is what every template gets.
type page struct {
	Title string
	Nav   string
	CSRF  string
	Done  string // the result of the last action, from ?done=
	Data  any
}

// parsePages builds one template set per page: the layout plus the page's
// "content".
func parsePages() (map[string]*template.Template, error) {
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(assets, "assets/layout.html")
	if err != nil {
		return nil, err
	}
	out := map[string]*template.Template{}
	for _, name := range []string{"memories", "memory", "search", "sessions", "session", "rules", "trust", "forget", "error"} {
		t, err := base.Clone()
		if err != nil {
			return nil, err
		}
		if t, err = t.ParseFS(assets, "assets/"+name+".html"); err != nil {
			return nil, err
		}
		out[name] = t
	}
	return out, nil
}

func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, name, title string, data any) {
	p := page{Title: title, Nav: name, CSRF: s.csrf, Done: r.URL.Query().Get("done"), Data: data}
	var b bytes.Buffer
	if err := s.pages[name].ExecuteTemplate(&b, "layout.html", p); err != nil {
		s.cfg.Log.Error("ui: render", "page", name, "err", err)
		http.Error(w, "internal error rendering the page", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

// errorData is what the error page shows: a heading that says what kind
// of failure it is, and the message, masked like any other text.
type errorData struct {
	Heading, Message string
}

// fail shows an error page.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, status int, err error) {
	heading := "Something went wrong"
	switch status {
	case http.StatusNotFound:
		heading = "Not found"
	case http.StatusBadRequest:
		heading = "Bad request"
	case http.StatusConflict:
		heading = "Not possible"
	case http.StatusForbidden, http.StatusUnauthorized:
		heading = "Refused"
	case http.StatusUnprocessableEntity:
		heading = "The memory file does not load"
	}
	s.render(w, r, status, "error", heading, errorData{heading, redact(err.Error())})
}

// errStatus maps an engine error to an HTTP status.
func errStatus(err error) int {
	var pe *pathsafe.Error
	switch {
	case errors.As(err, &pe), errors.Is(err, pathsafe.ErrOutside), errors.Is(err, engine.ErrBadRequest),
		errors.Is(err, engine.ErrAmbiguous):
		return http.StatusBadRequest
	case errors.Is(err, engine.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, engine.ErrNotProposal):
		return http.StatusConflict
	}
	return http.StatusInternalServerError
}

// memoryRef reads and checks the scope and id of a request: the id must be
// a path inside a root, as everywhere else.
func memoryRef(v url.Values, scopeRequired bool) (engine.Scope, string, error) {
	var sc engine.Scope
	if raw := v.Get("scope"); raw != "" || scopeRequired {
		var err error
		if sc, err = engine.ParseScope(raw); err != nil {
			return "", "", fmt.Errorf("%w: %v", engine.ErrBadRequest, err)
		}
	}
	id := v.Get("id")
	if err := pathsafe.Check(strings.TrimSuffix(id, ".md") + ".md"); err != nil {
		return "", "", err
	}
	if strings.Count(id, "/") != 1 {
		return "", "", fmt.Errorf("%w: id %q is not category/slug", engine.ErrBadRequest, id)
	}
	return sc, strings.TrimSuffix(id, ".md"), nil
}

// listRow is a row of the memory list with its problems.
type listRow struct {
	row
	Issues []engine.Issue
}

type listData struct {
	F                 filter
	Rows              []listRow
	Total, Matched    int
	Page, Pages       int
	Prev, Next        string
	Kinds, Categories []string
	Orphans           []engine.Issue // problems of files that are not in the list (they did not load)
	Checked           bool
}

func (s *Server) memories(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := filter{Scope: q.Get("scope"), Kind: q.Get("kind"), Category: q.Get("category"), Text: q.Get("q"), Stale: q.Get("stale") == "1"}
	f.Page, _ = strconv.Atoi(q.Get("page"))
	v, err := s.currentView()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	idx := v.filter(f)
	rep := s.checks()
	issues := issuesByPath(rep)
	if f.Stale {
		idx = slices.DeleteFunc(idx, func(i int) bool { return staleState(issues[v.rows[i].Path]) == "" })
	}
	size := s.cfg.PageSize
	d := listData{F: f, Total: len(v.rows), Matched: len(idx), Kinds: v.kinds, Categories: v.categories}
	d.Pages = max(1, (len(idx)+size-1)/size)
	d.Page = min(max(f.Page, 1), d.Pages)
	d.Checked = rep != nil
	for _, i := range idx[(d.Page-1)*size : min(d.Page*size, len(idx))] {
		d.Rows = append(d.Rows, listRow{v.rows[i], issues[v.rows[i].Path]})
	}
	if rep != nil {
		known := make(map[string]bool, len(v.rows))
		for i := range v.rows {
			known[v.rows[i].Path] = true
		}
		for _, is := range rep.Issues {
			if !known[is.Path] && len(d.Orphans) < 100 {
				d.Orphans = append(d.Orphans, is)
			}
		}
	}
	link := func(p int) string {
		u := url.Values{}
		for k, val := range map[string]string{"scope": f.Scope, "kind": f.Kind, "category": f.Category, "q": f.Text} {
			if val != "" {
				u.Set(k, val)
			}
		}
		if f.Stale {
			u.Set("stale", "1")
		}
		u.Set("page", strconv.Itoa(p))
		return "/memories?" + u.Encode()
	}
	if d.Page > 1 {
		d.Prev = link(d.Page - 1)
	}
	if d.Page < d.Pages {
		d.Next = link(d.Page + 1)
	}
	s.render(w, r, http.StatusOK, "memories", "Memories", d)
}

type chainLink struct {
	Scope   engine.Scope
	ID      string
	Summary string
	Here    bool
	Missing bool
}

type memoryData struct {
	row
	Highlight  string
	LoadWhen   []string
	ProposedBy string
	Body       string
	Chain      []chainLink
	Issues     []engine.Issue
	Checked    bool
	// Rule is, for a rule or a rule proposal, its entry on the rules
	// page: whether it is in force, and Accept / Reject when it waits.
	Rule *ruleView
	// Given are the sessions of the log its body was given in, and how
	// often; GivenTimes is the sum. LogPath is "" without a log.
	Given      []givenIn
	GivenTimes int
	LogPath    string
}

func (s *Server) memory(w http.ResponseWriter, r *http.Request) {
	sc, id, err := memoryRef(r.URL.Query(), true)
	if err != nil {
		s.fail(w, r, errStatus(err), err)
		return
	}
	v, err := s.currentView()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	f := v.snap.Lookup(sc, id)
	if f == nil {
		if err := notLoaded(v.snap, sc, id); err != nil {
			s.fail(w, r, http.StatusUnprocessableEntity, err)
			return
		}
		s.fail(w, r, http.StatusNotFound, fmt.Errorf("there is no memory %s:%s: it may have been forgotten, renamed or superseded (the memory list shows what there is)", sc, id))
		return
	}
	var d memoryData
	for i := range v.rows {
		if v.rows[i].Scope == sc && v.rows[i].ID == id {
			d.row = v.rows[i]
		}
	}
	m := f.Memory
	d.Highlight, d.LoadWhen, d.ProposedBy, d.Body = m.Highlight, m.LoadWhen, m.ProposedBy, m.Body
	d.Chain = chain(v, sc, m)
	rep := s.checks()
	d.Checked = rep != nil
	d.Issues = issuesByPath(rep)[f.Path]
	if m.Kind == engine.KindRule || m.Kind == engine.KindRuleProposal {
		if re := s.ruleOf(sc, id); re != nil {
			rv := s.viewRule(*re)
			d.Rule = &rv
		}
	}
	d.LogPath = s.cfg.LogPath
	d.Given = s.givenIn(string(sc) + ":" + id)
	for _, g := range d.Given {
		d.GivenTimes += g.Times
	}
	s.render(w, r, http.StatusOK, "memory", id, d)
}

// chain is the supersede chain through m, oldest first: what it replaced,
// and what replaced it, within its root.
func chain(v *view, sc engine.Scope, m *engine.Memory) []chainLink {
	get := func(id string) *engine.Memory {
		if f := v.snap.Lookup(sc, id); f != nil {
			return f.Memory
		}
		return nil
	}
	here := chainLink{Scope: sc, ID: m.ID, Summary: m.Summary, Here: true}
	out := []chainLink{here}
	seen := map[string]bool{m.ID: true}
	for prev := m.Supersedes; prev != "" && !seen[prev]; {
		seen[prev] = true
		pm := get(prev)
		if pm == nil {
			out = append([]chainLink{{Scope: sc, ID: prev, Missing: true}}, out...)
			break
		}
		out = append([]chainLink{{Scope: sc, ID: prev, Summary: pm.Summary}}, out...)
		prev = pm.Supersedes
	}
	for next := m.SupersededBy; next != "" && !seen[next]; {
		seen[next] = true
		nm := get(next)
		if nm == nil {
			out = append(out, chainLink{Scope: sc, ID: next, Missing: true})
			break
		}
		out = append(out, chainLink{Scope: sc, ID: next, Summary: nm.Summary})
		next = nm.SupersededBy
	}
	if len(out) == 1 {
		return nil
	}
	return out
}

type tier struct {
	Name, Where, Text string
	Budget            int // 0: none
}

type injectHit struct {
	engine.Hit
	Status string
}

type searchData struct {
	Q           string
	Tiers       []tier
	MaxEntries  int
	InjectHits  []injectHit
	RecallHits  []engine.Hit
	RecallLimit int
	Quiet       string // why injection gives nothing, when it does not
	// Confirm says, when the project's ROOT.md hard rules are not in
	// force, how the person confirms them (as `ocmem inject` says it).
	Confirm string
}

// search shows what `ocmem inject` and `ocmem recall` give for a message:
// the same engine calls, counting nothing (a preview changes no state).
func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	d := searchData{Q: r.URL.Query().Get("q"), RecallLimit: 10}
	o := s.e.Options()
	d.MaxEntries = o.MaxInjectEntriesOrDefault()
	if strings.TrimSpace(d.Q) != "" {
		inj, err := s.e.Inject(d.Q, engine.InjectOptions{})
		if err != nil {
			s.fail(w, r, http.StatusInternalServerError, err)
			return
		}
		d.Tiers = []tier{
			{"Hard rules", "system prompt, every turn", inj.Rules, 0},
			{"Outline", "system prompt, every turn", inj.Outline, o.MaxOutlineCharsOrDefault()},
			{"Bodies", "this user message", inj.Bodies, o.MaxInjectCharsOrDefault()},
		}
		d.Quiet = inj.Quiet
		if root, err := s.e.InjectedRootMD(); err == nil && root != nil && !root.InForce {
			d.Confirm = engine.ConfirmRootMD
		}
		for _, h := range inj.Hits {
			st := "not given (beyond the entry or character budget, or in the rules tier)"
			switch {
			case slices.Contains(inj.Given, h.Key()):
				st = "body given"
			case slices.Contains(inj.Repeated, h.Key()):
				st = "already given in this session"
			}
			d.InjectHits = append(d.InjectHits, injectHit{h, st})
		}
		if d.RecallHits, err = s.e.Recall(d.Q, engine.RecallOptions{Limit: d.RecallLimit}); err != nil {
			s.fail(w, r, http.StatusInternalServerError, err)
			return
		}
	}
	s.render(w, r, http.StatusOK, "search", "Search", d)
}

type forgetData struct {
	Scope   engine.Scope
	ID      string
	Summary string
	Path    string
}

// forgetConfirm asks before a memory is deleted; it changes nothing.
func (s *Server) forgetConfirm(w http.ResponseWriter, r *http.Request) {
	sc, id, err := memoryRef(r.URL.Query(), true)
	if err != nil {
		s.fail(w, r, errStatus(err), err)
		return
	}
	snap, err := s.e.Load()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	f := snap.Lookup(sc, id)
	if f == nil {
		s.fail(w, r, http.StatusNotFound, fmt.Errorf("there is no memory %s:%s to forget", sc, id))
		return
	}
	s.render(w, r, http.StatusOK, "forget", "Forget "+id, forgetData{sc, id, f.Memory.Summary, f.Path})
}

// forget calls the engine function `ocmem forget` calls, once confirmed.
func (s *Server) forget(w http.ResponseWriter, r *http.Request) {
	sc, id, err := memoryRef(r.PostForm, true)
	if err != nil {
		s.fail(w, r, errStatus(err), err)
		return
	}
	if r.PostForm.Get("confirm") != "yes" {
		s.fail(w, r, http.StatusBadRequest, errors.New("forgetting needs the confirmation (confirm=yes)"))
		return
	}
	wr, err := s.e.Forget(sc, id, engine.FromPerson)
	if err != nil {
		s.fail(w, r, errStatus(err), err)
		return
	}
	s.notify()
	done := fmt.Sprintf("forgot %s:%s", wr.Scope, wr.ID)
	for _, id := range wr.Restored {
		done += fmt.Sprintf("; restored %s:%s", wr.Scope, id)
	}
	http.Redirect(w, r, "/memories?done="+url.QueryEscape(done), http.StatusSeeOther)
}

// notLoaded says why the file of memory sc:id does not load, or nil when
// it is not one that does not load: a page for a memory whose file a hand
// edit broke names the file and its error, since the memory is there, to
// be fixed, not gone.
func notLoaded(snap *engine.Snapshot, sc engine.Scope, id string) error {
	for _, p := range snap.Problems {
		if p.Scope == sc && strings.TrimSuffix(filepath.ToSlash(p.Rel), ".md") == id {
			where := p.Path
			if p.Line > 0 {
				where += ":" + strconv.Itoa(p.Line)
			}
			return fmt.Errorf("the file of memory %s:%s does not load, so it is left out of injection and recall until it is fixed by hand (`ocmem inspect` lists every such file): %s: %s", sc, id, where, strings.Join(strings.Fields(p.Reason()), " "))
		}
	}
	return nil
}
