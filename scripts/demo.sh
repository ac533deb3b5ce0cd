#!/usr/bin/env bash
# dwarv's three jobs, each on a sample the repository ships (corpus/src), with the tools
# scripts/setup.sh installs:
#   1. an LLVM → SPIR-V build step that keeps the debug info (the OpenCL kernel, `dwarv translate`),
#      judged by spirv-val;
#   2. a batch of GLSL shaders converted into another debug set, with the batch's summary;
#   3. round trips as a regression test: a C program through DWARF, a shader through SPIR-V.
# A few seconds after the release build (corpus/build.sh is not needed).
#
#   bash scripts/demo.sh            # outputs go to target/demo (override with OUT=…)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo="$PWD"

mkdir -p "${OUT:-target/demo}"
out="$(cd "${OUT:-target/demo}" && pwd)"
cargo build --release --quiet
dwarv="$repo/target/release/dwarv"
spirv_val="${DWARV_TOOLS:-$repo/.tools/bin}/spirv-val"   # SPIRV-Tools 2025.5; Debian's 2023.1 misjudges debug types
if [[ ! -x "$spirv_val" ]]; then
  echo "demo: no $spirv_val: run scripts/setup.sh first (it installs SPIRV-Tools 2025.5 into .tools/)," \
       "or set DWARV_TOOLS to the folder of one" >&2
  exit 1
fi
src="$repo/corpus/src"
step() { printf '\n== %s\n' "$*"; }

# --- 1. The build step: OpenCL C → LLVM bitcode → SPIR-V, with the debug info --------------
# The compiler's front end makes bitcode with debug metadata (as corpus/build.sh does);
# `dwarv translate` stands where llvm-spirv would: the translator's library translates the code
# (in process, from the one parse of the module) and dwarv writes the debug info into it.
step "1. build step: corpus/src/kernel.cl -> SPIR-V (dwarv translate: the translator's code + dwarv's debug info)"
mkdir -p "$out/build"
(cd "$src" && clang-14 -target spir64-unknown-unknown -x cl -cl-std=CL2.0 -g -O0 \
   -fdebug-prefix-map="$src"=. -emit-llvm -c kernel.cl -o "$out/build/k.bc")
"$dwarv" translate "$out/build/k.bc" -o "$out/build/k.spv" --report "$out/build/k.json"
"$spirv_val" "$out/build/k.spv"
translator=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["translator"])' "$out/build/k.json")
echo "spirv-val: build/k.spv is valid SPIR-V: the code by the translator ($translator), OpenCL.DebugInfo.100 from dwarv"
"$dwarv" stats "$out/build/k.spv" > "$out/build/k.stats.txt"
echo "what the debug info covers (dwarv stats; all of it in build/k.stats.txt):"
sed -n '2,3p' "$out/build/k.stats.txt"

# --- 2. Batch: shaders into another debug set -----------------------------------------------
# glslang -gVS writes NonSemantic.Shader.DebugInfo.100; the batch rewrites every module in
# place into OpenCL.DebugInfo.100. Vulkan drivers refuse that set, so each output is counted
# as unloadable in the summary (a tool that reads OpenCL.100 is the audience).
step "2. batch: corpus/src/*.comp *.frag (glslang -gVS) -> OpenCL.DebugInfo.100"
mkdir -p "$out/shaders"
for s in "$src"/*.comp "$src"/*.frag; do
  (cd "$src" && glslangValidator -V -gVS -o "$out/shaders/$(basename "$s").spv" "$(basename "$s")" >/dev/null)
done
(cd "$out" && "$dwarv" batch shaders -o batch --to spirv --flavour opencl100 --force --quiet \
   --report batch.json 2>batch.log)
for f in "$out"/batch/shaders/*.spv; do "$spirv_val" "$f"; done
echo "spirv-val: every output in batch/shaders is valid; per-input records in batch.json"

# --- 3. Round trips as a regression test -----------------------------------------------------
# `roundtrip` converts there and back and diffs against the input: exit 0 when nothing was
# lost, 1 with the differences (each under the ledger line that explains it), 2 on a bad input;
# with --baseline, exit 0 while the differences stay those a test committed.
step "3a. round trip: corpus/src/prog.c (clang-14 -g) through DWARF"
mkdir -p "$out/roundtrip"
(cd "$src" && clang-14 -g -O0 -fdebug-prefix-map="$src"=. -c prog.c -o "$out/roundtrip/prog.o")
"$dwarv" roundtrip "$out/roundtrip/prog.o" --via dwarf
echo "exit $?: prog.o's debug info written as DWARF and read back is the same IR"

step "3b. round trip: particles.comp (glslang -gVS) through SPIR-V, on its words and through the IR"
"$dwarv" roundtrip "$out/shaders/particles.comp.spv" --via spirv
"$dwarv" roundtrip "$out/shaders/particles.comp.spv" --via spirv --through-ir
echo "exit 0 twice: rewritten in its own set (NonSemantic.100), the shader's debug info reads back the same"

step "3c. a trip that loses something: the same shader through OpenCL.DebugInfo.100 and back"
rc=0
trip=("$dwarv" roundtrip "$out/shaders/particles.comp.spv" --via spirv --flavour opencl100)
"${trip[@]}" > "$out/roundtrip/particles.opencl100.txt" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || { cat "$out/roundtrip/particles.opencl100.txt"; exit 1; }
echo "exit 1: $(tail -n 1 "$out/roundtrip/particles.opencl100.txt" | sed 's/^dwarv: .*changes/changes/')"
echo "the ledger lines, each difference under the one that explains it (roundtrip/particles.opencl100.txt):"
grep '^ledger:' "$out/roundtrip/particles.opencl100.txt" | sed 's/^/  /'
"${trip[@]}" --baseline "$out/roundtrip/particles.opencl100.diffs" --update-baseline 2>/dev/null
"${trip[@]}" --baseline "$out/roundtrip/particles.opencl100.diffs" 2>/dev/null
echo "exit 0: the differences and what explains each are the baseline's (roundtrip/particles.opencl100.diffs, what a test commits)"

echo
echo "demo: done; outputs in $out"
