#!/usr/bin/env bash
# Runs every fuzz target of the module for the given time each (default 30s).
# Usage: scripts/fuzz.sh [DURATION]
set -euo pipefail
cd "$(dirname "$0")/.."
t=${1:-30s}
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
    echo "-- $pkg $target ($t)"
    go test -run='^$' -fuzz="^${target}\$" -fuzztime="$t" "$pkg"
  done
done
