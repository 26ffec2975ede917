package extract

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/opencode"
	"github.com/ocmem/ocmem/internal/sessionlog"
)

// The idle re-check (SPEC §10): after an extraction, the memories given in
// the session (and the hard rules in force, given on every turn) whose
// anchored code changed or went since they were verified are shown to the
// same cheap model, each with the current text of its anchored files, one
// call each and at most MaxRecheck per run. All of it happens in the
// worktree the session runs in (Request.CodeDir), which for a linked
// worktree on another branch is not the engine's own: its states, its
// file text, its HEAD. The model answers one of:
//
//   - still true: the memory's reference point moves to the worktree's
//     HEAD (engine.VerifyIn);
//   - updated: a new memory with the corrected text supersedes it
//     (engine.Remember from extraction: a hard rule's update becomes a
//     rule proposal, and the rule stays in force until a person accepts it);
//   - no longer true: the memory is marked outdated (engine.MarkOutdated):
//     kept for history, out of injection, last in recall, listed for the
//     person by `ocmem stale` and inspect until they verify, edit or
//     forget it. A hard rule is not marked: only people take a rule out
//     of force, so it stays in force and listed as stale.
//
// Nothing is deleted, and a memory is asked about once per state of its
// code in a process. The prompt and the answer are logged as extraction's
// are.

// MaxRecheck bounds the memories one run re-checks.
const MaxRecheck = 3

// The answers of a re-check, as Rechecked.Action says them.
const (
	RecheckVerified   = "verified"       // still true: verified at HEAD
	RecheckSuperseded = "superseded"     // an updated memory supersedes it
	RecheckNoLonger   = "no-longer-true" // marked outdated; a rule left in force, for the person
	RecheckKept       = "kept"           // no usable answer, or the write was refused
)

// Rechecked is what became of one stale memory.
type Rechecked struct {
	Scope   engine.Scope
	ID      string
	State   string // "changed" or "gone"
	Action  string
	Why     string
	Written *engine.Written // the superseding memory, for RecheckSuperseded
}

// givenFrame finds the memories the bodies tier gave in a message.
var givenFrame = regexp.MustCompile(`<memory id="([^"]+)" scope="(project|global)"`)

// usedIn lists the memories the session was given, as "scope:id": those
// its log of given bodies holds (internal/sessionlog, kept by serve) and
// those framed in msgs.
func usedIn(session string, msgs []opencode.Message) map[string]bool {
	used := map[string]bool{}
	if l, err := sessionlog.Open(session); err == nil {
		for _, k := range l.Given() {
			used[k] = true
		}
	}
	for _, m := range msgs {
		for _, p := range m.Parts {
			for _, g := range givenFrame.FindAllStringSubmatch(p.Text, -1) {
				used[g[2]+":"+g[1]] = true
			}
		}
	}
	return used
}

const recheckSystem = `You check whether a stored note about a code base is still true, now that the code it is about has changed.
You get the note (summary and body), what changed in its code since it was last known true, and the current text of that code.
Answer with one JSON object and nothing else:
{"verdict": "still_true"} when the note is still accurate as written;
{"verdict": "updated", "summary": "...", "body": "..."} when it is partly out of date: a corrected summary (one sentence) and body, in the note's own language and style;
{"verdict": "no_longer_true", "reason": "..."} when it is wrong now and no corrected version can be written from this code.
Judge only from the code shown. When unsure, answer no_longer_true.`

// recheckReply is the model's answer.
type recheckReply struct {
	Verdict string `json:"verdict"`
	Summary string `json:"summary"`
	Body    string `json:"body"`
	Reason  string `json:"reason"`
}

func parseRecheck(text string) (recheckReply, error) {
	text = stripReasoning(text)
	start, end := strings.Index(text, "{"), strings.LastIndex(text, "}")
	if start < 0 || end < start {
		return recheckReply{}, fmt.Errorf("no JSON object in the reply")
	}
	var r recheckReply
	if err := json.Unmarshal([]byte(text[start:end+1]), &r); err != nil {
		return recheckReply{}, err
	}
	switch r.Verdict {
	case "still_true", "no_longer_true":
	case "updated":
		if strings.TrimSpace(r.Summary) == "" || strings.TrimSpace(r.Body) == "" {
			return recheckReply{}, fmt.Errorf("an update without a summary and a body")
		}
	default:
		return recheckReply{}, fmt.Errorf("verdict %q is not still_true, updated or no_longer_true", r.Verdict)
	}
	return r, nil
}

// recheck re-checks the stale memories given in msgs. prompt holds the
// model and agent the extraction used.
func (x *Extractor) recheck(ctx context.Context, e *engine.Engine, req Request, srv Server, msgs []opencode.Message, prompt opencode.PromptRequest) []Rechecked {
	used := usedIn(req.SessionID, msgs)
	// A hard rule in force is in front of the model on every turn (the
	// rules tier), framed as a body or not: every session used it.
	if rules, err := e.Rules(); err == nil {
		for _, r := range rules {
			if r.InForce && r.Source == engine.SourceMemory {
				used[string(r.Scope)+":"+r.ID] = true
			}
		}
	}
	if len(used) == 0 {
		return nil
	}
	list, err := e.StaleIn(req.CodeDir)
	if err != nil {
		return nil // no worktree to check in, or git failed: nothing to re-check
	}
	var out []Rechecked
	for _, m := range list {
		key := string(m.Scope) + ":" + m.ID
		if !used[key] || m.State == engine.StateOutdated || len(out) == MaxRecheck || !x.firstRecheck(key, m) {
			continue
		}
		out = append(out, x.recheckOne(ctx, e, req, srv, m, prompt))
	}
	return out
}

// firstRecheck reports whether this state of a memory's code was not
// asked about yet, and records it.
func (x *Extractor) firstRecheck(key string, m engine.StaleMemory) bool {
	seen := key + "\x00" + m.Verified + "\x00" + m.Why
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.rechecked == nil {
		x.rechecked = map[string]bool{}
	}
	if x.rechecked[seen] {
		return false
	}
	x.rechecked[seen] = true
	return true
}

func (x *Extractor) recheckOne(ctx context.Context, e *engine.Engine, req Request, srv Server, m engine.StaleMemory, base opencode.PromptRequest) Rechecked {
	r := Rechecked{Scope: m.Scope, ID: m.ID, State: m.State, Action: RecheckKept}
	done := func(action, why string) Rechecked {
		r.Action, r.Why = action, why
		x.log.Info("recheck done", "session", req.SessionID, "memory", string(m.Scope)+":"+m.ID, "state", m.State,
			"action", action, "reason", redact(why))
		return r
	}
	snap, err := e.Load()
	if err != nil {
		return done(RecheckKept, "not read: "+err.Error())
	}
	f := snap.Lookup(m.Scope, m.ID)
	if f == nil {
		return done(RecheckKept, "not found")
	}
	mem := f.Memory
	code, err := e.AnchorTextIn(req.CodeDir, m.Scope, m.ID)
	if err != nil {
		return done(RecheckKept, "its code not read: "+err.Error())
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The note (%s, %s):\nsummary: %s\n", mem.Kind, m.ID, oneLine(mem.Summary))
	if mem.Highlight != "" {
		fmt.Fprintf(&b, "highlight: %s\n", oneLine(mem.Highlight))
	}
	fmt.Fprintf(&b, "body:\n%s\n\nWhat changed since it was last known true: %s\n\nThe code now:\n%s",
		strings.TrimSpace(mem.Body), m.Why, code)
	prompt := base
	prompt.System = recheckSystem
	prompt.Parts = []opencode.TextPart{opencode.Text(redact(b.String()))}
	text, err := x.ask(ctx, srv, req, prompt, batch{})
	if err != nil {
		return done(RecheckKept, "no answer: "+err.Error())
	}
	reply, err := parseRecheck(text)
	if err != nil {
		return done(RecheckKept, "reply unusable: "+err.Error())
	}
	switch reply.Verdict {
	case "still_true":
		if _, err := e.VerifyIn(req.CodeDir, m.Scope, m.ID, nil); err != nil {
			return done(RecheckKept, "still true, not verified: "+err.Error())
		}
		return done(RecheckVerified, "the model found it still true")
	case "updated":
		w, err := e.Remember(engine.RememberRequest{Scope: m.Scope, Category: mem.Category(), Kind: mem.Kind,
			Summary: reply.Summary, Body: reply.Body, LoadWhen: mem.LoadWhen, Supersedes: m.ID, Source: engine.FromExtraction,
			CodeDir: req.CodeDir})
		if err != nil {
			return done(RecheckKept, "the update was refused: "+err.Error())
		}
		r.Written = w
		why := "superseded by " + w.ID
		if w.ReplacesRule != "" {
			why = "a rule: its update is the proposal " + w.ID + ", for a person to accept"
		}
		return done(RecheckSuperseded, why)
	}
	reason := oneLine(reply.Reason)
	if reason == "" {
		reason = "the model gave no reason"
	}
	if mem.Kind == memory.KindRule {
		return done(RecheckNoLonger, "the model found it no longer true ("+reason+"); a rule stays in force until a person changes it (ocmem stale)")
	}
	if _, err := e.MarkOutdatedIn(req.CodeDir, m.Scope, m.ID, reason); err != nil {
		return done(RecheckKept, "no longer true, not marked: "+err.Error())
	}
	return done(RecheckNoLonger, "the model found it no longer true ("+reason+"); marked outdated, out of injection, for the person (ocmem stale)")
}
