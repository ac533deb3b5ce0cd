#!/usr/bin/env bash
# The fuzzing campaign: runs every cargo-fuzz target (or those named) for a fixed time, seeded from
# the repository's corpus, and prints one line per target: executions, executions/s, coverage,
# corpus size, and findings: the artifacts (crash/leak/timeout/oom) of this run that still fail
# the target when it runs them alone. Artifacts that do not are counted as `contained`: libFuzzer's
# handlers also fire in the child process llvm_bridge forks for LLVM, whose crash dwarv contains
# (the input is rejected cleanly). Needs the nightly toolchain and cargo-fuzz
# (`cargo install cargo-fuzz`).
#
#   bash scripts/fuzz.sh                 # every target, 600 s each
#   SECONDS_PER_TARGET=60 bash scripts/fuzz.sh spirv_reader dwir_text
#
# Findings stay in fuzz/artifacts/<target>/; each one found becomes a regression test.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo/fuzz"
secs="${SECONDS_PER_TARGET:-600}"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo +nightly fuzz list)
fi

# Seeds: the corpus build's outputs (SPIR-V, LLVM, ELF objects) and the IR texts.
seeds="$repo/target/fuzz-seeds"
if [ ! -d "$seeds" ]; then
  OUT="$seeds" DWARV_TOOLS="$repo/.tools/bin" bash "$repo/corpus/build.sh" >/dev/null
fi
# NonSemantic.Shader.DebugInfo.200 seeds for the SPIR-V targets: the corpus's spir64 bitcode as
# SPIRV-LLVM-Translator writes it in .200 (llvm-spirv-dpcpp, scripts/setup.sh), and the
# hand-written module of every .200 form.
for f in kernel.O0 frag.O0 frag.O2; do
  [ -s "$seeds/$f.shader200.spv" ] || "$repo/.tools/bin/llvm-spirv-dpcpp" \
    --spirv-debug-info-version=nonsemantic-shader-200 "$seeds/$f.bc" -o "$seeds/$f.shader200.spv" ||
    echo "fuzz.sh: no .200 seed from $f.bc" >&2
done
[ -s "$seeds/every_shader200.spv" ] || "$repo/.tools/bin/spirv-as" --target-env spv1.0 \
  "$repo/tests/spirv/every_shader200.spvasm" -o "$seeds/every_shader200.spv"
# Offload containers: a HIP host object (hipcc), bundles of the corpus's device code (plain and
# compressed) and an offloading binary (clang-offload-bundler-19 / -packager-19).
if [ ! -s "$seeds/saxpy.hip.o" ]; then
  hipcc -g -O1 --offload-arch=gfx90a -c "$repo/corpus/src/saxpy.hip" -o "$seeds/saxpy.hip.o"
  : >"$seeds/empty"
  for z in "" -compress; do
    clang-offload-bundler-19 -type=bc $z \
      -targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx90a,hip-spirv64-unknown-unknown--generic \
      -input="$seeds/empty" -input="$seeds/kernel.gfx90a.o" -input="$seeds/kernel.ocl100.spv" \
      -output="$seeds/kernel$z.bundle"
  done
  clang-offload-packager-19 -o "$seeds/kernel.offload" \
    --image=file="$seeds/kernel.gfx90a.o",triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip \
    --image=file="$seeds/kernel.O0.bc",triple=spir64-unknown-unknown,arch=generic,kind=openmp
fi
# dwarv's own DWARF of LLVM IR and SPIR-V (the records of code-less sources: DW_AT_dwarv_llvm
# and _spirv_set, inlined code) for the DWARF targets.
for f in kernel.O2.bc frag.O2.bc prog.O2.ll particles.spv; do
  [ -s "$seeds/$f.dwarv.o" ] || (cd "$repo" && cargo run -q --release --bin dwarv -- \
    convert "$seeds/$f" --to dwarf -o "$seeds/$f.dwarv.o" 2>/dev/null) ||
    echo "fuzz.sh: no dwarv DWARF seed from $f" >&2
done
# What each newer LLVM the bridge carries writes (llvm-bridge/LLVM_VERSIONS), so that a run with
# one bridge forced (DWARV_LLVM_SKIP) starts from that LLVM's own bitcode and text: the corpus's
# OpenCL kernels at -O0 and -O2 (bitcode) and its C++ at -O2 (text), by clang-N.
for v in $(cat "$repo/llvm-bridge/LLVM_VERSIONS"); do
  [ "$v" != 14 ] && command -v "clang-$v" >/dev/null || continue
  for o in O0 O2; do
    for s in kernel frag; do
      [ -s "$seeds/$s.$o.llvm$v.bc" ] || (cd "$repo/corpus/src" && "clang-$v" -target spir64-unknown-unknown \
        -x cl -cl-std=CL2.0 -g -$o -emit-llvm -c "$s.cl" -o "$seeds/$s.$o.llvm$v.bc")
    done
  done
  [ -s "$seeds/shapes.O2.llvm$v.ll" ] || (cd "$repo/corpus/src" && "clang-$v" -std=c++17 -g -O2 \
    -S -emit-llvm shapes.cpp -o "$seeds/shapes.O2.llvm$v.ll")
done
seed_files() {
  case "$1" in
    container_*) ls "$seeds"/saxpy.hip.o "$seeds"/*.bundle "$seeds"/kernel.offload ;;
    dwir_*) ls "$repo"/corpus/ir/*.dwir ;;
    spirv_*) ls "$seeds"/*.spv ;;
    dwarf_*) ls "$seeds"/*.o "$seeds"/prog.O2 2>/dev/null ;;
    llvm_*) ls "$seeds"/*.bc "$seeds"/*.ll ;;
    visa_*)
      # The tables tests/support/visa_gen.rs generates (no vISA sample files exist to copy).
      [ -d "$seeds/visa" ] || (cd "$repo" &&
        DWARV_VISA_SAMPLES="$seeds/visa" cargo test -q --test all visa::tables::write_samples >/dev/null)
      ls "$seeds"/visa/*.bin ;;
  esac
}

printf '%-20s %12s %10s %8s %8s %9s %9s\n' target executions "exec/s" cov corpus findings contained
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t" "artifacts/$t"
  seed_files "$t" | while read -r f; do cp -n "$f" "corpus/$t/" 2>/dev/null || true; done
  log="$(mktemp)"
  start="$(mktemp)"
  cargo +nightly fuzz run "$t" "corpus/$t" -- -max_total_time="$secs" -max_len=262144 \
    -print_final_stats=1 >"$log" 2>&1 || true
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo 0)
  size=$(ls "corpus/$t" | wc -l)
  found=0 contained=0
  bin="target/x86_64-unknown-linux-gnu/release/$t"
  while read -r a; do
    if "$bin" "$a" >/dev/null 2>&1; then
      contained=$((contained + 1))
    else
      found=$((found + 1))
      echo "$a" >>"$log.found"
    fi
  done < <(find "artifacts/$t" -type f -newer "$start")
  printf '%-20s %12s %10s %8s %8s %9s %9s\n' "$t" "${execs:-0}" "${rate:-0}" "${cov:-0}" "$size" \
    "$found" "$contained"
  if [ "$found" -gt 0 ]; then
    sed 's/^/    reproduces: /' "$log.found"
    grep -m1 -A3 'panicked\|ERROR: ' "$log" | sed 's/^/    /' || true
  fi
  rm -f "$log" "$log.found" "$start"
done
