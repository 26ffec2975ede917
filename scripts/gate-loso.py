#!/usr/bin/env python3
"""Leave-one-store-out test of a learned "does anything answer this message" gate.

Input: the dump of bench's ocmem-tune (every dev-set query with what
injection gives and each candidate's reasons):

    (cd bench && go run ./cmd/ocmem-tune dump -o /tmp/dump.jsonl)
    python3 scripts/gate-loso.py /tmp/dump.jsonl [SLACK]

For each set left out, a logistic regression over features of the best body
given and of the message is trained on the other three sets (label: the
message wants a memory), a threshold is chosen on those three (the most
negative quiet at which none of them loses a hit, or more than SLACK of
its hit rate), and the gate is applied
to the set left out: a message whose best body scores under the threshold
gets nothing. Standard library only; deterministic.
"""
import json
import math
import sys

SETS = ["dev", "turns-dev", "ops-dev", "ml-dev"]
HEAD = ("summary", "highlight", "load_when")
NAMES = ["coverage", "log(1+pieces)", "headline share", "log(1+headline evidence)",
         "headline idf share", "second/best relevance", "several lines", "best headline idf",
         "trigger named", "topic asked", "bodies given/4"]


def features(dump_line):
    d = json.loads(dump_line)
    q = d["query"]
    cands = {c["key"]: c for c in (d["cands"] or [])}
    given = d["given"] or []
    out = dict(set=d["set"], id=q["id"], rel=set(q.get("relevant") or []), given=given[:4], x=None)
    if not given:
        return out
    r = cands[given[0]]["reasons"]
    terms = r["terms"]
    ev = [t for t in terms if t.get("evidence")]
    hev = [t for t in ev if any(f in t["fields"] for f in HEAD)]
    hall = [t for t in terms if any(f in t["fields"] for f in HEAD)]
    tidf = sum(t["idf"] for t in terms) or 1
    second = cands[given[1]]["reasons"]["relevance"] / r["relevance"] if len(given) > 1 else 0
    out["x"] = [r["coverage"], math.log(1 + r["pieces"]), r["headline"] ** 20, math.log(1 + len(hev)),
                sum(t["idf"] for t in hall) / tidf, second, 1.0 if "\n" in q["q"].strip() else 0.0,
                max([t["idf"] for t in hev] or [0]) / math.log(d["n"] + 1),
                1.0 if r.get("named") else 0.0, 1.0 if r.get("topic") else 0.0, len(given[:4]) / 4]
    return out


def train(qs, l2=0.01, steps=3000, rate=0.5):
    xs = [q["x"] for q in qs if q["x"]]
    ys = [0.0 if not q["rel"] else 1.0 for q in qs if q["x"]]
    m = len(xs[0])
    mu = [sum(x[j] for x in xs) / len(xs) for j in range(m)]
    sd = [(sum((x[j] - mu[j]) ** 2 for x in xs) / len(xs)) ** 0.5 or 1 for j in range(m)]
    zs = [[(x[j] - mu[j]) / sd[j] for j in range(m)] for x in xs]
    w = [0.0] * (m + 1)
    for _ in range(steps):
        g = [0.0] * (m + 1)
        for z, y in zip(zs, ys):
            p = 1 / (1 + math.exp(-(w[-1] + sum(a * b for a, b in zip(w, z)))))
            for j in range(m):
                g[j] += (p - y) * z[j]
            g[-1] += p - y
        for j in range(m + 1):
            w[j] -= rate * (g[j] / len(zs) + (l2 * w[j] if j < m else 0))
    return w, mu, sd


def prob(model, x):
    w, mu, sd = model
    return 1 / (1 + math.exp(-(w[-1] + sum(w[j] * (x[j] - mu[j]) / sd[j] for j in range(len(x))))))


def measure(qs, model=None, th=0.0):
    hits = mrr = wanted = quiet = negs = 0
    for q in qs:
        given = q["given"]
        if model and given and prob(model, q["x"]) < th:
            given = []
        if not q["rel"]:
            negs += 1
            quiet += not given
            continue
        wanted += 1
        for i, k in enumerate(given):
            if k in q["rel"]:
                hits += 1
                mrr += 1 / (i + 1)
                break
    return hits / wanted, mrr / wanted, quiet / max(negs, 1)


def main():
    qs = [features(l) for l in open(sys.argv[1]) if l.strip()]
    slack = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0  # hit a training set may lose
    print("| left out | threshold (chosen on the others) | hit / MRR / negative quiet without the gate | with it |")
    print("|---|---:|---|---|")
    for out in SETS:
        tr = [q for q in qs if q["set"] != out]
        te = [q for q in qs if q["set"] == out]
        model = train(tr)
        chosen, best = 0.0, -1.0
        for i in range(100):
            th = i / 100
            ok, score = True, 0.0
            for s in SETS:
                if s == out:
                    continue
                part = [q for q in tr if q["set"] == s]
                base, gated = measure(part), measure(part, model, th)
                ok = ok and gated[0] >= base[0] - slack - 1e-9
                score += gated[2]
            if ok and score > best:
                chosen, best = th, score
        f = lambda t: " / ".join("%.3f" % v for v in t)
        print("| %s | %.2f | %s | %s |" % (out, chosen, f(measure(te)), f(measure(te, model, chosen))))
    model = train(qs)
    print("\nweights on all four (standardised features):", ", ".join("%s %.2f" % (n, w) for n, w in zip(NAMES, model[0])))


if __name__ == "__main__":
    main()
