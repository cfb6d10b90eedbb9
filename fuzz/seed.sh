#!/usr/bin/env bash
# Builds the fuzzers' seed corpora (fuzz/corpus/<target>/, not kept in git) from the traces in
# ../shared/traces and the malformed-input corpus of tests/fixtures/bad. Large traces are cut
# to their first 64 kB (libFuzzer's inputs stay small); compressed ones are kept whole for the
# `load` target when small enough.
set -euo pipefail
cd "$(dirname "$0")"
shared=../../shared/traces
bad=../tests/fixtures/bad
for t in header prv_body pcf row load plain_file estimate scan_scalar scan_sse2 scan_avx2 scan_neon; do mkdir -p "corpus/$t"; done
n=0
add() { # target file [bytes]
  n=$((n + 1))
  if [ -n "${3:-}" ]; then head -c "$3" "$2" > "corpus/$1/seed-$n"; else cp "$2" "corpus/$1/seed-$n"; fi
  return 0
}
for f in "$shared"/*/*.prv "$bad"/*.prv; do
  [ -f "$f" ] || continue
  add load "$f" 65536
  add estimate "$f" 4096
  # plain_file: one byte of knobs (piece size, part), then the text.
  n=$((n + 1)); { printf '\x85'; head -c 65536 "$f"; } > "corpus/plain_file/seed-$n"
  add header "$f" 4096
  # The body without its header line, for prv_body's fixed header.
  n=$((n + 1)); head -c 65536 < <(tail -n +2 "$f") > "corpus/prv_body/seed-$n"
  for s in scan_scalar scan_sse2 scan_avx2 scan_neon; do cp "corpus/prv_body/seed-$n" "corpus/$s/"; done
done
for f in "$shared"/*/*.xz "$shared"/*/*.gz "$bad"/*.xz "$bad"/*.gz; do
  [ -f "$f" ] || continue
  if [ "$(stat -c %s "$f")" -le 4000000 ]; then add load "$f"; add estimate "$f"; fi
done
for f in "$shared"/*/*.pcf "$bad"/*.pcf; do if [ -f "$f" ]; then add pcf "$f"; fi; done
for f in "$shared"/*/*.row "$bad"/*.row; do if [ -f "$f" ]; then add row "$f"; fi; done
ls corpus | while read -r t; do echo "$t: $(ls "corpus/$t" | wc -l) seeds"; done
