// Package tools carries out ocmem's four memory tools: it turns the tool
// contract's arguments (toolspec) into engine calls and the engine's results
// into the reply the model reads and the notice the person sees. Every edge
// that offers the tools — serve for the OpenCode plugin, the MCP server —
// calls it, so a tool behaves and answers the same wherever it is called.
//
//	reply, err := tools.Remember(e, args, engine.FromModel, "")
//	if err != nil {
//		return err // says what did not happen ("…; nothing was written")
//	}
//	fmt.Println(reply.Text)
//
// The edges keep what is theirs: which engine a call goes to, logging, and
// how a refusal travels (a JSON-RPC error, an MCP tool error).
package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/render"
	"github.com/ocmem/ocmem/internal/store"
	"github.com/ocmem/ocmem/internal/toolspec"
)

// Reply is a tool's answer.
type Reply struct {
	// Text is what the model reads.
	Text string
	// IDs are the memories the reply is about, as scope:id.
	IDs []string
	// Notice is a one-line message for the person at the keyboard (the
	// plugin shows it as a toast): what memory did that they would not
	// otherwise see. "" for none.
	Notice string
	// Written is what remember or forget did, for the edge's log.
	Written *engine.Written
}

// ErrInvalid marks arguments the tool cannot act on at all (an empty
// query); the edges report it as invalid params.
var ErrInvalid = errors.New("invalid arguments")

// Recall searches both roots, explicitly (search mode), and counts the
// hits. It reads the engine's snapshot as it is: an edge that cannot watch
// the files invalidates it first. Anchors are checked in the worktree
// codeDir ("" : the engine's own).
func Recall(e *engine.Engine, a toolspec.RecallArgs, codeDir string) (*Reply, error) {
	if strings.TrimSpace(a.Query) == "" {
		return nil, fmt.Errorf("%w: query is empty", ErrInvalid)
	}
	// A limit above the maximum is clamped (toolspec.RecallLimit); one below
	// zero is no count at all, refused as the CLI's --limit refuses it.
	if a.Limit < 0 {
		return nil, fmt.Errorf("%w: limit is %d; it counts memories, 1 to %d", ErrInvalid, a.Limit, toolspec.MaxRecallLimit)
	}
	hits, err := e.Recall(a.Query, engine.RecallOptions{Limit: toolspec.RecallLimit(a.Limit), Count: true, Mode: engine.Search, CodeDir: codeDir})
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.Key()
	}
	return &Reply{Text: render.Hits(hits, true), IDs: ids}, nil
}

// Remember writes one memory. A rule from a model or extraction is stored
// as a proposal (the engine decides); the reply says so, and the notice
// tells the person a proposal waits for them. Anchors are named from and
// checked in the worktree codeDir ("" : the engine's own).
func Remember(e *engine.Engine, a toolspec.RememberArgs, src engine.Source, codeDir string) (*Reply, error) {
	req, err := rememberRequest(a, src, codeDir)
	if err != nil {
		return nil, refused(err, "remember")
	}
	w, err := e.Remember(req)
	if err != nil {
		return nil, refused(err, "remember")
	}
	text := toolspec.Remembered(string(w.Scope), w.ID, string(w.Kind), w.Path, w.Downgraded, w.Superseded, w.ReplacesRule)
	if w.SameSummary != "" {
		text += toolspec.SameSummary(string(w.Scope), w.SameSummary)
	}
	r := &Reply{Text: withWarning(text, w.Warning), IDs: []string{string(w.Scope) + ":" + w.ID}, Written: w}
	if w.Kind == memory.KindRuleProposal {
		r.Notice = fmt.Sprintf("rule proposal %s:%s waits for you: `ocmem rules` lists it, `ocmem accept %s` puts it in force.", w.Scope, w.ID, w.ID)
	} else {
		r.Notice = fmt.Sprintf("remembered %s:%s (%s)", w.Scope, w.ID, w.Path)
	}
	if w.SameSummary != "" {
		r.Notice += fmt.Sprintf("; %s:%s has the same summary", w.Scope, w.SameSummary)
	}
	return r, nil
}

func rememberRequest(a toolspec.RememberArgs, src engine.Source, codeDir string) (engine.RememberRequest, error) {
	scope, err := parseScope(a.Scope)
	if err != nil {
		return engine.RememberRequest{}, err
	}
	guards, err := memory.ParseEnforce(a.Enforce)
	if len(a.Enforce) == 0 {
		guards, err = nil, nil
	}
	if err != nil {
		return engine.RememberRequest{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return engine.RememberRequest{
		Scope: scope, Category: a.Category, Kind: memory.Kind(a.Kind), Summary: a.Summary, Body: a.Body,
		Highlight: a.Highlight, LoadWhen: a.LoadWhen, Pinned: a.Pinned, Supersedes: a.Supersedes,
		Source: src, Enforce: guards, Anchors: a.Anchors, CodeDir: codeDir,
	}, nil
}

// PreviewRemember is the file Remember would write, for a person asked to
// approve the write first; it writes nothing. A call Remember would refuse
// gets the same error.
func PreviewRemember(e *engine.Engine, a toolspec.RememberArgs, src engine.Source, codeDir string) (*engine.Preview, error) {
	req, err := rememberRequest(a, src, codeDir)
	if err != nil {
		return nil, refused(err, "remember")
	}
	p, err := e.PreviewRemember(req)
	if err != nil {
		return nil, refused(err, "remember")
	}
	return p, nil
}

// PreviewForget is the file Forget would delete; it deletes nothing.
func PreviewForget(e *engine.Engine, a toolspec.ForgetArgs) (*engine.Preview, error) {
	scope, err := parseScope(a.Scope)
	if err != nil {
		return nil, refused(err, "forget")
	}
	p, err := e.PreviewForget(scope, a.ID)
	if err != nil {
		return nil, refused(err, "forget")
	}
	return p, nil
}

// Forget deletes one memory. A hard rule or a pinned memory is a person's
// to remove: from a model or extraction the engine refuses.
func Forget(e *engine.Engine, a toolspec.ForgetArgs, src engine.Source) (*Reply, error) {
	scope, err := parseScope(a.Scope)
	if err != nil {
		return nil, refused(err, "forget")
	}
	w, err := e.Forget(scope, a.ID, src)
	if err != nil {
		return nil, refused(err, "forget")
	}
	text := toolspec.Forgot(string(w.Scope), w.ID, w.Path)
	return &Reply{
		Text:    withWarning(text, w.Warning),
		IDs:     []string{string(w.Scope) + ":" + w.ID},
		Notice:  fmt.Sprintf("forgot %s:%s (%s)", w.Scope, w.ID, w.Path),
		Written: w,
	}, nil
}

// RememberEdits is what Remember(e, a, …) would write, for the edit
// permission asked before it; refused as Remember would refuse the scope,
// category or id.
func RememberEdits(e *engine.Engine, a toolspec.RememberArgs) (*engine.Edits, error) {
	scope, err := parseScope(a.Scope)
	if err != nil {
		return nil, refused(err, "remember")
	}
	ed, err := e.RememberEdits(engine.RememberRequest{Scope: scope, Category: a.Category, Supersedes: a.Supersedes, Source: engine.FromModel})
	if err != nil {
		return nil, refused(err, "remember")
	}
	return ed, nil
}

// ForgetEdits is what Forget(e, a, …) would delete, for the edit
// permission asked before it.
func ForgetEdits(e *engine.Engine, a toolspec.ForgetArgs) (*engine.Edits, error) {
	scope, err := parseScope(a.Scope)
	if err != nil {
		return nil, refused(err, "forget")
	}
	ed, err := e.ForgetEdits(scope, a.ID)
	if err != nil {
		return nil, refused(err, "forget")
	}
	return ed, nil
}

// Inspect lists every memory and checks both roots, anchors in the
// worktree codeDir ("" : the engine's own).
func Inspect(e *engine.Engine, codeDir string) (*Reply, []engine.Issue, error) {
	rep, err := e.InspectIn(codeDir)
	if err != nil {
		return nil, nil, err
	}
	return &Reply{Text: render.Report(rep, true)}, rep.Issues, nil
}

func parseScope(s string) (store.Scope, error) {
	if s == "" {
		return "", nil
	}
	sc, err := store.ParseScope(s)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return sc, nil
}

func withWarning(text, warning string) string {
	if warning == "" {
		return text
	}
	return text + "\nWarning: " + warning + "."
}

// Refused reports whether err refused a tool call before anything was
// touched: bad arguments, a secret, a path outside the root, a missing
// memory, a rule only a person may change (an engine.Refusal), or
// arguments the tool cannot act on (ErrInvalid).
func Refused(err error) bool { return refusedBeforeWriting(err) }

// refused says, for an error the engine returned before touching the disk,
// that nothing changed ("…; nothing was written"). Other errors (a failed
// recompile after the write, a full disk) say what happened themselves.
func refused(err error, tool string) error {
	if t, _ := toolspec.Lookup(tool); t.Refused != "" && refusedBeforeWriting(err) {
		return fmt.Errorf("%w; %s", err, t.Refused)
	}
	return err
}

func refusedBeforeWriting(err error) bool {
	return errors.Is(err, ErrInvalid) || engine.IsRefusal(err)
}
