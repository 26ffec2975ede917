package extract

import (
	"bytes"
	"testing"

	"github.com/ocmem/ocmem/internal/opencode"
	"github.com/ocmem/ocmem/internal/options"
)

// The line that ends a run is written once the cursor is saved: whoever
// waits for it in the log (the end-to-end tests, a person) then finds the
// cursor where the run left it.
func TestUnusableReplyLoggedAfterCursor(t *testing.T) {
	h := newHarness(t)
	h.srv.addTurns(4, deployTalk)
	h.srv.reply = func(int, opencode.PromptRequest) (string, error) {
		return "Sure! Here are some thoughts about deploying.", nil
	}
	atLog := "(not logged)"
	h.log.onWrite = func(p []byte) {
		if bytes.Contains(p, []byte(`"msg":"extraction reply unusable`)) {
			atLog = h.cursor()
		}
	}
	h.run(options.Options{})
	if want := h.cursor(); want == "" || atLog != want {
		t.Errorf("cursor when the end of the run was logged: %q; after the run: %q", atLog, want)
	}
}
