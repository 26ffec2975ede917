#!/usr/bin/env python3
"""Time ocmem-bench's FTS5 queries on the same database with C SQLite.

ocmem-bench runs SQLite as modernc.org/sqlite, a translation of the C
library to Go, to keep the benchmark free of cgo. This script answers how
much that translation costs: it replays the exact MATCH expressions
ocmem-bench saved (fts5-queries.json) against the same fts5.sqlite with the
SQLite that Python links, interleaved the same way, and prints p50 / p99 per
table. Divide ocmem-bench's FTS5 figures by these to get the factor.

Usage: native_fts5.py CORPUS_DIR [--rounds 20]
where CORPUS_DIR is one size's directory under ocmem-bench -dir (or -keep).
"""
import argparse, json, math, os, sqlite3, time

def pct(xs, p):
    xs = sorted(xs)
    return xs[max(0, min(len(xs) - 1, math.ceil(p * len(xs)) - 1))]

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--rounds", type=int, default=20)
    a = ap.parse_args()
    spec = json.load(open(os.path.join(a.dir, "fts5-queries.json"), encoding="utf-8"))
    db = sqlite3.connect(os.path.join(a.dir, "fts5.sqlite"))
    tables = spec["tables"]
    samples = {t["name"]: [] for t in tables}
    n = len(tables)
    for rnd in range(a.rounds + 1):  # the first round warms up
        for qi in range(len(spec["queries"])):
            for k in range(n):
                t = tables[(k + rnd + qi) % n]
                expr = t["exprs"][qi]
                start = time.perf_counter()
                if expr:
                    db.execute(f"SELECT key FROM {t['table']} WHERE {t['table']} MATCH ? ORDER BY rank LIMIT 4", (expr,)).fetchall()
                d = time.perf_counter() - start
                if rnd > 0:
                    samples[t["name"]].append(d)
    print(f"SQLite {sqlite3.sqlite_version}, {len(spec['queries'])} queries x {a.rounds} rounds, ms")
    for name, xs in samples.items():
        print(f"{name:16} p50 {pct(xs, .5) * 1000:8.3f}   p99 {pct(xs, .99) * 1000:8.3f}")

if __name__ == "__main__":
    main()
