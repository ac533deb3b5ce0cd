#!/usr/bin/env bash
# Per-file breakdown of the DI-count column of scripts/llvm-into-table.sh: reads its out-dir
# (KEY.in.counts, KEY.F.spv.counts) and prints, per file that misses, `-r` aborts or which
# `!DIKind(` counts differ (output − input), then per kind the files where it differs and the
# files where it is the only difference (what fixing it alone would gain).
# Usage: scripts/llvm-into-breakdown.sh OUT-DIR [flavour, default opencl100]
set -u
out=${1:?out-dir of llvm-into-table.sh}
fl=${2:-opencl100}
for inc in "$out"/*.in.counts; do
  key=$(basename "$inc" .in.counts)
  o=$out/$key.$fl.spv
  [ -f "$o" ] || { echo "$key convert-failed"; continue; }
  [ -f "$o.counts" ] || { echo "$key r-abort"; continue; }
  d=$(join -1 2 -2 2 -a1 -a2 -e0 -o 0,1.1,2.1 <(sort -k2 "$inc") <(sort -k2 "$o.counts") |
    awk '$2 != $3 { gsub(/[!(]/, "", $1); printf " %s%+d", $1, $3 - $2 }')
  [ -n "$d" ] && echo "$key$d"
done | sort > "$out/breakdown.$fl.txt"
cat "$out/breakdown.$fl.txt"
echo
echo "| cause (DI kind, count after -r minus before) | files where it differs | files where it is the only difference |"
echo "|---|---|---|"
awk '{ for (i = 2; i <= NF; i++) { k = $i; sub(/[-+][0-9]+$/, "", k); any[k]++; if (NF == 2) only[k]++ } }
  END { for (k in any) printf "| %s | %d | %d |\n", k, any[k], only[k] }' "$out/breakdown.$fl.txt" |
  sort -t'|' -k3,3nr
