package extract

import (
	"strings"

	"github.com/ocmem/ocmem/internal/secrets"
)

// redact replaces every suspected secret in s by its redacted form (the
// first few characters, then one '*' per character), read as a write's
// check reads it: lines joined, Markdown escapes, character references and
// encodings decoded. The conversation is redacted before the extraction
// model sees it, so the model cannot copy a secret into a memory, and
// everything extraction logs is redacted, so the log never holds one
// either. The engine still scans every write.
func redact(s string) string {
	if out, ok := secrets.Mask(s); ok {
		return out
	}
	// A secret the mask cannot cover in place (broken over lines), or a
	// text too dense to scan whole: line by line, each such line hidden,
	// so the rest of the conversation is still read.
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		out, ok := secrets.Mask(l)
		if !ok {
			out = hiddenLine
		}
		lines[i] = out
	}
	return strings.Join(lines, "\n")
}

// hiddenLine stands for a line redact cannot mask in place.
const hiddenLine = "[hidden: a suspected secret, or too dense with secret-shaped keywords to scan]"
