// Package compiletest holds what the tests of compiled files share: an
// index.md changed as a person might change it.
package compiletest

import (
	"bytes"
	"math/rand/v2"
	"strings"
)

// EditIndex returns index.md old changed as a person might change it: a
// line removed, repeated, changed, swapped with another or added, CRLF line
// ends, cut short, replaced by another category's file (one of others, when
// given), or emptied.
func EditIndex(r *rand.Rand, old []byte, others ...[]byte) []byte {
	lines := strings.SplitAfter(string(old), "\n")
	k := r.IntN(len(lines))
	switch r.IntN(9) {
	case 0:
		lines = append(lines[:k], lines[k+1:]...)
	case 1:
		lines = append(lines[:k+1], lines[k:]...)
	case 2:
		if l := lines[k]; len(l) > 4 {
			i := 2 + r.IntN(len(l)-3)
			lines[k] = l[:i] + "x" + l[i+1:]
		}
	case 3:
		j := r.IntN(len(lines))
		lines[k], lines[j] = lines[j], lines[k]
	case 4:
		lines = append(lines[:k], append([]string{"- [zz](zz.md) — a line of no memory\n"}, lines[k:]...)...)
	case 5:
		return bytes.ReplaceAll(old, []byte("\n"), []byte("\r\n"))
	case 6:
		return old[:r.IntN(len(old)+1)]
	case 7:
		if len(others) > 0 {
			return others[r.IntN(len(others))]
		}
	default:
		return nil
	}
	return []byte(strings.Join(lines, ""))
}
