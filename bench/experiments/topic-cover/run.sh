#!/bin/sh
# Topic cover: in a message of several lines, give a memory only when the
# message says more than 0.7 of one of its triggers or 0.1 of its summary and
# triggers (idf-weighted). Builds ocmem at BASE with topic.patch applied, runs
# the benchmark (run.py --inject) on the four development sets, then sweeps
# both thresholds leave-one-store-out (ocmem-tune loso -graded).
#
# usage: bench/experiments/topic-cover/run.sh [EVAL_DIR]
# EVAL_DIR: the folder holding run.py and the sets (default: ../shared/eval
# beside the repository). Needs git, go and python3.
set -eu
BASE=7de4938
PATCH=topic.patch
. "$(dirname "$0")/../patched.sh"
for set in dev turns-dev ops-dev ml-dev; do
	python3 "$eval/run.py" "$eval/$set" --bin "$tmp/ocmem" --inject --json "$tmp/$set.json" >/dev/null
done
printf '%-34s %-22s %-22s %-22s %-22s\n' "setting (hit / MRR / quiet_g / precision_g)" dev turns-dev ops-dev ml-dev
python3 "$here/../lexical-oracle/row.py" "trigger > 0.7 or headline >= 0.1" "$tmp"
for p in TriggerCover HeadCover; do
	(cd "$tmp/src/bench" && go run ./cmd/ocmem-tune loso -graded -eval "$eval" -param "$p") |
		sed 's/ prec [0-9.]* quiet [0-9.]*//g; s/ scope-v [0-9.]*//g'
done
