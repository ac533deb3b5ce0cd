#!/usr/bin/env bash
# dwarv benchmarks, printed as one table. Generates its inputs (cached in $OUT, default
# target/bench): a large OpenCL C program → SPIR-V with OpenCL.DebugInfo.100 (clang-14 -g -O0 +
# llvm-spirv-14) for the in-place rewrite, whose peer is spirv-opt with no passes (parse + write).
#
#   bash bench/run.sh                 # FUNCS=12000 gives a module of about 50 MB
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="${OUT:-target/bench}"
funcs="${FUNCS:-12000}"
mkdir -p "$out"
cargo build --release --quiet
dwarv="${DWARV:-$PWD/target/release/dwarv}" # DWARV=… times another build
spirv_opt="$PWD/.tools/bin/spirv-opt"

big="$out/big_$funcs.spv"
if [ ! -f "$big" ]; then
  echo "generating $big ($funcs functions)…" >&2
  python3 bench/gen_cl.py --funcs "$funcs" --kernels 200 > "$out/big_$funcs.cl"
  clang-14 -target spir64-unknown-unknown -x cl -cl-std=CL2.0 -g -O0 -emit-llvm -c "$out/big_$funcs.cl" -o "$out/big_$funcs.bc"
  llvm-spirv-14 "$out/big_$funcs.bc" -o "$big"
fi

# time_run CMD… → "wall-s user-s sys-s peak-KiB" (the command's stdout is discarded)
# (time writes to its own file: redirecting the command's stderr would silence time too.)
time_run() {
  local t
  t=$(mktemp)
  /usr/bin/time -o "$t" -f "%e %U %S %M" "$@" >/dev/null 2>/dev/null || echo "failed: $*" >&2
  tail -n1 "$t"
  rm -f "$t"
}

# row LABEL CMD… → one table row: wall seconds, MB/s of the input by wall time, CPU seconds
# (user + sys, steadier than wall time on a shared machine), MB/s by CPU time, peak resident MiB
row() {
  local label="$1" secs user sys kib cpu; shift
  read -r secs user sys kib < <(time_run "$@")
  last_wall="$secs"
  cpu=$(echo "$user + $sys" | bc -l)
  printf '%-40s %8s %8.0f %8.2f %8.0f %9d\n' "$label" "$secs" \
    "$(echo "$bytes / 1000000 / ($secs + 0.0001)" | bc -l)" "$cpu" \
    "$(echo "$bytes / 1000000 / ($cpu + 0.0001)" | bc -l)" $((kib / 1024))
}

bytes=$(stat -c %s "$big")
# Share of the words that are debug instructions: the debug-set OpExtInsts, and with them OpLine
# and OpNoLine (what the normal form strips and an in-place rewrite writes anew).
debug_share=$(python3 - "$big" <<'PY'
import array, sys
d = open(sys.argv[1], "rb").read()
w = array.array("I")
w.frombytes(d[: len(d) // 4 * 4])
i, sets, debug, lines = 5, set(), 0, 0
while i < len(w):
    n, op = w[i] >> 16, w[i] & 0xffff
    if op == 11 and b"Debug" in d[4 * (i + 2) : 4 * (i + n)]:
        sets.add(w[i + 1])
    if op == 12 and w[i + 3] in sets:
        debug += n
    if op in (8, 317):
        lines += n
    i += max(n, 1)
print(f"{100 * (debug + lines) / len(w):.1f}% of the input's words (debug-set OpExtInsts {100 * debug / len(w):.1f}%, OpLine/OpNoLine {100 * lines / len(w):.1f}%)")
PY
)
printf '%-40s %8s %8s %8s %8s %9s\n' "benchmark (input $((bytes / 1000000)) MB)" "wall s" "MB/s" "cpu s" "MB/cpu-s" "peak MiB"
for flavour in opencl100 shader100; do
  row "dwarv in-place → $flavour" "$dwarv" convert "$big" -o "$out/out_$flavour.spv" --flavour "$flavour"
done
# Reader only (+ the IR text printer): dump to stdout. Not `-o /dev/null`: the output is written
# atomically (a temporary file renamed over the target), which would replace /dev/null itself.
row "dwarv dump (reader + IR text)" "$dwarv" dump "$big"
row "dwarv validate (reader only)" "$dwarv" validate "$big"
row "spirv-opt (no passes, --skip-validation)" "$spirv_opt" --skip-validation "$big" -o "$out/opt.spv"
[ -n "$debug_share" ] && echo "debug instructions: $debug_share"

# Batch: a corpus of generated shaders (bench/gen_corpus.sh, cached), converted NonSemantic →
# OpenCL.100 with 1 and 2 workers (the outputs are rewritten each time: --force).
shaders="${SHADERS:-1000}"
corpus="$out/shaders_$shaders"
[ -d "$corpus/spv" ] || bash bench/gen_corpus.sh "$corpus" "$shaders"
bytes=$(du -sb "$corpus/spv" | cut -f1)
printf '\n%-40s %8s %8s %8s %8s %9s\n' "batch ($shaders shaders, $((bytes / 1000000)) MB)" "wall s" "MB/s" "cpu s" "MB/cpu-s" "peak MiB"
for jobs in 1 2; do
  row "dwarv batch → opencl100, $jobs job(s)" "$dwarv" batch "$corpus/spv" -o "$out/batch_out" \
    --to spirv --flavour opencl100 --force --quiet --no-stats -j "$jobs"
  eval "wall_$jobs=$last_wall"
done
echo "batch speed-up from 1 to 2 jobs: $(echo "$wall_1 / $wall_2" | bc -l | cut -c1-4)×"
