"""Signals that might tell a body that answers a message from one that only shares its words.

Reads `ocmem-tune dump` output (every query's injected bodies and search candidates with their
reasons) and the sets' graded labels, and prints, on the bodies injection gives:

1. how often a trigger is named (or a topic asked) in wanted and unwanted bodies;
2. the figures if a body had to be named to be given (in a message of several lines; after the
   first body);
3. the figures if a message were left quiet when its best body does not stand out of the field
   (its score over the mean of the next five candidates);
4. a logistic model over thirteen per-body features, trained leave-one-store-out: the threshold the
   other stores choose when no hit may be lost there, then the curve on the store left out.

usage: python3 signals.py DUMP EVAL_DIR   (run.sh makes DUMP)
Figures: hit@4 / quiet_g / precision_g, the first four given as run.py counts them.
"""
import json
import math
import re
import sys

SETS = ("dev", "turns-dev", "ops-dev", "ml-dev")
STORE = {"dev": "A", "turns-dev": "A", "ops-dev": "B", "ml-dev": "C"}  # dev and turns-dev share one
HEAD = ("summary", "highlight", "load_when")


def load(dump, evaldir):
    labels = {}
    for s in SETS:
        for line in open(f"{evaldir}/{s}/queries.jsonl", encoding="utf-8"):
            if line.strip():
                q = json.loads(line)
                labels[(s, q["id"])] = q
    return [json.loads(l) for l in open(dump, encoding="utf-8")], labels


WORD = re.compile(r"[a-z0-9_]+")


def phrases(a, b):
    """English word pairs (five-letter prefixes, no number) the message and the memory share."""
    aw = [w[:5] for w in WORD.findall(a)]
    bw = [w[:5] for w in WORD.findall(b)]
    have = set(zip(bw, bw[1:]))
    return len({p for p in zip(aw, aw[1:]) if p in have and not (p[0].isdigit() or p[1].isdigit())})


def bodies(lines, labels, evaldir):
    """One row per query (key None when nothing is given) or per body given, with its features."""
    rows = []
    for d in lines:
        q = labels[(d["set"], d["query"]["id"])]
        n = d["n"]
        rel, ok = set(q["relevant"]), set(q["relevant"]) | set(q.get("related", []))
        base = dict(set=d["set"], qid=q["id"], rel=rel, ok=ok, lines="\n" in q["q"])
        cands = {c["key"]: c for c in (d["cands"] or [])}
        given = d["given"] or []
        if not given:
            rows.append(dict(base, key=None))
            continue
        best = cands[given[0]]
        rest = [c["score"] for c in d["cands"] if c["key"] != given[0]][:5]
        peak = best["score"] / (sum(rest) / len(rest)) if rest else 5.0
        strong = sum(1 for c in d["cands"] if not c["reasons"].get("weak"))
        idf = lambda df: math.log(1 + (n - df + 0.5) / (df + 0.5))
        for i, k in enumerate(given):
            c = cands[k]
            r = c["reasons"]
            inhead = {t["term"] for t in r.get("terms", []) if not t.get("via") and any(f in t.get("fields", {}) for f in HEAD)}
            total = sum(idf(df) for df in c["head"].values())
            hr = sum(idf(df) for t, df in c["head"].items() if t in inhead) / total if total else 0.0
            scope, mid = k.split(":", 1)
            text = open(f"{evaldir}/{d['set']}/{scope}/{mid}.md", encoding="utf-8").read().lower()
            named = bool(r.get("named") or r.get("topic"))
            f = dict(named=float(named), ratio=c["score"] / best["score"], cov=r.get("coverage", 0.0),
                     covr=r.get("coverage", 0.0) / (best["reasons"].get("coverage") or 1.0),
                     pieces=min(r.get("pieces", 0), 6) / 6, head=r.get("headline", 0.0), hr=hr,
                     lines=float(base["lines"]), first=float(i == 0), peak=min(peak, 5.0) / 5,
                     strong=min(strong, 20) / 20, phrases=min(phrases(q["q"].lower(), text), 5) / 5,
                     score=math.log(1 + c["score"]) / 3)
            rows.append(dict(base, key=k, pos=i, f=f, peak=peak))
    return rows


def figures(rows, keep):
    """hit@4 / quiet_g / precision_g per set when only the bodies keep(row) accepts are given."""
    by = {}
    for r in rows:
        by.setdefault((r["set"], r["qid"]), []).append(r)
    agg = {}
    for (s, _), lst in by.items():
        rel, ok = lst[0]["rel"], lst[0]["ok"]
        given = [r["key"] for r in lst if r["key"] and keep(r)][:4]
        m = agg.setdefault(s, {"hit": [], "quiet_g": [], "precision_g": []})
        if rel:
            m["hit"].append(bool(rel & set(given)))
        else:
            m["quiet_g"].append(set(given) <= ok)
        if given:
            m["precision_g"].append(len(ok & set(given)) / len(given))
    return {s: {k: (sum(v) / len(v) if v else float("nan")) for k, v in m.items()} for s, m in agg.items()}


def show(label, fig, sets=SETS):
    print("  %-34s %s" % (label, "  ".join("%s %.3f/%.3f/%.3f" % (s, fig[s]["hit"], fig[s]["quiet_g"], fig[s]["precision_g"]) for s in sets if s in fig)))


FEATS = ["named", "ratio", "cov", "covr", "pieces", "head", "hr", "lines", "first", "peak", "strong", "phrases", "score"]


def x(r):
    v = [r["f"][k] for k in FEATS]
    return [1.0] + v + [r["f"]["first"] * r["f"][k] for k in FEATS if k != "first"]


def sigmoid(z):
    return 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))


def train(rows, l2=0.01, steps=400, rate=0.5):
    xs = [x(r) for r in rows]
    ys = [1.0 if r["key"] in r["ok"] else 0.0 for r in rows]
    w = [0.0] * len(xs[0])
    for _ in range(steps):
        g = [0.0] * len(w)
        for xi, yi in zip(xs, ys):
            p = sigmoid(sum(a * b for a, b in zip(w, xi)))
            for j, xj in enumerate(xi):
                g[j] += (p - yi) * xj
        w = [wj - rate * (gj / len(xs) + l2 * wj) for wj, gj in zip(w, g)]
    return w


def main():
    lines, labels = load(sys.argv[1], sys.argv[2])
    rows = bodies(lines, labels, sys.argv[2])
    given = [r for r in rows if r["key"]]
    print("1. a trigger named or a topic asked, of the bodies given (first four)")
    for multi in (False, True):
        for lab, pick in (("wanted", lambda r: r["key"] in r["rel"]), ("related", lambda r: r["key"] in r["ok"] - r["rel"]), ("unwanted", lambda r: r["key"] not in r["ok"])):
            for first in (True, False):
                v = [r for r in given if r["pos"] < 4 and r["lines"] == multi and pick(r) and (r["pos"] == 0) == first]
                if v:
                    print("  %-10s %-8s %-5s %3d of %3d" % ("lines" if multi else "one line", lab, "first" if first else "later", sum(r["f"]["named"] for r in v), len(v)))
    print("2. a body must be named to be given")
    show("as is", figures(rows, lambda r: True))
    show("in a message of several lines", figures(rows, lambda r: not r["lines"] or r["f"]["named"]))
    show("after the first body", figures(rows, lambda r: r["pos"] == 0 or r["f"]["named"]))
    for t in (0.6, 0.8):
        show("after the first, unless >= %.1f best" % t, figures(rows, lambda r, t=t: r["pos"] == 0 or r["f"]["named"] or r["f"]["ratio"] >= t))
    print("3. quiet when the best body does not stand out (peak: its score over the next five's mean)")
    for t in (1.2, 1.3, 1.4, 1.5):
        show("peak < %.1f gives nothing" % t, figures(rows, lambda r, t=t: r["peak"] >= t))
    print("4. logistic model, leave-one-store-out")
    models = {s: train([r for r in given if STORE[r["set"]] != STORE[s]]) for s in SETS}
    keep = lambda s, t: (lambda r: sigmoid(sum(a * b for a, b in zip(models[s], x(r)))) >= t)
    base = figures(rows, lambda r: True)
    for s in SETS:
        others = [o for o in SETS if STORE[o] != STORE[s]]
        best = (None, 0.0)
        for t in [i / 100 for i in range(0, 96, 2)]:
            fig = figures([r for r in rows if r["set"] in others], keep(s, t))
            if any(fig[o]["hit"] < base[o]["hit"] - 1e-9 for o in others):
                continue
            obj = sum(fig[o]["precision_g"] + (fig[o]["quiet_g"] if fig[o]["quiet_g"] == fig[o]["quiet_g"] else 0) for o in others)
            if best[0] is None or obj > best[0] + 1e-9:
                best = (obj, t)
        show("%s left out, threshold %.2f" % (s, best[1]), figures([r for r in rows if r["set"] == s], keep(s, best[1])), [s])
    for t in (0.2, 0.3, 0.5):
        fig = {}
        for s in SETS:
            fig.update(figures([r for r in rows if r["set"] == s], keep(s, t)))
        show("every store left out, threshold %.1f" % t, fig)


if __name__ == "__main__":
    main()
