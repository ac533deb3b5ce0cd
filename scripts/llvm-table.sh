#!/usr/bin/env bash
# The LLVM → SPIR-V (standalone) table of docs/llvm.md: for every .ll of the peer corpus
# (templates with INPUT_LANGUAGE=DW_LANG_OpenCL) and every flavour: does `dwarv convert` succeed,
# does the output pass .tools/bin/spirv-val (spirv-debug: does `llvm-spirv-14 -r` read it), is
# `dwarv diff in.ll out.spv --ignore-code-positions` empty, and if not, did the writer ledger
# losses. Usage: scripts/llvm-table.sh [corpus-dir] [out-dir]; one TSV row per file×flavour on
# stdout, the summary on stderr.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/shared/corpus/llvm-spirv-debuginfo}
out=${2:-$(mktemp -d)}
dwarv=${DWARV:-$root/target/release/dwarv}
val=${SPIRV_VAL:-$root/.tools/bin/spirv-val}
mkdir -p "$out"
flavours=(debuginfo opencl100 shader100 spirv-debug)
declare -A conv ok clean ledg
n=0
while IFS= read -r f; do
  rel=${f#"$corpus"/}
  key=$(echo "$rel" | tr '/' '_')
  in=$f
  if grep -q INPUT_LANGUAGE "$f"; then
    in=$out/$key
    sed -e 's/INPUT_LANGUAGE/DW_LANG_OpenCL/' "$f" > "$in"
  fi
  n=$((n + 1))
  for fl in "${flavours[@]}"; do
    spv=$out/${key%.ll}.$fl.spv
    rep=$out/${key%.ll}.$fl.json
    c=no v=no d=no l=0
    if "$dwarv" convert "$in" -o "$spv" --flavour "$fl" --report "$rep" 2>"$spv.err"; then
      c=yes
      if [ "$fl" = spirv-debug ]; then
        llvm-spirv-14 -r "$spv" -o "$spv.bc" 2>"$spv.val" && v=yes
      else
        # The writer makes Kernel modules SPIR-V 1.0 and Shader ones 1.3 (back/spirv/module.rs):
        # judge each in its environment, as tests/judges/spirv/conformance.rs does.
        env=vulkan1.2
        [ "$(od -An -tx4 -j4 -N4 "$spv" | tr -d ' ')" = 00010000 ] && env=opencl2.2
        "$val" --target-env "$env" "$spv" >"$spv.val" 2>&1 && v=yes
      fi
      ndiff=$("$dwarv" diff "$in" "$spv" --ignore-code-positions 2>/dev/null | grep -c . )
      [ "$ndiff" = 0 ] && d=yes
      l=$(grep -o '"kind"' "$rep" | wc -l)
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$rel" "$fl" "$c" "$v" "$d" "$l"
    [ $c = yes ] && conv[$fl]=$((${conv[$fl]:-0} + 1))
    [ $v = yes ] && ok[$fl]=$((${ok[$fl]:-0} + 1))
    [ $d = yes ] && clean[$fl]=$((${clean[$fl]:-0} + 1))
    [ $d = no ] && [ $c = yes ] && [ "$l" != 0 ] && ledg[$fl]=$((${ledg[$fl]:-0} + 1))
  done
done < <(find "$corpus" -name '*.ll' | sort)
{
  echo "| flavour | files | converts | spirv-val ok (spirv-debug: llvm-spirv -r reads) | diff empty | diff not empty, writer ledgered losses |"
  echo "|---|---|---|---|---|---|"
  for fl in "${flavours[@]}"; do
    echo "| $fl | $n | ${conv[$fl]:-0} | ${ok[$fl]:-0} | ${clean[$fl]:-0} | ${ledg[$fl]:-0} |"
  done
} >&2
