#!/usr/bin/env bash
# Runs `ocmem recall` in inject mode, what the per-message injection gives, so
# that the retrieval benchmark (which calls BIN recall ...) measures it:
#   OCMEM_BIN=/tmp/ocmem python3 ../shared/eval/run.py ../shared/eval/turns-dev --bin scripts/recall-inject.sh
# Without OCMEM_BIN it runs the ocmem on PATH.
set -euo pipefail
cmd=$1
shift
exec "${OCMEM_BIN:-ocmem}" "$cmd" --mode inject "$@"
