package ui

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
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
// session, grouped by session, in time order.

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
	First, Last                    time.Time
	Turns, Tools, Extractions, Err int
	Events                         []event
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

// readJournal parses the log, once per change of its files.
func (s *Server) readJournal() (*journal, error) {
	paths := []string{}
	if s.cfg.LogPath != "" {
		paths = []string{s.cfg.LogPath + ".1", s.cfg.LogPath}
	}
	var sig strings.Builder
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil {
			fmt.Fprintf(&sig, "%s\x00%d\x00%d\n", p, st.Size(), st.ModTime().UnixNano())
		}
	}
	c := &s.journal
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.j != nil && c.sig == sig.String() {
		return c.j, nil
	}
	j := &journal{byID: map[string]*sessionInfo{}}
	for _, p := range paths {
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
	}
	sort.SliceStable(j.sessions, func(a, b int) bool { return j.sessions[a].Last.After(j.sessions[b].Last) })
	c.j, c.sig = j, sig.String()
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
			si = &sessionInfo{ID: id, First: ev.Time}
			j.byID[id] = si
			j.sessions = append(j.sessions, si)
		}
		if ev.Time.Before(si.First) {
			si.First = ev.Time
		}
		if ev.Time.After(si.Last) {
			si.Last = ev.Time
		}
		switch kindOf(ev) {
		case "turn":
			si.Turns++
		case "tool":
			si.Tools++
		case "extraction":
			if ev.Msg == "extraction done" {
				si.Extractions++
			}
		}
		if ev.Level == "WARN" || ev.Level == "ERROR" {
			si.Err++
		}
		si.Events = append(si.Events, ev)
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
}

// item is one event as the timeline shows it.
type item struct {
	Time   time.Time
	Kind   string
	Title  string
	Turn   int
	Level  string
	Hits   []hitScore
	Fields []field // the other fields, sorted by name, masked
}

// field is one name and value of a log event; a long value (a prompt, a
// reply) is shown folded.
type field struct {
	Name, Value string
	Long        bool
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
		s.fail(w, r, http.StatusNotFound, fmt.Errorf("no session %q in the log", id))
		return
	}
	d := struct {
		Info  *sessionInfo
		Items []item
	}{Info: si}
	turn := 0
	for _, ev := range si.Events {
		it := item{Time: ev.Time, Kind: kindOf(ev), Title: ev.Msg, Level: ev.Level}
		skip := map[string]bool{}
		if it.Kind == "turn" {
			turn++
			it.Turn = turn
			it.Hits = turnHits(ev.Fields)
			skip["hits"], skip["injected"] = true, true
		}
		for k, v := range ev.Fields {
			if skip[k] {
				continue
			}
			val := redact(shorten(valueString(v), 4000))
			it.Fields = append(it.Fields, field{k, val, len(val) > 200 || strings.Count(val, "\n") > 3})
		}
		slices.SortFunc(it.Fields, func(a, b field) int { return strings.Compare(a.Name, b.Name) })
		d.Items = append(d.Items, it)
	}
	s.render(w, r, http.StatusOK, "session", "Session "+id, d)
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
			out = append(out, hitScore{Key: key, Score: strconv.FormatFloat(score, 'f', 3, 64), Given: given})
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
