#!/usr/bin/env bash
# Runs BSC's paramedir with every cfg of ../shared/paraver_cfgs on each TRACE and writes the
# outputs laid out as ../shared/reference/paramedir (INDEX.tsv, gzipped outputs; the trace
# column is the trace's absolute path), so that prvscope's paramedir can be compared with it:
#   contrib/paramedir-reference.sh OUTDIR TRACE...
#   PARAMEDIR_REFERENCE=OUTDIR cargo test -p prvscope-paraver --test reference
# PARAMEDIR names BSC's paramedir (default: what ../shared/tools/build-paramedir.sh installs).
set -u
[ $# -ge 2 ] || { echo "usage: $0 OUTDIR TRACE..." >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
CFGS=$(cd "$HERE/../../shared/paraver_cfgs" && pwd) || exit 1
PMD=${PARAMEDIR:-$HOME/.local/paramedir/bin/paramedir}
[ -x "$PMD" ] || { echo "$PMD: not found (build it with ../shared/tools/build-paramedir.sh)" >&2; exit 1; }
OUT=$1; shift
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
printf 'trace\tcfg\tkind\tstatus\tseconds\toutput\tbytes\tmessage\n' > "$OUT/INDEX.tsv"
for t in "$@"; do
	t=$(readlink -f "$t")
	name=$(echo "$t" | tr '/' '_')
	mkdir -p "$OUT/$name"
	(cd "$CFGS" && find . -name '*.cfg' | sed 's|^\./||' | sort) | while read -r cfg; do
		base="$(echo "$cfg" | sed 's|/|__|g; s|\.cfg$|.txt|').gz"
		work=$(mktemp -d)
		msg=$(cd "$work" && timeout 60 "$PMD" "$t" "$CFGS/$cfg" out.txt 2>&1 | tr '\t\n' '  ' | cut -c1-300)
		# A histogram is written to out.txt, a time line to out.txt.csv.
		f=""
		for c in out.txt out.txt.csv; do
			[ -s "$work/$c" ] && { f=$work/$c; break; }
		done
		if [ -n "$f" ]; then
			gzip -c "$f" > "$OUT/$name/$base"
			printf '%s\t%s\t-\tok\t0\t%s\t%s\t%s\n' "$t" "$cfg" "$name/$base" "$(stat -c %s "$f")" "$msg"
		else
			printf '%s\t%s\t-\tfailed\t0\t\t0\t%s\n' "$t" "$cfg" "$msg"
		fi >> "$OUT/INDEX.tsv"
		rm -rf "$work"
	done
done
echo "$OUT/INDEX.tsv"
