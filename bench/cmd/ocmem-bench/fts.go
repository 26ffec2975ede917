package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the FTS5 baselines; pure Go, so the benchmark needs no C toolchain

	"github.com/ocmem/ocmem/internal/store"
	"github.com/ocmem/ocmem/internal/textseg"
)

// The baselines are what memory tools built on SQLite do, as in
// shared/eval/run.py: one FTS5 table over a memory's text, the query's terms
// OR-ed, BM25 order. The third table feeds FTS5 ocmem's own tokens, to
// separate what the tokenizer buys from what the index and ranking cost.
var ftsSystems = []struct {
	Name      string
	tokenizer string
	pretok    bool // index textseg.Terms joined by spaces instead of the raw text
}{
	{"fts5-trigram", "trigram", false},
	{"fts5-unicode61", "unicode61", false},
	{"fts5-textseg", "unicode61", true},
}

type ftsDoc struct{ key, raw string }

// loadDocs reads the memories as the baselines see them: summary, highlight,
// triggers and body as one text, superseded memories included (FTS5 has no
// notion of them), keyed "scope:id".
func loadDocs(c *corpus) ([]ftsDoc, error) {
	var docs []ftsDoc
	for _, r := range []store.Root{{Scope: store.Global, Dir: c.global}, {Scope: store.Project, Dir: c.project}} {
		files, problems, err := r.Load()
		if err != nil {
			return nil, err
		}
		if len(problems) > 0 {
			return nil, fmt.Errorf("%s: %v", problems[0].Path, problems[0].Err)
		}
		for _, f := range files {
			m := f.Memory
			docs = append(docs, ftsDoc{
				key: string(r.Scope) + ":" + m.ID,
				raw: strings.Join([]string{m.Summary, m.Highlight, strings.Join(m.LoadWhen, " "), m.Body}, " "),
			})
		}
	}
	return docs, nil
}

// ftsIndex is one SQLite database holding a table per baseline, and each
// query already turned into each table's MATCH expression.
type ftsIndex struct {
	db    *sql.DB
	stmts []*sql.Stmt
	exprs [][]string // [system][query]; "" when the query has no term the system can search for
	build []time.Duration
	bytes int64
}

// openFTS builds the tables in a file on disk, as a memory tool would keep
// them; after the build the file sits in the page cache, as the memory
// files do for ocmem.
func openFTS(path string, docs []ftsDoc, qs []query) (*ftsIndex, error) {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)")
	if err != nil {
		return nil, err
	}
	// One connection: every statement then sees the same database and page
	// cache, and no pool bookkeeping lands in the timings.
	db.SetMaxOpenConns(1)
	x := &ftsIndex{db: db}
	for i, s := range ftsSystems {
		start := time.Now()
		if err := x.create(i, docs, s.tokenizer, s.pretok); err != nil {
			db.Close()
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		x.build = append(x.build, time.Since(start))
		exprs, err := x.queryExprs(s.tokenizer, s.pretok, qs)
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		x.exprs = append(x.exprs, exprs)
		st, err := db.Prepare(fmt.Sprintf("SELECT key FROM t%d WHERE t%d MATCH ? ORDER BY rank LIMIT 4", i, i))
		if err != nil {
			db.Close()
			return nil, err
		}
		x.stmts = append(x.stmts, st)
	}
	if fi, err := os.Stat(path); err == nil {
		x.bytes = fi.Size()
	}
	return x, nil
}

func (x *ftsIndex) create(i int, docs []ftsDoc, tokenizer string, pretok bool) error {
	t := fmt.Sprintf("t%d", i)
	if _, err := x.db.Exec(fmt.Sprintf("CREATE VIRTUAL TABLE %s USING fts5(key UNINDEXED, text, tokenize='%s')", t, tokenizer)); err != nil {
		return err
	}
	tx, err := x.db.Begin()
	if err != nil {
		return err
	}
	ins, err := tx.Prepare(fmt.Sprintf("INSERT INTO %s(key, text) VALUES(?, ?)", t))
	if err != nil {
		tx.Rollback()
		return err
	}
	for _, d := range docs {
		text := d.raw
		if pretok {
			text = strings.Join(textseg.Terms(d.raw), " ")
		}
		if _, err := ins.Exec(d.key, text); err != nil {
			tx.Rollback()
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	// Merge the b-trees of the bulk load into one: FTS5 at its fastest, so
	// that a ratio in ocmem's favour is not an artefact of a fragmented index.
	_, err = x.db.Exec(fmt.Sprintf("INSERT INTO %s(%s) VALUES('optimize')", t, t))
	return err
}

func (x *ftsIndex) queryExprs(tokenizer string, pretok bool, qs []query) ([]string, error) {
	out := make([]string, len(qs))
	for i, q := range qs {
		var terms []string
		switch {
		case pretok:
			terms = textseg.Terms(q.Text)
			slices.Sort(terms)
			terms = slices.Compact(terms)
		case tokenizer == "trigram":
			terms = trigramTerms(q.Text)
		default:
			var err error
			if terms, err = x.unicode61Terms(q.Text); err != nil {
				return nil, err
			}
		}
		out[i] = orExpr(terms)
	}
	return out, nil
}

// unicode61Terms asks SQLite how unicode61 tokenizes a query, through a
// scratch table's vocabulary, as run.py does: no reimplementation to drift.
func (x *ftsIndex) unicode61Terms(q string) ([]string, error) {
	for _, s := range []string{
		"CREATE VIRTUAL TABLE IF NOT EXISTS scratch USING fts5(text, tokenize='unicode61')",
		"CREATE VIRTUAL TABLE IF NOT EXISTS scratch_vocab USING fts5vocab(scratch, row)",
		"DELETE FROM scratch",
	} {
		if _, err := x.db.Exec(s); err != nil {
			return nil, err
		}
	}
	if _, err := x.db.Exec("INSERT INTO scratch(text) VALUES(?)", q); err != nil {
		return nil, err
	}
	rows, err := x.db.Query("SELECT term FROM scratch_vocab")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var terms []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, err
		}
		terms = append(terms, t)
	}
	return terms, rows.Err()
}

// trigramSeparators splits a query into chunks as run.py does (Python's \s is
// Unicode-aware, hence \p{Z}).
var trigramSeparators = regexp.MustCompile(`[\s\p{Z}"'“”‘’,.;:!?()\[\]{}<>，。；：！？（）【】、]+`)

// trigramTerms returns the distinct 3-character substrings of the query's
// chunks of three characters or more, sorted: FTS5 trigram cannot match
// anything shorter, so a query of two-character words has no terms at all.
func trigramTerms(q string) []string {
	var out []string
	for _, chunk := range trigramSeparators.Split(q, -1) {
		r := []rune(chunk)
		for i := 0; i+3 <= len(r); i++ {
			out = append(out, string(r[i:i+3]))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func orExpr(terms []string) string {
	quoted := make([]string, len(terms))
	for i, t := range terms {
		quoted[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	return strings.Join(quoted, " OR ")
}

// search runs query qi against system si and returns the keys, best first.
// A query without terms costs nothing: the tool has nothing to ask.
func (x *ftsIndex) search(si, qi int) ([]string, error) {
	expr := x.exprs[si][qi]
	if expr == "" {
		return nil, nil
	}
	rows, err := x.stmts[si].Query(expr)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}

// writeQueries saves each table's MATCH expressions beside the database, so
// that the same queries can be timed on the same file with another SQLite
// build (bench/native_fts5.py does, with the C library Python links).
func (x *ftsIndex) writeQueries(path string, qs []query) error {
	type table struct {
		Name  string   `json:"name"`
		Table string   `json:"table"`
		Exprs []string `json:"exprs"`
	}
	var out struct {
		Queries []string `json:"queries"`
		Tables  []table  `json:"tables"`
	}
	for _, q := range qs {
		out.Queries = append(out.Queries, q.Text)
	}
	for i, s := range ftsSystems {
		out.Tables = append(out.Tables, table{Name: s.Name, Table: fmt.Sprintf("t%d", i), Exprs: x.exprs[i]})
	}
	b, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

func (x *ftsIndex) Close() error { return x.db.Close() }
