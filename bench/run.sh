#!/usr/bin/env bash
# dwarv's benchmarks against the peer tools, printed as one table. Generates its inputs once
# (cached in $OUT, default target/bench):
#   - a large OpenCL C program (bench/gen_cl.py, FUNCS functions): its clang-14 -g -O0 spir64
#     bitcode (LLVM → SPIR-V: dwarv vs llvm-spirv-14, with LLVM's own parse + verify as the
#     floor) and llvm-spirv-14's SPIR-V of it (in-place rewrite: dwarv vs spirv-opt);
#   - the sqlite amalgamation (from the libsqlite3-sys crate) compiled by clang-14 -g -O2 for
#     x86-64 (DWARF → IR → DWARF: dwarv vs llvm-dwarfdump --debug-info), alone and linked with
#     corpus/src's prog.c, optimized.c and linked.c (`--into` the program; debug bytes against
#     clang's; paired runs for the time and memory ratios);
#   - SHADERS generated GLSL compute shaders (bench/gen_corpus.sh): dwarv batch with 1 and 2 jobs;
#   - the build step (`into`): the same kind of program at INTO_FUNCS functions (default 6000, a
#     10 MB bitcode, and 4× that, so that growth shows), through the pipelines an LLVM-to-SPIR-V
#     build step runs: (a) llvm-spirv-14 with debug info; (b) opt -strip-debug + llvm-spirv-14 +
#     dwarv --into; (c) llvm-spirv-14 with debug info, then dwarv --into that module (its debug
#     info replaced); with each pipeline's total, dwarv's share and the debug bytes per flavour;
#   - the one-command build step (`translate`), on the same programs: `dwarv translate` against
#     llvm-spirv-14 and the PyPI translator with debug info, pipeline (b) and LLVM's parse; the
#     memory dwarv's processes hold at once (bench/time_run.py --tree), the split
#     `--time` prints, and the same program compiled by clang-15 (LLVM 15's translator library).
#
#   bash bench/run.sh                         # FUNCS=12000 (a ~50 MB SPIR-V module), SHADERS=1000
#   FUNCS=1500 SHADERS=100 bash bench/run.sh  # quick
#   DWARV=/path/to/dwarv bash bench/run.sh    # time another build on the same inputs
#   ONLY="spirv llvm" bash bench/run.sh       # some sections only (spirv llvm dwarf batch into translate)
#   INTO_FUNCS=1500 ONLY=into bash bench/run.sh  # the build step at 1 500 and 6 000 functions
#   INTO_FUNCS=6000 ONLY=translate bash bench/run.sh  # dwarv translate at 6 000 and 24 000
#   REPS=9 bash bench/run.sh                  # timed runs per row (the median is printed)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="${OUT:-target/bench}"
funcs="${FUNCS:-12000}"
shaders="${SHADERS:-1000}"
only="${ONLY:-spirv llvm dwarf batch into translate}"
mkdir -p "$out"
cargo build --release --quiet
dwarv="${DWARV:-$PWD/target/release/dwarv}"
spirv_opt="$PWD/.tools/bin/spirv-opt"
dpcpp="$PWD/.tools/bin/llvm-spirv-dpcpp"
wants() { [[ " $only " == *" $1 "* ]]; }

# time_run CMD… → "wall-s user-s sys-s peak-KiB" (output discarded; children CMD waited for,
# e.g. dwarv's LLVM child, counted), to the microsecond (bench/time_run.py). `time_run --tree
# CMD…` adds "pss-KiB processes": the most memory CMD and its descendants held at one time.
time_run() { python3 bench/time_run.py "$@"; }

# row LABEL BYTES CMD… → wall seconds, input MB/s by wall time, CPU seconds (user + sys, steadier
# on a shared machine), input MB/s by CPU time, peak resident MiB: the run of median wall time
# out of REPS (default 5) after one untimed warm-up run (page cache, binary pages), since this
# virtual machine's page-fault cost alone varies several-fold from run to run. `before=CMD row …`
# runs CMD ahead of each timed run. Sets last_wall/last_cpu/last_kib.
reps="${REPS:-5}"
row() {
  local label="$1" bytes="$2" secs user sys kib cpu runs
  shift 2
  "$@" >/dev/null 2>&1 || true
  runs=$(for _ in $(seq "$reps"); do ${before:-true}; time_run "$@"; done | sort -n)
  read -r secs user sys kib < <(sed -n "$(((reps + 1) / 2))p" <<<"$runs")
  cpu=$(echo "$user + $sys" | bc -l)
  last_wall="$secs" last_cpu="$cpu" last_kib="$kib"
  printf '%-46s %8.2f %8.0f %8.2f %8.0f %9d\n' "$label" "$secs" \
    "$(echo "$bytes / 1000000 / ($secs + 0.0001)" | bc -l)" "$cpu" \
    "$(echo "$bytes / 1000000 / ($cpu + 0.0001)" | bc -l)" $((kib / 1024))
}
ratio() { printf '%.2f' "$(echo "$1 / ($2 + 0.0001)" | bc -l)"; }

# pair LABEL_A LABEL_B "CMD_A" "CMD_B" → two rows (each the median of REPS runs) and the ratios
# A/B of wall time, CPU time and peak memory taken run by run, A and B in turn (A B A B …, after
# one warm-up run of each), the median printed: pairing keeps a ratio meaningful while the
# shared machine's speed drifts. The commands are strings (run with exec, no shell left over).
pair() {
  local la="$1" lb="$2" ca="$3" cb="$4" a b wa ua sa ka wb ub sb kb i
  bash -c "exec $ca" >/dev/null 2>&1 || true
  bash -c "exec $cb" >/dev/null 2>&1 || true
  local rows=()
  for i in $(seq "$reps"); do
    read -r wa ua sa ka < <(time_run bash -c "exec $ca")
    read -r wb ub sb kb < <(time_run bash -c "exec $cb")
    rows+=("$wa $(echo "$ua + $sa" | bc -l) $ka $wb $(echo "$ub + $sb" | bc -l) $kb")
  done
  # column N's median over the pairs; ratio columns as A/B per pair.
  med() { printf '%s\n' "${rows[@]}" | awk "{print $1}" | sort -g | sed -n "$(((reps + 1) / 2))p"; }
  a="$(med '$1') $(med '$2') $(med '$3')"
  b="$(med '$4') $(med '$5') $(med '$6')"
  printf '%-46s %8.2f %8s %8.2f %8s %9d\n' "$la" $(cut -d' ' -f1 <<<"$a") "" $(cut -d' ' -f2 <<<"$a") "" $(($(cut -d' ' -f3 <<<"$a") / 1024))
  printf '%-46s %8.2f %8s %8.2f %8s %9d\n' "$lb" $(cut -d' ' -f1 <<<"$b") "" $(cut -d' ' -f2 <<<"$b") "" $(($(cut -d' ' -f3 <<<"$b") / 1024))
  pair_a="$a" pair_b="$b" # "wall cpu peak-KiB", the medians of A's and B's runs
  pair_wall=$(printf '%.2f' "$(med '$1 / ($4 + 0.0001)')")
  pair_cpu=$(printf '%.2f' "$(med '$2 / ($5 + 0.0001)')")
  pair_peak=$(printf '%.2f' "$(med '$3 / $6')")
}

# Bytes of an ELF file's .debug_* sections.
debug_bytes() { size -A "$1" | awk '$1 ~ /^\.debug_/ { s += $2 } END { print s + 0 }'; }
section() { printf '%s\n' "-- $*"; }

bc="$out/big_$funcs.bc"
big="$out/big_$funcs.spv"
if { wants spirv || wants llvm; } && [ ! -f "$big" ]; then
  echo "generating $bc and $big ($funcs functions)…" >&2
  python3 bench/gen_cl.py --funcs "$funcs" --kernels 200 > "$out/big_$funcs.cl"
  clang-14 -target spir64-unknown-unknown -x cl -cl-std=CL2.0 -g -O0 -emit-llvm -c \
    "$out/big_$funcs.cl" -o "$bc"
  llvm-spirv-14 "$bc" -o "$big"
fi

printf '%-46s %8s %8s %8s %8s %9s\n' "benchmark" "wall s" "MB/s" "cpu s" "MB/cpu-s" "peak MiB"

if wants spirv; then
  bytes=$(stat -c %s "$big")
  # Share of debug words: the debug-set OpExtInsts, and OpLine/OpNoLine (what the normal form
  # strips and an in-place rewrite writes anew).
  share=$(python3 - "$big" <<'PY'
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
print(f"{100 * (debug + lines) / len(w):.1f}% debug words")
PY
)
  section "SPIR-V in place: $((bytes / 1000000)) MB OpenCL.DebugInfo.100 module, $share"
  # Each run starts from the input in the page cache and nothing left to write back: this VM's
  # reclaimer (DAMON) evicts idle file pages within seconds, and an fsync waits for whatever
  # else is dirty (ext4's ordered journal), which made runs of the same command differ 3×.
  warm_spirv() {
    rm -f "$out"/out_*.spv "$out/opt.spv"
    sync
    cat "$big" >/dev/null
  }
  # Into its own set the module is ordered and repaired on its words (spirv::own_set);
  # --through-ir re-encodes every entity, as a conversion into a set not converted on the words does.
  before=warm_spirv row "dwarv in-place -> opencl100 (own set)" "$bytes" "$dwarv" convert "$big" -o "$out/out_opencl100.spv" --flavour opencl100 --report "$out/out_opencl100.json"
  own_wall=$last_wall
  how=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["in_place"])' "$out/out_opencl100.json")
  echo "   in place into its own set: $(echo "$bytes / 1000000 / ($own_wall + 0.0001)" | bc -l | xargs printf '%.0f') MB/s by wall time (target ≥ 500), $how"
  before=warm_spirv row "dwarv in-place -> opencl100 --through-ir" "$bytes" "$dwarv" convert "$big" -o "$out/out_opencl100_ir.spv" --flavour opencl100 --through-ir
  # set_to_set WARM IN BYTES FLAVOUR NAME LABEL WHAT: IN converted into FLAVOUR on its words
  # (spirv::own_set::convert) and through the IR (the rows "LABEL (set to set)" and "LABEL
  # --through-ir"), WARM run ahead of each run; the MB/s against the 300 MB/s target, and whether
  # the outputs read back alike (dwarv diff) and the words one validates. Keeps the words output
  # as $out/words_NAME.spv.
  set_to_set() {
    local warm="$1" in="$2" n="$3" flavour="$4" name="$5" label="$6" what="$7" wall cpu how same valid
    before=$warm row "$label (set to set)" "$n" "$dwarv" convert "$in" -o "$out/out_$name.spv" --flavour "$flavour" --report "$out/out_$name.json"
    wall=$last_wall cpu=$last_cpu
    # (WARM removes out_*.spv before each run.)
    mv "$out/out_$name.spv" "$out/words_$name.spv"
    how=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["in_place"])' "$out/out_$name.json")
    echo "   $what on its words: $(echo "$n / 1000000 / ($wall + 0.0001)" | bc -l | xargs printf '%.0f') MB/s by wall time, $(echo "$n / 1000000 / ($cpu + 0.0001)" | bc -l | xargs printf '%.0f') MB/s by CPU time (target ≥ 300), $how"
    before=$warm row "$label --through-ir" "$n" "$dwarv" convert "$in" -o "$out/out_${name}_ir.spv" --flavour "$flavour" --through-ir
    same=$("$dwarv" diff "$out/words_$name.spv" "$out/out_${name}_ir.spv" >/dev/null 2>&1 && echo "equal" || echo "DIFFERENT")
    valid=$("$PWD/.tools/bin/spirv-val" "$out/words_$name.spv" >/dev/null 2>&1 && echo "clean" || echo "FAILS")
    echo "   set to set vs --through-ir: dwarv diff $same; spirv-val $valid"
  }
  # Into NonSemantic.100, converted on its words, against the same conversion through the IR.
  set_to_set warm_spirv "$big" "$bytes" shader100 shader100 "dwarv in-place -> shader100" "into another set"
  # The reverse direction: NonSemantic.100 into OpenCL.100 on its words, from the module converted
  # into shader100 above (DebugFunctionDefinitions out of its code, members' Parents and
  # functions' Function operands back, numbers into literals).
  ns="$out/big_$funcs.shader100.spv"
  cp "$out/words_shader100.spv" "$ns"
  # warm_file FILE: as warm_spirv, for another input (`before` splits "warm_file PATH" in two).
  warm_file() {
    rm -f "$out"/out_*.spv
    sync
    cat "$1" >/dev/null
  }
  set_to_set "warm_file $ns" "$ns" "$(stat -c %s "$ns")" opencl100 back "dwarv shader100 -> opencl100" "back into OpenCL.100"
  # Into .200 on its words, from OpenCL.100 (checksums into operands, counts into
  # DebugTypeSubranges, typedefs kept) and from NonSemantic.100.
  set_to_set warm_spirv "$big" "$bytes" shader200 shader200 "dwarv in-place -> shader200" "into .200"
  set_to_set "warm_file $ns" "$ns" "$(stat -c %s "$ns")" shader200 ns200 "dwarv shader100 -> shader200" "NonSemantic.100 into .200"
  # Out of .200 on its words (its subranges into counts, checksums into llvm-spirv's text),
  # from the module converted into .200 above.
  s200="$out/big_$funcs.shader200.spv"
  cp "$out/words_shader200.spv" "$s200"
  set_to_set "warm_file $s200" "$s200" "$(stat -c %s "$s200")" opencl100 from200 "dwarv shader200 -> opencl100" ".200 into OpenCL.100"
  set_to_set "warm_file $s200" "$s200" "$(stat -c %s "$s200")" shader100 from200ns "dwarv shader200 -> shader100" ".200 into NonSemantic.100"
  # Not `-o /dev/null`: outputs are written atomically, which would replace /dev/null itself.
  before=warm_spirv row "dwarv validate (reader only)" "$bytes" "$dwarv" validate "$big"
  before=warm_spirv row "spirv-opt (no passes, --skip-validation)" "$bytes" "$spirv_opt" --skip-validation "$big" -o "$out/opt.spv"
fi

if wants llvm; then
  bytes=$(stat -c %s "$bc")
  section "LLVM → SPIR-V: $((bytes / 1000000)) MB bitcode, $(llvm-dis "$bc" -o - | grep -c '^!') metadata lines"
  row "dwarv convert big.bc -> opencl100" "$bytes" "$dwarv" convert "$bc" -o "$out/llvm.dwarv.spv" --flavour opencl100
  d_wall=$last_wall d_cpu=$last_cpu d_kib=$last_kib
  row "llvm-spirv-14 big.bc" "$bytes" llvm-spirv-14 "$bc" -o "$out/llvm.peer.spv"
  echo "   dwarv / llvm-spirv-14: time $(ratio "$d_wall" "$last_wall")× wall, $(ratio "$d_cpu" "$last_cpu")× CPU; peak memory $(ratio "$d_kib" "$last_kib")× (targets ≤ 0.35×, ≤ 0.4×)"
  row "opt -disable-output (LLVM parse + verify)" "$bytes" opt-14 -disable-output "$bc"
  # The same program compiled by clang-19 (LLVM 19 bitcode, read by dwarv's LLVM 19 reader),
  # against LLVM 19's own parse + verify (target: within 1.2× of it).
  bc19="$out/big_$funcs.clang19.bc"
  if [ ! -f "$bc19" ]; then
    clang-19 -target spir64-unknown-unknown -x cl -cl-std=CL2.0 -g -O0 -emit-llvm -c \
      "$out/big_$funcs.cl" -o "$bc19"
  fi
  bytes=$(stat -c %s "$bc19")
  section "LLVM 19 → SPIR-V: $((bytes / 1000000)) MB bitcode (clang-19), $(llvm-dis-19 "$bc19" -o - | grep -c '^!') metadata lines"
  row "dwarv convert big.clang19.bc -> opencl100" "$bytes" "$dwarv" convert "$bc19" -o "$out/llvm19.dwarv.spv" --flavour opencl100
  d_wall=$last_wall d_cpu=$last_cpu
  row "opt-19 -disable-output (LLVM 19 parse + verify)" "$bytes" opt-19 -disable-output "$bc19"
  echo "   dwarv / opt-19: $(ratio "$d_wall" "$last_wall")× wall, $(ratio "$d_cpu" "$last_cpu")× CPU (target ≤ 1.2×)"
fi

# The sqlite amalgamation as the crate libsqlite3-sys 0.30.1 ships it, fetched by cargo itself
# (a throwaway manifest, `cargo fetch`), so that a mirror, a proxy or an offline vendor directory
# that cargo is configured for serves it too; prints the path of sqlite3.c.
sqlite_source() {
  local dir="$1/fetch-sqlite" registry="${CARGO_HOME:-$HOME/.cargo}/registry" src crate
  mkdir -p "$dir/src"
  touch "$dir/src/lib.rs"
  cat >"$dir/Cargo.toml" <<'TOML'
[package]
name = "fetch-sqlite"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
libsqlite3-sys = { version = "=0.30.1", features = ["bundled"] }

[workspace]
TOML
  echo "fetching the sqlite amalgamation through cargo (crate libsqlite3-sys 0.30.1)…" >&2
  cargo fetch --quiet --manifest-path "$dir/Cargo.toml" >&2
  src=$(ls "$registry"/src/*/libsqlite3-sys-0.30.1/sqlite3/sqlite3.c 2>/dev/null | head -1 || true)
  if [ -z "$src" ]; then # fetched but not unpacked: take it from the downloaded crate
    crate=$(ls "$registry"/cache/*/libsqlite3-sys-0.30.1.crate | head -1)
    tar -xzf "$crate" -C "$dir" libsqlite3-sys-0.30.1/sqlite3/sqlite3.c
    src="$dir/libsqlite3-sys-0.30.1/sqlite3/sqlite3.c"
  fi
  echo "$src"
}

if wants dwarf; then
  obj="$out/sqlite3.O2.o"
  if [ ! -f "$obj" ]; then
    src=$(sqlite_source "$out")
    echo "compiling $src (clang-14 -g -O2)…" >&2
    clang-14 -g -O2 -c "$src" -o "$obj"
  fi
  bytes=$(stat -c %s "$obj")
  section "DWARF: sqlite3 amalgamation, clang-14 -g -O2 x86-64 object, $((bytes / 1000000)) MB"
  row "dwarv convert sqlite3.o -> DWARF" "$bytes" "$dwarv" convert "$obj" -o "$out/sqlite3.dwarv.o" --to dwarf
  d_wall=$last_wall d_cpu=$last_cpu
  row "dwarv validate sqlite3.o (reader only)" "$bytes" "$dwarv" validate "$obj"
  row "llvm-dwarfdump --debug-info sqlite3.o" "$bytes" llvm-dwarfdump-14 --debug-info "$obj"
  echo "   dwarv convert / llvm-dwarfdump: $(ratio "$d_wall" "$last_wall")× wall, $(ratio "$d_cpu" "$last_cpu")× CPU (target ≤ 1.0×)"
  same=$("$dwarv" diff "$obj" "$out/sqlite3.dwarv.o" >/dev/null 2>&1 && echo "same IR (dwarv diff exit 0)" || echo "IR DIFFERS")
  verified=$(llvm-dwarfdump-14 --verify "$out/sqlite3.dwarv.o" 2>&1 | tail -n1)
  echo "   output: $same; llvm-dwarfdump --verify: $verified"
  pair "dwarv convert sqlite3.o (paired)" "llvm-dwarfdump --debug-info sqlite3.o (paired)" \
    "'$dwarv' convert '$obj' -o '$out/sqlite3.dwarv.o' --to dwarf" "llvm-dwarfdump-14 --debug-info '$obj'"
  echo "   paired, median of $reps: time $pair_wall× wall, $pair_cpu× CPU (target ≤ 1.0×); peak memory $pair_peak× (target ≤ 1.5×)"
  echo "   debug bytes: dwarv $(debug_bytes "$out/sqlite3.dwarv.o"), clang-14 $(debug_bytes "$obj") ($(ratio "$(debug_bytes "$out/sqlite3.dwarv.o")" "$(debug_bytes "$obj")")×)"

  # A linked program: corpus/src prog.c, optimized.c and linked.c with the sqlite object, as
  # tests/judges/dwarf/linked.rs builds it (clang-14 -g -O2, DWARF 5); its debug sections replaced
  # (`--into`), against clang's.
  prog="$out/linked.O2"
  if [ ! -f "$prog" ]; then
    abs_out=$(cd "$out" && pwd)
    for n in prog optimized linked; do
      (cd corpus/src && clang-14 -g -O2 -fPIC -c "$n.c" -o "$abs_out/$n.O2.o")
    done
    clang-14 -o "$prog" "$out/prog.O2.o" "$out/optimized.O2.o" "$out/linked.O2.o" "$obj" -lm -lpthread
  fi
  bytes=$(stat -c %s "$prog")
  section "DWARF: linked program (4 units, sqlite's among them), clang-14 -g -O2, $((bytes / 1000000)) MB"
  pair "dwarv convert linked --into linked (paired)" "llvm-dwarfdump --debug-info linked (paired)" \
    "'$dwarv' convert '$prog' --to dwarf --into '$prog' -o '$out/linked.dwarv'" "llvm-dwarfdump-14 --debug-info '$prog'"
  echo "   paired, median of $reps: time $pair_wall× wall, $pair_cpu× CPU (target ≤ 1.0×); peak memory $pair_peak× (target ≤ 1.5×)"
  mine=$(debug_bytes "$out/linked.dwarv") theirs=$(debug_bytes "$prog")
  echo "   debug bytes: dwarv $mine, clang-14 $theirs ($(ratio "$mine" "$theirs")×, target ≤ 1.05×); llvm-dwarfdump --verify: $(llvm-dwarfdump-14 --verify "$out/linked.dwarv" 2>&1 | tail -n1)"
fi

if wants batch; then
  corpus="$out/shaders_$shaders"
  [ -d "$corpus/spv" ] || bash bench/gen_corpus.sh "$corpus" "$shaders"
  bytes=$(du -sb "$corpus/spv" | cut -f1)
  section "batch: $shaders generated GLSL shaders, $((bytes / 1000000)) MB, NonSemantic → OpenCL.100"
  for jobs in 1 2; do
    # The batch syncs its outputs at the end: each run starts with nothing else dirty.
    before=sync row "dwarv batch, $jobs job(s)" "$bytes" "$dwarv" batch "$corpus/spv" -o "$out/batch_out" \
      --to spirv --flavour opencl100 --force --quiet --no-stats -j "$jobs"
    eval "wall_$jobs=$last_wall"
  done
  echo "   speed-up from 1 to 2 jobs: $(ratio "$wall_1" "$wall_2")× (target ≥ 1.8×)"
fi

# build_step_program P N: the build step's program of N functions (N/15 kernels), P.cl and its
# clang-14 -g -O0 bitcode P.bc, generated once (sections `into` and `translate`).
build_step_program() {
  local p="$1" n="$2"
  [ -f "$p.bc" ] && return
  echo "generating $p.bc ($n functions)…" >&2
  python3 bench/gen_cl.py --funcs "$n" --kernels $((n / 15)) >"$p.cl"
  clang-14 -target spir64-unknown-unknown -x cl -cl-std=CL2.0 -g -O0 -emit-llvm -c "$p.cl" -o "$p.bc"
}

# The build step: `dwarv convert x.bc --into code.spv`, where code.spv is llvm-spirv-14's
# translation of the module without its debug info (what an LLVM-to-SPIR-V build step has in
# hand), at two sizes. Inputs cached in $out/into/.
if wants into; then
  n1="${INTO_FUNCS:-6000}"
  dir="$out/into"
  mkdir -p "$dir"
  for n in "$n1" $((4 * n1)); do
    p="$dir/b$n"
    build_step_program "$p" "$n"
    if [ ! -f "$p.code.spv" ]; then
      opt-14 -strip-debug "$p.bc" -o "$p.nodbg.bc"
      llvm-spirv-14 "$p.nodbg.bc" -o "$p.code.spv"
      llvm-spirv-14 "$p.bc" -o "$p.peer.spv"
    fi
    bytes=$(stat -c %s "$p.bc")
    section "build step: $n functions, $((bytes / 1000000)) MB bitcode (clang-14 -g -O0)"
    row "dwarv convert --into code.spv (opencl100)" "$bytes" "$dwarv" convert "$p.bc" --into "$p.code.spv" -o "$p.into.spv" --flavour opencl100
    into_wall=$last_wall into_kib=$last_kib
    eval "into_wall_$n=$last_wall"
    row "opt -disable-output (LLVM parse + verify)" "$bytes" opt-14 -disable-output "$p.bc"
    floor=$last_wall
    row "(a) llvm-spirv-14 (code + debug info)" "$bytes" llvm-spirv-14 "$p.bc" -o "$p.a.spv"
    a_wall=$last_wall a_kib=$last_kib
    row "(b) opt -strip-debug + llvm-spirv-14 + --into" "$bytes" bash -c "opt-14 -strip-debug '$p.bc' -o '$p.b.bc' && llvm-spirv-14 '$p.b.bc' -o '$p.b.code.spv' && '$dwarv' convert '$p.bc' --into '$p.b.code.spv' -o '$p.b.spv' --flavour opencl100"
    b_wall=$last_wall
    row "(c) llvm-spirv-14 + --into (debug replaced)" "$bytes" bash -c "llvm-spirv-14 '$p.bc' -o '$p.c.peer.spv' && '$dwarv' convert '$p.bc' --into '$p.c.peer.spv' -o '$p.c.spv' --flavour opencl100"
    c_wall=$last_wall
    echo "   --into / opt -disable-output: $(ratio "$into_wall" "$floor")× wall (target ≤ 1.3×); peak memory / llvm-spirv-14's: $(ratio "$into_kib" "$a_kib")× (target ≤ 0.4×)"
    # dwarv's share: (b) its --into row over the pipeline; (c) the pipeline less (a), over it.
    echo "   pipelines: (a) $a_wall s; (b) $b_wall s, dwarv's share $(ratio "$into_wall" "$b_wall"); (c) $c_wall s, dwarv's share $(ratio "$(echo "$c_wall - $a_wall" | bc -l)" "$c_wall")"
    # Debug bytes: the output less the code module (the same code; llvm-spirv-14's own output
    # keeps a few constants its debug info used, counted as debug bytes here too).
    code=$(stat -c %s "$p.code.spv")
    sizes="llvm-spirv-14 $(($(stat -c %s "$p.peer.spv") - code))"
    if [ -x "$dpcpp" ]; then
      "$dpcpp" --spirv-debug-info-version=nonsemantic-shader-100 "$p.bc" -o "$p.dpcpp100.spv" 2>/dev/null &&
        sizes="$sizes, dpcpp-llvm-spirv nonsemantic-shader-100 $(($(stat -c %s "$p.dpcpp100.spv") - code))"
    fi
    for fl in opencl100 spirv-debug shader100; do
      "$dwarv" convert "$p.bc" --into "$p.code.spv" -o "$p.$fl.spv" --flavour "$fl" 2>/dev/null
      sizes="$sizes, dwarv $fl $(($(stat -c %s "$p.$fl.spv") - code))"
    done
    echo "   debug bytes (output − code module): $sizes"
  done
  eval "small=\$into_wall_$n1 big=\$into_wall_$((4 * n1))"
  echo "   --into at 4× the functions: $(ratio "$big" "$small")× the time (target ≤ 4.5×)"
fi

# The median of column N of ROWS (lines of numbers): tmed ROWS N.
tmed() { awk "{print \$$2}" <<<"$1" | sort -g | sed -n "$(((reps + 1) / 2))p"; }

# translate_split OPT BC OUT: REPS runs of LLVM's parse (`OPT -disable-output BC`, the floor)
# and of `dwarv translate BC -o OUT --time`, in turn; sets split_floor, split_read, split_lower,
# split_wait, split_tie, split_total (medians, seconds) and split_adds: the median over the
# pairs of dwarv's additions — what its read takes beyond LLVM's parse, plus the tie and the
# write — over the parse.
translate_split() {
  local opt="$1" bc="$2" o="$3" rows="" f t
  for _ in $(seq "$reps"); do
    f=$(time_run "$opt" -disable-output "$bc" | cut -d' ' -f1)
    "$dwarv" translate "$bc" -o "$o" --time 2>"$o.time" >/dev/null
    t=$(sed -nE 's/.*read ([0-9.]+) s.*lower ([0-9.]+) s.*translator wait ([0-9.]+) s.*tie and write ([0-9.]+) s.*total ([0-9.]+) s.*/\1 \2 \3 \4 \5/p' "$o.time")
    rows+="$f $t"$'\n'
  done
  rows=${rows%$'\n'}
  split_floor=$(tmed "$rows" 1) split_read=$(tmed "$rows" 2) split_lower=$(tmed "$rows" 3)
  split_wait=$(tmed "$rows" 4) split_tie=$(tmed "$rows" 5) split_total=$(tmed "$rows" 6)
  split_adds=$(printf '%.2f' "$(awk '{print ($2 - $1 + $5) / $1}' <<<"$rows" | sort -g | sed -n "$(((reps + 1) / 2))p")")
}
# split_line LABEL: translate_split's figures, two lines.
split_line() {
  echo "   --time, $1 (median of $reps, each run beside one of LLVM's parse): read $split_read s (LLVM's parse + the model) · lower $split_lower s (beside the translator) · translator wait $split_wait s · tie and write $split_tie s · total $split_total s"
  echo "   dwarv's additions, $1: (read − opt's $(printf '%.2f' "$split_floor") s) + tie and write = $split_adds× the parse (target ≤ 0.3×); tie and write alone: $(ratio "$split_tie" "$split_floor")× the parse"
}

# The one-command build step: `dwarv translate x.bc -o x.spv` (one parse: LLVM's child hands the
# debug info over, then translates the code with libLLVMSPIRVLib.so.14 in process while dwarv
# lowers it; then the tie and the write), on the `into` section's programs, against what it
# replaces: (a) llvm-spirv-14 translating code and debug info, the PyPI translator doing the same,
# pipeline (b), and LLVM's own parse + verify (the floor).
if wants translate; then
  n1="${INTO_FUNCS:-6000}"
  dir="$out/into"
  mkdir -p "$dir"
  for n in "$n1" $((4 * n1)); do
    p="$dir/b$n"
    build_step_program "$p" "$n"
    bytes=$(stat -c %s "$p.bc")
    section "translate: $n functions, $((bytes / 1000000)) MB bitcode (clang-14 -g -O0)"
    # Paired against (a): the ratios hold while the machine's speed drifts.
    pair "dwarv translate (opencl100, paired)" "(a) llvm-spirv-14 (code + debug, paired)" \
      "'$dwarv' translate '$p.bc' -o '$p.t.spv'" "llvm-spirv-14 '$p.bc' -o '$p.a.spv'"
    t_wall=$pair_wall t_peak=$pair_peak
    vs_dpcpp=""
    if [ -x "$dpcpp" ]; then
      row "llvm-spirv-dpcpp (PyPI 2024.2, code + debug)" "$bytes" "$dpcpp" "$p.bc" -o "$p.dpcpp.spv"
      vs_dpcpp="; against the PyPI translator's row: $(ratio "$(cut -d' ' -f1 <<<"$pair_a")" "$last_wall")× wall"
    fi
    row "(b) opt -strip-debug + llvm-spirv-14 + --into" "$bytes" bash -c "opt-14 -strip-debug '$p.bc' -o '$p.b.bc' && llvm-spirv-14 '$p.b.bc' -o '$p.b.code.spv' && '$dwarv' convert '$p.bc' --into '$p.b.code.spv' -o '$p.b.spv' --flavour opencl100"
    row "opt -disable-output (LLVM parse + verify)" "$bytes" opt-14 -disable-output "$p.bc"
    echo "   translate / (a): $t_wall× wall (target ≤ 0.8×); peak memory $t_peak× (target ≤ 0.8×; the largest single process, as GNU time counts it)$vs_dpcpp"
    # The memory held at one time, dwarv's processes together (time_run --tree: their Pss summed,
    # sampled; sampling costs time, so these runs are not timed), against (a) measured the same way.
    tree_rows=$(for _ in $(seq "$reps"); do
      time_run --tree "$dwarv" translate "$p.bc" -o "$p.t.spv" | cut -d' ' -f5-6
    done)
    peer_rows=$(for _ in $(seq "$reps"); do
      time_run --tree llvm-spirv-14 "$p.bc" -o "$p.a.spv" | cut -d' ' -f5
    done)
    held=$(tmed "$tree_rows" 1) nproc=$(tmed "$tree_rows" 2) peer=$(tmed "$peer_rows" 1)
    echo "   memory held at once (Pss of all the processes summed, sampled every 10 ms; median of $reps): dwarv $((held / 1024)) MiB in $nproc processes, (a) $((peer / 1024)) MiB: $(ratio "$held" "$peer")× (target ≤ 0.8×)"
    translate_split opt-14 "$p.bc" "$p.t.spv"
    split_line "LLVM 14"
    eval "t_wall_$n=$(cut -d' ' -f1 <<<"$pair_a")"
    # The LLVM 15 translator library: the same program compiled by clang-15, read by LLVM 15 and
    # translated by libLLVMSPIRVLib.so.15, against the clang-14 bitcode (paired).
    if [ "$n" = "$n1" ] && command -v clang-15 >/dev/null; then
      if [ ! -f "$p.clang15.bc" ]; then
        clang-15 -target spir64-unknown-unknown -x cl -cl-std=CL2.0 -g -O0 -emit-llvm -c "$p.cl" -o "$p.clang15.bc"
      fi
      b15=$(stat -c %s "$p.clang15.bc")
      section "translate, LLVM 15: the same $n functions compiled by clang-15, $((b15 / 1000000)) MB bitcode"
      pair "dwarv translate clang-15 .bc (LLVM 15 library)" "dwarv translate clang-14 .bc (LLVM 14 library)" \
        "'$dwarv' translate '$p.clang15.bc' -o '$p.t15.spv'" "'$dwarv' translate '$p.bc' -o '$p.t.spv'"
      echo "   LLVM 15 / LLVM 14: $pair_wall× wall, $pair_cpu× CPU, $pair_peak× peak memory"
      translate_split opt-15 "$p.clang15.bc" "$p.t15.spv"
      split_line "LLVM 15"
      row "llvm-spirv-15 clang-15 .bc (code + debug)" "$b15" llvm-spirv-15 "$p.clang15.bc" -o "$p.a15.spv"
      row "opt-15 -disable-output (LLVM 15 parse + verify)" "$b15" opt-15 -disable-output "$p.clang15.bc"
    fi
  done
  # Growth, paired (the two sizes in turn), with LLVM's own parse for comparison.
  section "translate: $((4 * n1)) against $n1 functions"
  pair "dwarv translate, $((4 * n1)) functions (paired)" "dwarv translate, $n1 functions (paired)" \
    "'$dwarv' translate '$dir/b$((4 * n1)).bc' -o '$dir/b$((4 * n1)).t.spv'" "'$dwarv' translate '$dir/b$n1.bc' -o '$dir/b$n1.t.spv'"
  grow_wall=$pair_wall grow_cpu=$pair_cpu
  pair "opt -disable-output, $((4 * n1)) functions (paired)" "opt -disable-output, $n1 functions (paired)" \
    "opt-14 -disable-output '$dir/b$((4 * n1)).bc'" "opt-14 -disable-output '$dir/b$n1.bc'"
  echo "   translate at 4× the functions: $grow_wall× the wall time, $grow_cpu× the CPU time (target ≤ 4.5×); LLVM's parse: $pair_wall×, $pair_cpu×"
  eval "small=\$t_wall_$n1 big=\$t_wall_$((4 * n1))"
  echo "   (from the two sizes' own paired rows, run minutes apart: $(ratio "$big" "$small")× the wall time)"
fi
