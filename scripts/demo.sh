#!/usr/bin/env bash
# The main job on a sample the repository ships. Today that is the IR pipeline: read an input
# (format detected from content), validate it, convert it, and compare the result with the input.
# Later issues add the LLVM → SPIR-V and DWARF steps here.
#
#   bash scripts/demo.sh            # outputs go to target/demo (override with OUT=…)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

out="${OUT:-target/demo}"
mkdir -p "$out"
cargo build --release --quiet
dwarv=target/release/dwarv

sample=corpus/ir/opencl_kernel.dwir
[ -f "$sample" ] || sample=corpus/ir/sample.dwir

echo "== validate $sample"
"$dwarv" validate "$sample"
echo "== convert $sample -> $out/sample.dwir (report: $out/report.json)"
"$dwarv" convert "$sample" -o "$out/sample.dwir" --report "$out/report.json"
echo "== diff: the converted IR against the input"
"$dwarv" diff "$sample" "$out/sample.dwir" && echo "identical"
echo "== stdin works too: dump | diff -"
"$dwarv" dump "$sample" | "$dwarv" diff - "$sample" && echo "identical"
