#!/usr/bin/env bash
# The --into table of docs/llvm.md: for every .ll of a corpus (templates with
# INPUT_LANGUAGE=DW_LANG_OpenCL) whose debug-stripped module llvm-spirv-14 translates
# (code.spv): `dwarv convert file.ll --into code.spv -o out.spv --flavour F` for F in opencl100
# and spirv-debug; spirv-val of out.spv whenever code.spv passes (opencl100); and whether
# `llvm-spirv-14 -r out.spv` reads it back with the same count of each `!DIKind(` as the input
# (both through llvm-dis). Usage: scripts/llvm-into-table.sh [corpus-dir] [out-dir]; TSV rows on
# stdout, the summary on stderr.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/shared/corpus/llvm-spirv-debuginfo}
out=${2:-$(mktemp -d)}
dwarv=${DWARV:-$root/target/release/dwarv}
val=${SPIRV_VAL:-$root/.tools/bin/spirv-val}
mkdir -p "$out"
counts() { llvm-dis "$1" -o - 2>/dev/null | grep -o '!DI[A-Za-z]*(' | sort | uniq -c; }
env_of() { case "$(od -An -tx4 -j4 -N4 "$1" | tr -d ' ')" in
  00010000|00010100|00010200) echo opencl2.2;; 00010300) echo spv1.3;; 00010400) echo spv1.4;;
  00010500) echo spv1.5;; *) echo spv1.6;; esac; }
n=0 translated=0
declare -A conv valok valn same
while IFS= read -r f; do
  rel=${f#"$corpus"/}; key=$(echo "$rel" | tr '/' '_'); key=${key%.ll}
  in=$f
  if grep -q INPUT_LANGUAGE "$f"; then in=$out/$key.ll; sed -e 's/INPUT_LANGUAGE/DW_LANG_OpenCL/' "$f" > "$in"; fi
  n=$((n + 1))
  llvm-as "$in" -o "$out/$key.bc" 2>/dev/null || llvm-as -opaque-pointers "$in" -o "$out/$key.bc" 2>/dev/null || continue
  opt -strip-debug "$out/$key.bc" -o "$out/$key.nodebug.bc" 2>/dev/null || continue
  llvm-spirv-14 "$out/$key.nodebug.bc" -o "$out/$key.code.spv" 2>/dev/null || continue
  translated=$((translated + 1))
  counts "$out/$key.bc" > "$out/$key.in.counts"
  codeok=no; "$val" --target-env "$(env_of "$out/$key.code.spv")" "$out/$key.code.spv" >/dev/null 2>&1 && codeok=yes
  for fl in opencl100 spirv-debug; do
    o=$out/$key.$fl.spv c=no v=- s=no
    if "$dwarv" convert "$in" --into "$out/$key.code.spv" -o "$o" --flavour "$fl" 2>"$o.err"; then
      c=yes; conv[$fl]=$((${conv[$fl]:-0} + 1))
      if [ "$fl" = opencl100 ] && [ $codeok = yes ]; then
        valn[$fl]=$((${valn[$fl]:-0} + 1)); v=no
        "$val" --target-env "$(env_of "$o")" "$o" >"$o.val" 2>&1 && { v=yes; valok[$fl]=$((${valok[$fl]:-0} + 1)); }
      fi
      if llvm-spirv-14 -r "$o" -o "$o.bc" 2>/dev/null; then
        counts "$o.bc" > "$o.counts"
        cmp -s "$out/$key.in.counts" "$o.counts" && { s=yes; same[$fl]=$((${same[$fl]:-0} + 1)); }
      fi
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$rel" "$fl" "$codeok" "$c" "$v" "$s"
  done
done < <(find "$corpus" -name '*.ll' | sort)
{
  echo "files: $n; code.spv translated by llvm-spirv-14: $translated"
  echo "| flavour | converts | spirv-val ok / code.spv valid | llvm-spirv -r: same DI counts |"
  echo "|---|---|---|---|"
  for fl in opencl100 spirv-debug; do
    echo "| $fl | ${conv[$fl]:-0} | ${valok[$fl]:-0} / ${valn[$fl]:-0} | ${same[$fl]:-0} |"
  done
} >&2
