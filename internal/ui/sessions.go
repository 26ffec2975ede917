package ui

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The sessions pages read serve's log (JSON lines, one object per event,
// as log/slog's JSON handler writes them): every event that names a
// session, grouped by session, in time order, and shown as what happened
// turn by turn: the person's message, what memory gave the model and why,
// what it left out and why, the model's memory tool calls with what they
// returned, and what extraction did afterwards.

// event is one log line about a session.
type event struct {
	Time    time.Time
	Level   string
	Msg     string
	Session string
	Fields  map[string]any
}

// sessionInfo is a session with its events.
type sessionInfo struct {
	ID                             string
	Title                          string // OpenCode's title, from extraction's reading of the session
	FirstText                      string // the start of the person's first message
	First, Last                    time.Time
	Turns, Tools, Extractions, Err int
	Events                         []event
	// Given counts, per memory ("scope:id"), the turns its body was given in.
	Given map[string]int
}

type journal struct {
	sessions []*sessionInfo // most recent first
	byID     map[string]*sessionInfo
}

type journalCache struct {
	mu  sync.Mutex
	sig string
	j   *journal
}

// maxLogRead bounds what is read of one log file (serve rotates at 8 MiB).
const maxLogRead = 32 << 20

// logPaths are the log and its rotated predecessor, oldest first.
func (s *Server) logPaths() []string {
	if s.cfg.LogPath == "" {
		return nil
	}
	return []string{s.cfg.LogPath + ".1", s.cfg.LogPath}
}

// logSignature names the log files' state: it changes when serve writes.
func (s *Server) logSignature() string {
	var sig strings.Builder
	for _, p := range s.logPaths() {
		if st, err := os.Stat(p); err == nil {
			fmt.Fprintf(&sig, "%s\x00%d\x00%d\n", p, st.Size(), st.ModTime().UnixNano())
		}
	}
	return sig.String()
}

// readJournal parses the log, once per change of its files.
func (s *Server) readJournal() (*journal, error) {
	sig := s.logSignature()
	c := &s.journal
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.j != nil && c.sig == sig {
		return c.j, nil
	}
	j := &journal{byID: map[string]*sessionInfo{}}
	for _, p := range s.logPaths() {
		data, err := readHead(p, maxLogRead)
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return nil, err
		}
		parseLog(data, j)
	}
	for _, si := range j.sessions {
		sort.SliceStable(si.Events, func(a, b int) bool { return si.Events[a].Time.Before(si.Events[b].Time) })
		summarize(si)
	}
	sort.SliceStable(j.sessions, func(a, b int) bool { return j.sessions[a].Last.After(j.sessions[b].Last) })
	c.j, c.sig = j, sig
	return j, nil
}

func readHead(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	_, err = b.ReadFrom(io.LimitReader(f, n))
	return b.Bytes(), err
}

// parseLog adds the session events of a log to j. Lines that are not JSON
// objects, or name no session, are skipped.
func parseLog(data []byte, j *journal) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var fields map[string]any
		if json.Unmarshal(line, &fields) != nil {
			continue
		}
		id, _ := fields["session"].(string)
		if id == "" {
			continue
		}
		ev := event{Session: id, Fields: fields}
		ev.Msg, _ = fields["msg"].(string)
		ev.Level, _ = fields["level"].(string)
		if t, ok := fields["time"].(string); ok {
			ev.Time, _ = time.Parse(time.RFC3339Nano, t)
		}
		for _, k := range []string{"time", "level", "msg", "session"} {
			delete(fields, k)
		}
		si := j.byID[id]
		if si == nil {
			si = &sessionInfo{ID: id, First: ev.Time, Given: map[string]int{}}
			j.byID[id] = si
			j.sessions = append(j.sessions, si)
		}
		if ev.Time.Before(si.First) {
			si.First = ev.Time
		}
		if ev.Time.After(si.Last) {
			si.Last = ev.Time
		}
		si.Events = append(si.Events, ev)
	}
}

// summarize counts a session's turns, tool calls, extractions and
// warnings, and finds its title, first message and the memories it was
// given; its events are in time order.
func summarize(si *sessionInfo) {
	for _, ev := range si.Events {
		switch kindOf(ev) {
		case "turn":
			si.Turns++
			if si.FirstText == "" {
				si.FirstText = str(ev.Fields, "text")
			}
			for _, h := range turnHits(ev.Fields) {
				if h.Given {
					si.Given[h.Key]++
				}
			}
		case "tool":
			si.Tools++
		case "extraction":
			if ev.Msg == "extraction done" {
				si.Extractions++
			}
		}
		if ev.Msg == "session title" {
			si.Title = str(ev.Fields, "title")
		}
		if ev.Level == "WARN" || ev.Level == "ERROR" {
			si.Err++
		}
	}
}

// kindOf classifies a log event for the timeline. Serve names the tool of
// each tool call ("tool"); older logs did not, and are told by message.
func kindOf(ev event) string {
	msg := ev.Msg
	switch _, tool := ev.Fields["tool"]; {
	case msg == "bodies injected":
		return "turn"
	case msg == "system injected":
		return "system"
	case tool, msg == "recall", msg == "remembered", msg == "remember refused", msg == "forgot", msg == "forget refused":
		return "tool"
	case strings.HasPrefix(msg, "extraction"):
		return "extraction"
	}
	return "other"
}

// hitScore is one ranked memory of a turn.
type hitScore struct {
	Key   string
	Score string
	Given bool
	// Words are the matched words as the memory writes them (logs before
	// they were recorded have none).
	Words []string
	// Status says what became of it: given, or why not.
	Status string
}

// Scope and ID split the key for a link to the memory.
func (h hitScore) Scope() string { s, _, _ := strings.Cut(h.Key, ":"); return s }
func (h hitScore) ID() string    { _, id, _ := strings.Cut(h.Key, ":"); return id }

// turnView is one turn of a session: the person's message and what memory
// did with it, then what happened until the next message.
type turnView struct {
	N         int
	Time      time.Time
	Text      string // the start of the person's message, masked; "" in older logs
	MessageID string
	Hits      []hitScore
	// Outcome says in a sentence what was added to the message.
	Outcome string
	// Requests counts the model requests of the turn that got the system
	// prompt (hard rules and outline); System says what it held.
	Requests int
	System   string
	Entries  []entry
}

// entry is one thing that happened in a session besides a message.
type entry struct {
	Time  time.Time
	Kind  string // tool, extraction, other
	Title string // what happened, in a sentence
	Link  string // a memory or page it concerns, or ""
	Level string
	// Fields are the event's fields, folded under the sentence.
	Fields []field
}

// field is one name and value of a log event; a long value (a prompt, a
// reply) is shown folded.
type field struct {
	Name, Value string
	Long        bool
}

// timeline is a session as the page shows it: what came before the first
// message, then each turn.
type timeline struct {
	Before []entry
	Turns  []turnView
}

// buildTimeline groups a session's events by turn. Lines that repeat on
// every request or idle are folded: the system prompt is counted per turn,
// and the extraction transport is shown when it changes.
func buildTimeline(si *sessionInfo) timeline {
	var tl timeline
	var cur *turnView
	transport := ""
	add := func(e entry) {
		if cur == nil {
			tl.Before = append(tl.Before, e)
			return
		}
		cur.Entries = append(cur.Entries, e)
	}
	for _, ev := range si.Events {
		switch kind := kindOf(ev); {
		case kind == "turn":
			tl.Turns = append(tl.Turns, newTurn(len(tl.Turns)+1, ev))
			cur = &tl.Turns[len(tl.Turns)-1]
		case kind == "system":
			if cur != nil {
				cur.Requests++
				cur.System = fmt.Sprintf("hard rules %s characters, outline %s characters", num(ev.Fields, "rules_chars"), num(ev.Fields, "outline_chars"))
			}
		case ev.Msg == "session title":
		case strings.HasPrefix(ev.Msg, "extraction transport"):
			if t := ev.Msg + " " + str(ev.Fields, "url"); t != transport {
				transport = t
				add(describe(ev))
			}
		default:
			add(describe(ev))
		}
	}
	return tl
}

// newTurn reads a "bodies injected" event.
func newTurn(n int, ev event) turnView {
	t := turnView{N: n, Time: ev.Time, Text: redact(str(ev.Fields, "text")), MessageID: str(ev.Fields, "message")}
	repeated := strings.Split(str(ev.Fields, "repeated"), ",")
	given := 0
	for _, h := range turnHits(ev.Fields) {
		switch {
		case h.Given:
			h.Status = "body given"
			given++
		case slices.Contains(repeated, h.Key):
			h.Status = "not repeated: given earlier in this session"
		default:
			h.Status = "not given: beyond the entry or character budget, or in the rules tier"
		}
		t.Hits = append(t.Hits, h)
	}
	quiet := redact(str(ev.Fields, "quiet"))
	switch {
	case given > 0:
		t.Outcome = fmt.Sprintf("%s added to the message (%s characters).", plural(given, "memory body", "memory bodies"), num(ev.Fields, "chars"))
	case len(t.Hits) > 0:
		t.Outcome = "Nothing was added to the message: every memory that matched was left out, as listed."
	case quiet != "":
		t.Outcome = "Nothing was added to the message: " + quiet + "."
	default:
		t.Outcome = "Nothing was added to the message: no memory matched it."
	}
	return t
}

// describe turns an event other than a turn into a sentence.
func describe(ev event) entry {
	e := entry{Time: ev.Time, Kind: kindOf(ev), Level: ev.Level, Title: ev.Msg}
	f := ev.Fields
	switch e.Kind {
	case "tool":
		describeTool(&e, ev)
	case "extraction":
		describeExtraction(&e, ev)
	default:
		if strings.HasPrefix(ev.Msg, "session compacted") {
			e.Title = "OpenCode compacted the conversation: memories may be given again (" + num(f, "forgotten") + " were given before)."
		}
	}
	e.Title = redact(e.Title)
	e.Fields = fieldsOf(f)
	return e
}

func describeTool(e *entry, ev event) {
	f := ev.Fields
	switch ev.Msg {
	case "recall":
		res := str(f, "results")
		if res == "" {
			res = "nothing"
		}
		e.Title = fmt.Sprintf("The model called memory_recall %q: it returned %s.", str(f, "query"), strings.ReplaceAll(res, ",", ", "))
	case "remembered":
		e.Title = fmt.Sprintf("The model called memory_remember: it wrote %s:%s (%s).", str(f, "scope"), str(f, "id"), str(f, "kind"))
		e.Link = memoryLink(str(f, "scope"), str(f, "id"))
		if str(f, "kind") == "rule-proposal" {
			e.Title += " The rule waits for you on the Rules page."
		}
	case "remember refused":
		e.Title = "The model called memory_remember: refused, " + str(f, "err") + "."
	case "forgot":
		e.Title = fmt.Sprintf("The model called memory_forget: it deleted %s:%s.", str(f, "scope"), str(f, "id"))
	case "forget refused":
		e.Title = fmt.Sprintf("The model called memory_forget %q: refused, %s.", str(f, "id"), str(f, "err"))
	case "inspect":
		e.Title = "The model called memory_inspect: " + plural(int(numf(f, "issues")), "problem", "problems") + " found."
	case "tool called":
		e.Title = "The model used OpenCode's " + str(f, "tool") + " tool."
	case "tool stopped":
		e.Title = fmt.Sprintf("ocmem stopped the model's %s call %q: it breaks the hard rule %s (%s %q).", str(f, "tool"), str(f, "subject"), str(f, "rule"), str(f, "action"), str(f, "pattern"))
		e.Link = memoryLink(str(f, "scope"), str(f, "rule"))
	}
}

func describeExtraction(e *entry, ev event) {
	f := ev.Fields
	switch ev.Msg {
	case "extraction transport: http":
		e.Title = "Extraction reaches OpenCode's server over HTTP (" + str(f, "url") + ")."
	case "extraction transport: plugin":
		e.Title = "Extraction reaches OpenCode through the plugin's connection."
	case "extraction skipped":
		e.Title = "Extraction did not run: " + str(f, "reason") + "."
	case "extraction model":
		e.Title = "Extraction chose the model " + str(f, "model") + ": " + str(f, "why") + "."
	case "extraction request":
		e.Title = fmt.Sprintf("Extraction asked %s about %s user turns.", str(f, "model"), num(f, "turns"))
	case "extraction reply":
		e.Title = fmt.Sprintf("%s answered in %s ms.", str(f, "model"), num(f, "ms"))
	case "extraction remembered":
		e.Title = fmt.Sprintf("Extraction wrote %s:%s: %s", str(f, "scope"), str(f, "id"), str(f, "summary"))
		e.Link = memoryLink(str(f, "scope"), str(f, "id"))
	case "extraction candidate skipped":
		e.Title = fmt.Sprintf("Extraction left out %q (%s): %s.", str(f, "summary"), str(f, "action"), str(f, "reason"))
	case "extraction candidate refused", "extraction candidate dropped":
		e.Title = fmt.Sprintf("Extraction refused %q: %s.", str(f, "summary"), str(f, "reason"))
	case "extraction done":
		e.Title = fmt.Sprintf("Extraction done with %s: %s, %s written, %s, %s refused, %s invalid (%s ms).",
			str(f, "model"), plural(int(numf(f, "candidates")), "candidate", "candidates"), num(f, "written"),
			plural(int(numf(f, "duplicates")), "duplicate", "duplicates"), num(f, "refused"), num(f, "invalid"), num(f, "ms"))
	case "extraction failed":
		e.Title = "Extraction failed at " + str(f, "stage") + ": " + str(f, "err") + "."
	}
}

// fieldsOf is an event's fields, sorted by name and masked.
func fieldsOf(f map[string]any) []field {
	out := make([]field, 0, len(f))
	for k, v := range f {
		val := redact(shorten(valueString(v), 4000))
		out = append(out, field{k, val, len(val) > 200 || strings.Count(val, "\n") > 3})
	}
	slices.SortFunc(out, func(a, b field) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func memoryLink(scope, id string) string {
	if scope == "" || id == "" {
		return ""
	}
	return "/memory?" + url.Values{"scope": {scope}, "id": {id}}.Encode()
}

func str(f map[string]any, k string) string { s, _ := f[k].(string); return s }

func numf(f map[string]any, k string) float64 { x, _ := f[k].(float64); return x }

// num is a number field as written in the log; "?" when missing.
func num(f map[string]any, k string) string {
	switch x := f[k].(type) {
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		return x
	}
	return "?"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func (s *Server) sessions(w http.ResponseWriter, r *http.Request) {
	j, err := s.readJournal()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	d := struct {
		LogPath  string
		Sessions []*sessionInfo
	}{s.cfg.LogPath, j.sessions}
	s.render(w, r, http.StatusOK, "sessions", "Sessions", d)
}

func (s *Server) session(w http.ResponseWriter, r *http.Request) {
	j, err := s.readJournal()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	id := r.URL.Query().Get("id")
	si := j.byID[id]
	if si == nil {
		s.fail(w, r, http.StatusNotFound, fmt.Errorf("no session %q in the log (%s); it may be older than the log keeps", id, s.cfg.LogPath))
		return
	}
	d := struct {
		Info *sessionInfo
		timeline
	}{si, buildTimeline(si)}
	title := "Session " + id
	if si.Title != "" {
		title = si.Title
	}
	s.render(w, r, http.StatusOK, "session", title, d)
}

// givenIn lists the sessions a memory's body was given in, most recent
// first, as far back as the log goes.
type givenIn struct {
	ID, Title string
	Last      time.Time
	Times     int
}

func (s *Server) givenIn(key string) []givenIn {
	j, err := s.readJournal()
	if err != nil {
		return nil
	}
	var out []givenIn
	for _, si := range j.sessions {
		if n := si.Given[key]; n > 0 {
			out = append(out, givenIn{si.ID, si.Title, si.Last, n})
		}
	}
	return out
}

// turnHits reads the ranked memories of a turn: the structured "injected"
// list where serve wrote one, else the older "hits" string
// ("scope:id=0.123,…") with "given".
func turnHits(f map[string]any) []hitScore {
	var out []hitScore
	if list, ok := f["injected"].([]any); ok {
		for _, x := range list {
			m, _ := x.(map[string]any)
			key, _ := m["key"].(string)
			score, _ := m["score"].(float64)
			given, _ := m["given"].(bool)
			h := hitScore{Key: key, Score: strconv.FormatFloat(score, 'f', 3, 64), Given: given}
			if ws, ok := m["words"].([]any); ok {
				for _, w := range ws {
					if w, ok := w.(string); ok {
						h.Words = append(h.Words, redact(w))
					}
				}
			}
			out = append(out, h)
		}
		return out
	}
	given := map[string]bool{}
	if g, ok := f["given"].(string); ok {
		for _, k := range strings.Split(g, ",") {
			given[k] = true
		}
	}
	if h, ok := f["hits"].(string); ok && h != "" {
		for _, kv := range strings.Split(h, ",") {
			k, v, _ := strings.Cut(kv, "=")
			out = append(out, hitScore{Key: k, Score: v, Given: given[k]})
		}
	}
	return out
}

func valueString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d more bytes)", len(s)-cut)
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
