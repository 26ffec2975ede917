#!/bin/sh
# The lexical oracle: how quiet would injection be if no everyday word, short
# number, non-word bigram, translation or store-wide term were evidence?
# Builds ocmem at BASE with oracle.patch applied and runs the benchmark
# (../shared/eval/run.py --inject) on the four development sets, once as is
# and once per oracle setting; prints hit@4 / MRR / quiet_g / precision_g.
#
# usage: bench/experiments/lexical-oracle/run.sh [EVAL_DIR]
# EVAL_DIR: the folder holding run.py and the sets (default: ../shared/eval
# beside the repository). Needs git, go and python3.
set -eu
BASE=3fddaba2063334c87e6eb38a6ced6a98b5760b1e
PATCH=oracle.patch
. "$(dirname "$0")/../patched.sh"
row() { # label, then env settings
	label=$1
	shift
	for set in dev turns-dev ops-dev ml-dev; do
		env "$@" python3 "$eval/run.py" "$eval/$set" --bin "$tmp/ocmem" --inject --json "$tmp/$set.json" >/dev/null
	done
	python3 "$here/row.py" "$label" "$tmp"
}
printf '%-34s %-22s %-22s %-22s %-22s\n' "setting (hit / MRR / quiet_g / precision_g)" dev turns-dev ops-dev ml-dev
row "as is" OCMEM_ORACLE=
row "no evidence, translations kept" OCMEM_ORACLE=noevidence OCMEM_ORACLE_TRANSLATE=1
row "classes no evidence, no translation" OCMEM_ORACLE=noevidence
row "classes weigh nothing too" OCMEM_ORACLE=drop
row "no evidence, zh >= 1000, en <= 35" OCMEM_ORACLE=noevidence OCMEM_ORACLE_ZH=1000 OCMEM_ORACLE_EN=35
row "no evidence, zh >= 200, en <= 35" OCMEM_ORACLE=noevidence OCMEM_ORACLE_ZH=200 OCMEM_ORACLE_EN=35
