#!/usr/bin/env bash
# Copies the two retrieval development sets written for ocmem (dev,
# turns-dev) from the benchmark beside the checkout (../shared/eval) into
# internal/engine/testdata/eval, where the quality gates (TestDevSet,
# TestTurnSet) read them in any clone. TestDevSetsInStep fails while the
# copy differs from ../shared/eval. The sets built from other projects'
# public text (ops-dev, ml-dev) stay outside the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
src=${1:-../shared/eval}
for set in dev turns-dev; do
  rm -rf "internal/engine/testdata/eval/$set"
  mkdir -p internal/engine/testdata/eval
  cp -R "$src/$set" "internal/engine/testdata/eval/$set"
done
echo "copied dev and turns-dev from $src"
