package store

import (
	"fmt"
	"testing"
)

func TestSetCursorBounded(t *testing.T) {
	s := &State{}
	for i := range MaxCursors + 50 {
		s.SetCursor(fmt.Sprintf("ses_%05d", i), fmt.Sprintf("msg_%05d", i))
	}
	if len(s.Cursors) != MaxCursors {
		t.Fatalf("%d cursors kept, want %d", len(s.Cursors), MaxCursors)
	}
	if _, ok := s.Cursors["ses_00049"]; ok {
		t.Error("the oldest cursors must go first")
	}
	if s.Cursors[fmt.Sprintf("ses_%05d", MaxCursors+49)] == "" || s.Cursors["ses_00050"] == "" {
		t.Error("recent cursors were dropped")
	}
	// The session being updated is never the one dropped, even when its
	// cursor is the oldest.
	s.SetCursor("ses_old", "msg_00000")
	if s.Cursors["ses_old"] != "msg_00000" {
		t.Error("the cursor just set was dropped")
	}
}

func TestSetPendingBounded(t *testing.T) {
	var s State
	for i := range MaxCursors + 50 {
		s.SetPending(fmt.Sprintf("ses_%05d", i), int64(1000+i))
	}
	if len(s.Pending) != MaxCursors {
		t.Fatalf("%d pending sessions kept, want %d", len(s.Pending), MaxCursors)
	}
	// The sessions idle longest go first.
	if _, ok := s.Pending["ses_00049"]; ok {
		t.Error("the oldest pending session was kept")
	}
	if s.Pending[fmt.Sprintf("ses_%05d", MaxCursors+49)] != int64(1000+MaxCursors+49) || s.Pending["ses_00050"] != 1050 {
		t.Errorf("newer pending sessions dropped")
	}
	// The session being marked is never the one dropped.
	s.SetPending("ses_old", 1)
	if s.Pending["ses_old"] != 1 || len(s.Pending) != MaxCursors {
		t.Errorf("ses_old %d, %d kept", s.Pending["ses_old"], len(s.Pending))
	}
}
