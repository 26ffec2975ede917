package stale

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ocmem/ocmem/internal/anchor"
	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/prompt"
	"github.com/ocmem/ocmem/internal/store"
)

// What a state becomes where it is shown: on a hit (Staleness), in a list
// for a person (Report, Evidence), in the outline (MarkOutline) and as the
// text a model re-checking a memory reads (AnchorText). Everything taken
// from the repository (a commit's subject, a file's text) is shown masked,
// as a memory's own text is.

// Staleness is what a hit's anchors say: set only for a memory whose code
// changed or went since it was verified.
type Staleness struct {
	State string `json:"state"` // "changed", "gone" or "outdated"
	// Why is the evidence, for a person: what changed, in how many
	// commits, the last one's subject and date; or what went, and where
	// a renamed file went.
	Why string `json:"why"`
	// Line is the one line the model is given with the memory.
	Line string `json:"line"`
}

// Gone reports a memory whose anchored code is no longer there.
func (z *Staleness) Gone() bool { return z != nil && z.State == string(anchor.Gone) }

// IsOutdated reports a memory a model judged no longer true.
func (z *Staleness) IsOutdated() bool { return z != nil && z.State == StateOutdated }

// Rank orders hits: a fresh or changed memory 0, a gone one 1 (below every
// fresh match), an outdated one 2 (last: kept for history only).
func (z *Staleness) Rank() int {
	switch {
	case z.Gone():
		return 1
	case z.IsOutdated():
		return 2
	}
	return 0
}

// StateOutdated is the state of a memory marked outdated (memory.Outdated):
// a model judged it no longer true, and a person has not acted yet.
const StateOutdated = "outdated"

// OutdatedWhy is an outdated mark for a person: when, at which commit, and
// the model's reason, masked.
func OutdatedWhy(o memory.Outdated) string {
	var b strings.Builder
	b.WriteString("judged no longer true")
	if o.Commit != "" {
		b.WriteString(" at " + o.Commit[:min(12, len(o.Commit))])
	}
	if o.Time != 0 {
		b.WriteString(" on " + time.UnixMilli(o.Time).UTC().Format(time.DateOnly))
	}
	if r := compile.OneLine(o.Reason); r != "" {
		b.WriteString(": " + r)
	}
	return prompt.Mask(b.String())
}

// ShownOutdated is an outdated mark as a hit carries it.
func ShownOutdated(o memory.Outdated) *Staleness {
	why := OutdatedWhy(o)
	return &Staleness{State: StateOutdated, Why: why,
		Line: "[ocmem: this memory was " + why + ". It is kept for history only; do not rely on it.]"}
}

// Shown is a state as a hit carries it: nil for a fresh memory.
func Shown(st State) *Staleness {
	if !st.Stale() {
		return nil
	}
	return &Staleness{State: string(st.State), Why: prompt.Mask(st.Why()), Line: prompt.Mask(st.Line())}
}

// Evidence is what the check found about one anchor: the file, the
// commits since the memory was verified, a renamed file's new path.
type Evidence struct {
	Anchor      string `json:"anchor"` // as the memory writes it
	State       string `json:"state"`  // this anchor's: "changed" or "gone"
	Path        string `json:"path"`   // the file that changed or went, relative to the project root
	RenamedTo   string `json:"renamed_to,omitempty"`
	Commits     int    `json:"commits,omitempty"` // since verified, touching the anchor
	Subject     string `json:"subject,omitempty"` // the last one's subject
	Date        string `json:"date,omitempty"`    // and its commit date (RFC 3339)
	Uncommitted bool   `json:"uncommitted,omitempty"`
	ByDigest    bool   `json:"by_digest,omitempty"` // decided by content: the verified commit is not in this clone, or none was recorded
	Why         string `json:"why"`
}

func evidenceOf(x anchor.Evidence) Evidence {
	ev := Evidence{Anchor: x.Anchor, State: string(x.State), Path: x.Path, RenamedTo: x.RenamedTo, Commits: x.Commits,
		Subject: prompt.Mask(x.Subject), Uncommitted: x.Uncommitted, ByDigest: x.ByDigest, Why: prompt.Mask(x.Why)}
	if !x.Date.IsZero() {
		ev.Date = x.Date.UTC().Format(time.RFC3339)
	}
	return ev
}

// Report is a memory whose anchored code changed or went since it was
// verified, with the evidence.
type Report struct {
	ID       string      `json:"id"`
	Scope    store.Scope `json:"scope"`
	Path     string      `json:"path"`
	Summary  string      `json:"summary"`
	State    string      `json:"state"` // "changed", "gone" or "outdated"
	Why      string      `json:"why"`
	Verified string      `json:"verified,omitempty"` // the commit it was verified at
	Evidence []Evidence  `json:"evidence"`
}

// Reports lists the stale ones of files (file j in state states[j]) and
// those marked outdated, whatever their code's state: outdated first, then
// gone, then changed, each by scope and id.
func Reports(files []*store.File, states []State) []Report {
	var out []Report
	for j, st := range states {
		f := files[j]
		if o := f.Memory.Outdated; !o.IsZero() {
			ev := evidenceOfState(st)
			if ev == nil {
				ev = []Evidence{} // its code may be fresh, or it has none: a list all the same
			}
			out = append(out, Report{ID: f.Memory.ID, Scope: f.Scope, Path: f.Path, Summary: prompt.Mask(f.Memory.Summary),
				State: StateOutdated, Why: OutdatedWhy(o), Verified: f.Memory.Verified.Commit, Evidence: ev})
			continue
		}
		if !st.Stale() {
			continue
		}
		out = append(out, Report{ID: f.Memory.ID, Scope: f.Scope, Path: f.Path, Summary: prompt.Mask(f.Memory.Summary),
			State: string(st.State), Why: prompt.Mask(st.Why()), Verified: f.Memory.Verified.Commit, Evidence: evidenceOfState(st)})
	}
	order := func(state string) int {
		switch state {
		case StateOutdated:
			return 0
		case string(anchor.Gone):
			return 1
		}
		return 2
	}
	slices.SortStableFunc(out, func(a, b Report) int {
		if oa, ob := order(a.State), order(b.State); oa != ob {
			return oa - ob
		}
		if a.Scope != b.Scope {
			return strings.Compare(string(a.Scope), string(b.Scope))
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

func evidenceOfState(st State) []Evidence {
	var ev []Evidence
	for _, x := range st.Evidence {
		if x.State != anchor.Fresh {
			ev = append(ev, evidenceOf(x))
		}
	}
	return ev
}

// GoneMark follows a gone memory's name in the outline. The outline counts
// it in the line's length when it chooses the lines that fit its budget.
const GoneMark = " (gone: the code it is about is no longer there)"

// MarkOutline marks the outline line of the memory key ("scope:id") as
// gone; a memory its budget cut from the outline is left out.
func MarkOutline(outline, key string) string {
	head := "- " + key + " — "
	at := 0
	if !strings.HasPrefix(outline, head) {
		i := strings.Index(outline, "\n"+head)
		if i < 0 {
			return outline
		}
		at = i + 1
	}
	at += len(head) - len(" — ")
	return outline[:at] + GoneMark + outline[at:]
}

// TrimAnchors trims each anchor and drops empty ones and repeats, as the
// file would read them.
func TrimAnchors(as []string) []string {
	var out []string
	for _, a := range as {
		if a = strings.TrimSpace(a); a != "" && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// CheckGiven reports the first anchor of those a person or a model gave
// that cannot be checked, or too many of them.
func CheckGiven(anchors []string) error {
	if len(anchors) > anchor.MaxPerMemory {
		return fmt.Errorf("%d anchors, over the limit of %d", len(anchors), anchor.MaxPerMemory)
	}
	for _, a := range anchors {
		if _, err := anchor.Parse(a); err != nil {
			return err
		}
	}
	return nil
}

// MaxAnchorText bounds what AnchorText returns of one memory's code.
const MaxAnchorText = 12000

// AnchorText is the current text of the files anchors name in the worktree
// root, each under a "=== path" line, within MaxAnchorText characters (a
// file cut short says so); a gone file is named as gone. It is what a
// model re-checking the memory reads.
func AnchorText(root string, anchors []string) string {
	var b strings.Builder
	for _, p := range Files(root, anchors) {
		if b.Len() >= MaxAnchorText {
			b.WriteString("=== (more anchored files left out)\n")
			break
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			fmt.Fprintf(&b, "=== %s: gone (%s)\n", p, strings.Join(strings.Fields(err.Error()), " "))
			continue
		}
		text := string(data)
		if left := MaxAnchorText - b.Len(); len(text) > left {
			text = strings.ToValidUTF8(text[:left], "") + "\n… (cut)"
		}
		fmt.Fprintf(&b, "=== %s\n%s\n", p, strings.TrimRight(text, "\n"))
	}
	return prompt.Mask(b.String())
}
