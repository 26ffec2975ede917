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
