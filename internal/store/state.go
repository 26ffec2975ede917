package store

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
)

// State is a root's .state.json: counters that change as ocmem is used.
// It is git-ignored, so using memory never changes a tracked file.
type State struct {
	Version int `json:"version"`
	// Hits counts how often memory_recall returned each memory, by id.
	Hits map[string]int `json:"hits,omitempty"`
	// Cursors holds, per OpenCode session, the id of the last message that
	// automatic extraction has seen.
	Cursors map[string]string `json:"cursors,omitempty"`
	// Pending holds, per OpenCode session, when it last went idle (Unix
	// seconds) with turns automatic extraction may not have taken yet. It
	// outlives the process that saw the idle, so the turns of a session
	// that ended before extraction took them are taken later.
	Pending map[string]int64 `json:"pending,omitempty"`
}

const stateVersion = 1

// MaxCursors bounds the extraction cursors kept: one per session would grow
// without end. OpenCode's message ids rise with time, so the sessions with
// the smallest cursors are the ones idle longest; a session dropped here and
// active again is read from its start, and extraction's duplicate check
// keeps that from writing a memory twice.
const MaxCursors = 1000

// SetCursor records the last message extraction saw in a session, dropping
// the oldest cursors beyond MaxCursors.
func (s *State) SetCursor(session, messageID string) {
	if s.Cursors == nil {
		s.Cursors = map[string]string{}
	}
	s.Cursors[session] = messageID
	if len(s.Cursors) <= MaxCursors {
		return
	}
	type kv struct{ session, id string }
	all := make([]kv, 0, len(s.Cursors))
	for k, v := range s.Cursors {
		all = append(all, kv{k, v})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].id != all[j].id {
			return all[i].id < all[j].id
		}
		return all[i].session < all[j].session
	})
	for _, x := range all[:len(all)-MaxCursors] {
		if x.session != session {
			delete(s.Cursors, x.session)
		}
	}
}

// SetPending records that session went idle at unix (seconds) with turns
// extraction may not have taken yet, dropping the oldest entries beyond
// MaxCursors.
func (s *State) SetPending(session string, unix int64) {
	if s.Pending == nil {
		s.Pending = map[string]int64{}
	}
	s.Pending[session] = unix
	if len(s.Pending) <= MaxCursors {
		return
	}
	type kv struct {
		session string
		at      int64
	}
	// The session just marked is kept whatever its time.
	all := make([]kv, 0, len(s.Pending))
	for k, v := range s.Pending {
		if k != session {
			all = append(all, kv{k, v})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].at != all[j].at {
			return all[i].at < all[j].at
		}
		return all[i].session < all[j].session
	})
	for _, x := range all[:len(s.Pending)-MaxCursors] {
		delete(s.Pending, x.session)
	}
}

// ReadState reads .state.json. A missing or unreadable file yields an empty
// state: counters are a hint, never worth failing a recall for.
func (r Root) ReadState() *State {
	s := &State{Version: stateVersion}
	if r.Dir == "" {
		return s
	}
	b, _, err := readRegular(filepath.Join(r.Dir, StateFile), maxStateSize)
	if err != nil {
		return s
	}
	if json.Unmarshal(b, s) != nil {
		return &State{Version: stateVersion}
	}
	return s
}

// UpdateState applies fn to the state under the root's lock and writes it
// back atomically. It runs on reads (a recall counts its hits), so it
// changes no tracked file: a root's existing .gitignore is left as it is.
func (r Root) UpdateState(fn func(*State)) error {
	unlock, err := r.lock(false)
	if err != nil {
		return err
	}
	defer unlock()
	s := r.ReadState()
	fn(s)
	s.Version = stateVersion
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode state: %w", err)
	}
	return writeAtomic(filepath.Join(r.Dir, StateFile), append(b, '\n'))
}

// SortedHits returns the ids with hits, for stable output.
func (s *State) SortedHits() []string {
	ids := make([]string, 0, len(s.Hits))
	for id := range s.Hits {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
