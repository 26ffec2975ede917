package prompt

import (
	"crypto/sha256"
	"strings"
	"sync"

	"github.com/ocmem/ocmem/internal/secrets"
)

// What ocmem shows of a memory (the rules and outline tiers, the
// bodies it injects, recall's hits) has every suspected secret masked. A
// write never stores one, but a person may: a hand-written memory, or one
// written before the scanner knew its shape, is shown masked until the
// person removes the secret (Inspect reports it as an error).

// withheldLine stands for a line whose secret the mask cannot cover in
// place (a token broken over lines, a line too dense to scan).
const withheldLine = secrets.WithheldLine

// Mask masks a text shown to a person or the model: as a whole, or line
// by line when a secret cannot be masked in place, each such line
// withheld.
func Mask(text string) string {
	if text == "" {
		return text
	}
	if out, ok := maskCached(text); ok {
		return out
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		out, ok := maskCached(l)
		if !ok {
			out = withheldLine
		}
		lines[i] = out
	}
	return strings.Join(lines, "\n")
}

// maskCacheMin and maskCacheBytes bound the cache of masked texts: a text
// shorter than maskCacheMin scans in microseconds; the stable tiers and a
// recalled body are masked again on every turn, so longer ones are kept,
// up to maskCacheBytes of them, and when full the cache starts over.
const (
	maskCacheMin   = 256
	maskCacheBytes = 16 << 20
)

var maskCache struct {
	mu    sync.Mutex
	m     map[[32]byte]maskResult
	bytes int
}

type maskResult struct {
	out string
	ok  bool
}

// maskCached is secrets.Mask with a cache keyed by the text's digest.
func maskCached(text string) (string, bool) {
	if len(text) < maskCacheMin {
		return secrets.Mask(text)
	}
	key := sha256.Sum256([]byte(text))
	maskCache.mu.Lock()
	r, hit := maskCache.m[key]
	maskCache.mu.Unlock()
	if hit {
		return r.out, r.ok
	}
	r.out, r.ok = secrets.Mask(text)
	maskCache.mu.Lock()
	if maskCache.m == nil || maskCache.bytes+len(r.out) > maskCacheBytes {
		maskCache.m, maskCache.bytes = map[[32]byte]maskResult{}, 0
	}
	maskCache.m[key] = r
	maskCache.bytes += len(r.out)
	maskCache.mu.Unlock()
	return r.out, r.ok
}

// Fields are what a recalled memory shows: its summary, highlight, body
// and load_when.
type Fields struct {
	Summary, Highlight, Body string
	LoadWhen                 []string
}

// MaskFields masks what a recalled memory shows, and says whether any
// field changed. LoadWhen is the caller's own slice: a masked one is a
// copy. What a memory's fields mask to is kept by their digest: every turn
// ranks dozens of hits. Measured on the engine's BenchmarkInject's 10,000
// memories, CPU time per injection: 1.1–1.2 ms unmasked, 2.0–2.4 ms
// scanning every hit, 1.4 ms with this cache.
func MaskFields(f Fields) (Fields, bool) {
	d := sha256.New()
	for _, s := range append([]string{f.Summary, f.Highlight, f.Body}, f.LoadWhen...) {
		d.Write([]byte(s))
		d.Write([]byte{0})
	}
	var key [32]byte
	d.Sum(key[:0])
	hitMasks.mu.Lock()
	m, hit := hitMasks.m[key]
	hitMasks.mu.Unlock()
	if !hit {
		m = maskFields(f)
		hitMasks.mu.Lock()
		if hitMasks.m == nil || len(hitMasks.m) >= maxHitMasks {
			hitMasks.m = map[[32]byte]*Fields{}
		}
		hitMasks.m[key] = m
		hitMasks.mu.Unlock()
	}
	if m == nil {
		return f, false
	}
	return *m, true
}

// maxHitMasks bounds the digests kept; when full the cache starts over.
const maxHitMasks = 1 << 16

var hitMasks struct {
	mu sync.Mutex
	m  map[[32]byte]*Fields // nil: nothing to mask
}

// maskFields masks the fields, or returns nil when none changes.
func maskFields(f Fields) *Fields {
	m := &Fields{Summary: Mask(f.Summary), Highlight: Mask(f.Highlight), Body: Mask(f.Body), LoadWhen: f.LoadWhen}
	changed := m.Summary != f.Summary || m.Highlight != f.Highlight || m.Body != f.Body
	for i, t := range f.LoadWhen {
		if mt := Mask(t); mt != t {
			if &m.LoadWhen[0] == &f.LoadWhen[0] { // still the caller's
				m.LoadWhen = append([]string(nil), f.LoadWhen...)
			}
			m.LoadWhen[i], changed = mt, true
		}
	}
	if !changed {
		return nil
	}
	return m
}
