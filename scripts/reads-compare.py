#!/usr/bin/env python3
# Two ocmem builds' read path on one ocmem-bench corpus, alternated in one run:
# `ocmem serve`'s recall (the search tool) and message (per-message injection)
# p50 over 16 mixed questions, and a fresh CLI's warm `ocmem recall` (wall
# time, peak RSS). Each build keeps a load cache of its own beside the corpus.
# Serve: ROUNDS processes per build, taking turns; each asks every question
# three times in one session (recall, then message), the first pass untimed.
# Usage: scripts/reads-compare.py CORPUS OLDBIN NEWBIN [ROUNDS] [CLI_RUNS]
#   CORPUS is a size folder of `ocmem-bench -dir`, e.g. /tmp/ocmem-bench/100000.
# Linux or macOS (os.wait4 gives the CLI's ru_maxrss; Linux counts it in KiB).
import json, os, statistics, subprocess, sys, time

corpus, old, new = sys.argv[1], sys.argv[2], sys.argv[3]
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 8
cli_runs = int(sys.argv[5]) if len(sys.argv) > 5 else 9
G, P = corpus + "/global", corpus + "/project"
QS = ["部署前要检查什么", "数据库连接池超时怎么办", "缓存 预热", "灰度发布失败要回滚吗",
      "redis timeout when the queue consumer retries", "how do we roll back a failed deployment",
      "kafka consumer deadlock in production", "goroutine leak with mutex and context",
      "pnpm-lock.yaml 冲突", "redis 缓存 超时", "docker 镜像构建太慢", "grpc 接口超时重试",
      "max_conns readTimeout", "k8s.io/client-go", "HTTPServer retryPolicy", "what is the weather like today"]
CLI_QUERY = "部署脚本要注意什么"
bins = [("old", old), ("new", new)]


def env(name):
    e = {k: v for k, v in os.environ.items() if not k.startswith("OCMEM_")}
    e["OCMEM_CACHE_DIR"] = corpus + "/cache-reads-" + name
    e["OCMEM_LOG"] = corpus + "/reads-" + name + ".log"
    return e


# Recalls count in .state.json: put it back afterwards.
state = {}
for r in (G, P):
    p = r + "/.state.json"
    state[p] = open(p, "rb").read() if os.path.exists(p) else None


def restore():
    for p, b in state.items():
        if b is None:
            if os.path.exists(p):
                os.remove(p)
        else:
            open(p, "wb").write(b)


def cli(name, binp):
    t0 = time.perf_counter()
    pid = os.posix_spawn(binp, [binp, "recall", "--global", G, "--project", P, CLI_QUERY], env(name),
                         file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)])
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        raise SystemExit(f"{binp}: recall exited with status {status}")
    return wall * 1000, ru.ru_maxrss / 1024


def serve_round(name, binp):
    pr = subprocess.Popen([binp, "serve", "--global", G, "--project", P], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, env=env(name))
    n = [0]

    def call(method, params):
        n[0] += 1
        req = json.dumps({"jsonrpc": "2.0", "id": n[0], "method": method, "params": params}) + "\n"
        t0 = time.perf_counter()
        pr.stdin.write(req.encode())
        pr.stdin.flush()
        resp = json.loads(pr.stdout.readline())
        return (time.perf_counter() - t0) * 1000, resp.get("error")

    # The tools' arguments went into "args" after bbb2677; older builds
    # take them beside the session.
    style = ["args"]

    def recall(q):
        p = {"sessionID": "ses_reads"}
        if style[0] == "args":
            p["args"] = {"query": q, "limit": 4}
        else:
            p.update(query=q, limit=4)
        dt, err = call("recall", p)
        if err and style[0] == "args":
            style[0] = "top"
            return recall(q)
        if err:
            raise SystemExit(f"{binp} recall: {err}")
        return dt

    call("system", {"sessionID": "ses_reads"})
    rec, msg = [], []
    for rep in range(3):
        for i, q in enumerate(QS):
            a = recall(q)
            b, err = call("message", {"sessionID": "ses_reads", "messageID": f"msg_{rep}_{i}", "text": q})
            if err:
                raise SystemExit(f"{binp} message: {err}")
            if rep:
                rec.append(a)
                msg.append(b)
    pr.stdin.close()
    pr.wait()
    return rec, msg


res = {name: {"rec": [], "msg": [], "cli": [], "rss": []} for name, _ in bins}
try:
    for name, binp in bins:
        cli(name, binp)  # each build's load cache
        cli(name, binp)
    la0 = os.getloadavg()[0]
    for r in range(rounds):
        for name, binp in (bins if r % 2 == 0 else bins[::-1]):
            rec, msg = serve_round(name, binp)
            res[name]["rec"] += rec
            res[name]["msg"] += msg
    for r in range(cli_runs):
        for name, binp in (bins if r % 2 == 0 else bins[::-1]):
            w, rss = cli(name, binp)
            res[name]["cli"].append(w)
            res[name]["rss"].append(rss)
    la1 = os.getloadavg()[0]
finally:
    restore()

med = statistics.median
print(f"load average {la0:.2f} -> {la1:.2f}; serve: {rounds} processes per build, {2 * len(QS)} timed "
      f"recalls and messages each; CLI: {cli_runs} warm recalls per build")
for name, binp in bins:
    d = res[name]
    print(f"{name} {os.path.basename(binp)}: recall p50 {med(d['rec']):.2f} ms, message p50 {med(d['msg']):.2f} ms, "
          f"CLI warm recall {med(d['cli']):.0f} ms, peak RSS median {med(d['rss']):.0f} MB (largest {max(d['rss']):.0f})")
o, n = res["old"], res["new"]
print(f"new / old: recall {med(n['rec']) / med(o['rec']):.2f}, message {med(n['msg']) / med(o['msg']):.2f}, "
      f"CLI wall {med(n['cli']) / med(o['cli']):.2f}, CLI RSS {med(n['rss']) / med(o['rss']):.2f}")
