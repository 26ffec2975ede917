"""Prints one line of run.sh's table from run.py's --json output in DIR."""
import json
import sys

label, d = sys.argv[1:]
cells = []
for s in ("dev", "turns-dev", "ops-dev", "ml-dev"):
    r = json.load(open(f"{d}/{s}.json"))["project"]
    cells.append("%.3f/%.3f/%.3f/%.3f" % (r["ALL.hit"], r["ALL.mrr"], r["ALL.quiet_g"], r["ALL.precision_g"]))
print("%-34s %s" % (label, " ".join("%-22s" % c for c in cells)))
