#!/bin/sh
# Dumps every development query's bodies and candidates (ocmem-tune dump) and
# prints what the signals in signals.py would do to hit@4, quiet_g and
# precision_g. usage: bench/experiments/relevance-signals/run.sh [EVAL_DIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)
eval=${1:-$repo/../shared/eval}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$repo/bench" && go run ./cmd/ocmem-tune dump -eval "$eval" -o "$tmp/dump.jsonl")
python3 "$here/signals.py" "$tmp/dump.jsonl" "$eval"
