#!/usr/bin/env bash
# The LLVM benchmark of docs/llvm.md: whole-process wall/CPU time and peak RSS of
# `dwarv convert big.bc -o big.spv` against llvm-spirv-14 on the same bitcode, with LLVM's own
# parse + verify (`opt -disable-output`) as the floor. The input (cached in target/bench):
# bench/gen_cl.py --funcs $FUNCS (default 6000) → clang-14 -g -O0 spir64 bitcode (~10 MB,
# ~420 000 metadata nodes). GNU time's figures include the process's waited-for children (dwarv's
# LLVM child).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
funcs=${FUNCS:-6000}
out=$root/target/bench
mkdir -p "$out"
bc=$out/bigllvm_$funcs.bc
if [ ! -s "$bc" ]; then
  python3 "$root/bench/gen_cl.py" --funcs "$funcs" --kernels 200 > "$out/bigllvm_$funcs.cl"
  clang-14 -target spir64-unknown-unknown -x cl -cl-std=CL2.0 -g -O0 -emit-llvm -c \
    "$out/bigllvm_$funcs.cl" -o "$bc"
fi
(cd "$root" && cargo build --release -q)
dwarv=${DWARV:-$root/target/release/dwarv}
echo "input: $(du -m "$bc" | cut -f1) MB bitcode, $(llvm-dis "$bc" -o - | grep -c '^!') metadata lines"
echo "| run | wall s | CPU s | peak MiB |"
echo "|---|---|---|---|"
row() {
  local name=$1; shift
  /usr/bin/time -f "%e %U %S %M" -o "$out/time.txt" "$@" >/dev/null 2>&1
  read -r wall user sys kb < "$out/time.txt"
  printf '| %s | %s | %.2f | %d |\n' "$name" "$wall" "$(echo "$user + $sys" | bc)" $((kb / 1024))
}
row "dwarv convert → opencl100 (standalone)" "$dwarv" convert "$bc" -o "$out/big.dwarv.spv" --flavour opencl100
row "llvm-spirv-14 (ocl-100)" llvm-spirv-14 "$bc" -o "$out/big.peer.spv"
row "opt -disable-output (LLVM parse + verify)" opt -disable-output "$bc"
