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
echo "== SPIR-V: write the IR as NonSemantic.Shader.DebugInfo.100 and OpenCL.DebugInfo.100, validate, read back"
"$dwarv" convert corpus/ir/glsl_shader.dwir -o "$out/shader.spv" --flavour shader100 --report "$out/shader.json"
.tools/bin/spirv-val --target-env vulkan1.2 "$out/shader.spv" && echo "spirv-val: $out/shader.spv is valid"
"$dwarv" convert "$sample" -o "$out/kernel.spv" --flavour opencl100
.tools/bin/spirv-val "$out/kernel.spv" && echo "spirv-val: $out/kernel.spv is valid"
"$dwarv" dump "$out/kernel.spv" -o "$out/kernel.spv.dwir" && head -n 12 "$out/kernel.spv.dwir"
