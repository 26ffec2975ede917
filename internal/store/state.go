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
}

const stateVersion = 1

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
