#!/usr/bin/env bash
# Every verb's output for every corpus input, for `diff -r` between two builds: what a refactor
# must leave byte for byte the same.
#
#   bash scripts/outputs.sh OUT_DIR            # build release, corpus into OUT_DIR/inputs, results
#   PEER=1 bash scripts/outputs.sh OUT_DIR     # also the peer corpus (../shared, llvm-spirv-14)
#   diff -r BEFORE/results AFTER/results       # empty when nothing changed
#
# Per input and verb, OUT_DIR/results/<input>/<verb>.{out,err,rc} hold stdout, stderr and the exit
# code, beside the files the verb wrote. Commands run inside the input's result folder with
# relative paths, so no path of the machine ends up in the results. DWARV=path picks another
# binary (default: target/release/dwarv, built first).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ $# -eq 1 ] || { echo "usage: bash scripts/outputs.sh OUT_DIR" >&2; exit 2; }
mkdir -p "$1"
out="$(cd "$1" && pwd)"
export DWARV_TOOLS="$repo/.tools/bin"
if [ -z "${DWARV:-}" ]; then
  (cd "$repo" && cargo build --release --quiet)
  DWARV="$repo/target/release/dwarv"
fi
export DWARV

inputs="$out/inputs"
rm -rf "$out/results"
mkdir -p "$inputs" "$out/results"
OUT="$inputs" bash "$repo/corpus/build.sh" >/dev/null
cp "$repo"/corpus/ir/*.dwir "$repo"/tests/regressions/spirv/*.spv "$repo"/tests/regressions/dwarf/*.o \
  "$repo"/tests/llvm/*.ll "$inputs/"

if [ "${PEER:-0}" = 1 ]; then
  peer="$repo/../shared/corpus/llvm-spirv-debuginfo"
  [ -d "$peer" ] || { echo "outputs.sh: no peer corpus at $peer" >&2; exit 1; }
  mkdir -p "$inputs/peer"
  find "$peer" -name '*.ll' | sort | while read -r ll; do
    name="peer/$(realpath --relative-to="$peer" "$ll" | tr / _)"
    llvm-as-14 "$ll" -o "$inputs/$name.bc" 2>/dev/null || continue
    llvm-spirv-14 "$inputs/$name.bc" -o "$inputs/${name%.ll}.spv" >/dev/null 2>&1 || true
    rm -f "$inputs/$name.bc"
  done 2>/dev/null # llvm-spirv-14 aborts on some inputs: keep bash's report of that quiet
  find "$peer" -name '*.spvasm' | sort | while read -r s; do
    name="peer/$(realpath --relative-to="$peer" "$s" | tr / _)"
    "$DWARV_TOOLS/spirv-as" "$s" -o "$inputs/${name%.spvasm}.spv" 2>/dev/null || true
  done
fi

# One input: every verb that applies to its format, each recorded as <verb>.{out,err,rc}.
one() {
  local rel="$1" name dir in kind
  name="$(echo "$rel" | tr / _)"
  dir="$out/results/$name"
  mkdir -p "$dir"
  cd "$dir"
  in="../../inputs/$rel"
  run() { # run VERB ARGS...: the dwarv command, its streams and exit code
    local verb="$1"; shift
    set +e
    "$DWARV" "$@" >"$verb.out" 2>"$verb.err"
    echo $? >"$verb.rc"
    set -e
  }
  case "$rel" in
    *.spv) kind=spirv ;; *.o) kind=dwarf ;; *.ll | *.bc) kind=llvm ;; *.dwir) kind=ir ;; *) kind=other ;;
  esac
  run dump dump "$in"
  run validate validate "$in"
  run stats stats "$in" --json
  run to-ir convert "$in" -o to.dwir --report to-ir.json
  run to-dwarf convert "$in" -o to.o --report to-dwarf.json
  run to-dwarf4 convert "$in" -o to4.o --dwarf-version 4 --amd-op-encoding user
  for f in debuginfo opencl100 shader100 spirv-debug; do
    run "to-$f" convert "$in" -o "to-$f.spv" --flavour "$f" --report "to-$f.json"
  done
  run via-spirv roundtrip "$in" --via spirv
  run via-dwarf roundtrip "$in" --via dwarf
  if [ "$kind" = spirv ]; then
    run own convert "$in" -o own.spv --report own.json
    run through-ir convert "$in" -o through-ir.spv --through-ir --report through-ir.json
    run strip strip "$in" -o code.spv --debug-out side.o
    run attach attach code.spv side.o -o attached.spv
  fi
  if [ "$kind" = llvm ] && [ -f "../../inputs/kernel.nodebug.spv" ]; then
    case "$rel" in kernel.O0.*)
      for f in opencl100 shader100 spirv-debug; do
        run "into-$f" convert "$in" --into ../../inputs/kernel.nodebug.spv -o "into-$f.spv" --flavour "$f"
      done ;;
    esac
  fi
  if [ "$kind" = dwarf ]; then
    run into-self convert "$in" --into "$in" -o into-self.o
  fi
  case "$rel" in visa_gen.dwir) run to-visa convert "$in" -o to.visa --to visa ;; esac
  # A report records where the output went: the same relative name in every run.
  return 0
}
export -f one
export out

(cd "$inputs" && find . -type f \( -name '*.spv' -o -name '*.o' -o -name '*.ll' -o -name '*.bc' -o -name '*.dwir' \) \
  | sed 's|^\./||' | sort) | xargs -P "${JOBS:-2}" -I{} bash -c 'one "$@"' _ {}
echo "outputs.sh: $(find "$out/results" -name '*.rc' | wc -l) runs over $(ls "$out/results" | wc -l) inputs in $out/results"
