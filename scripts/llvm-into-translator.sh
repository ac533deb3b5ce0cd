#!/usr/bin/env bash
# The translator-as-consumer table of docs/llvm.md: for every .ll of the peer corpus
# that llvm-as-14 assembles and whose debug-stripped module llvm-spirv-14 translates (code.spv):
# `dwarv convert file.ll --into code.spv --flavour F` for F in shader200, shader100, opencl100;
# spirv-val of the output where code.spv passes; whether SPIRV-LLVM-Translator 2024.2
# (.tools/bin/llvm-spirv-dpcpp, scripts/setup.sh) `-r` reads it and keeps the input's count of
# each `!DIKind(` (llvm-dis of LLVM 19); beside it, the translator's own round trip in that set
# (forward, then -r). Usage: scripts/llvm-into-translator.sh [corpus-dir] [out-dir] (markdown
# table on stdout; the files that keep every count in OUT/kept.txt). Then, per flavour, the files
# the translator's own round trip keeps and dwarv's output does not, each with its causes (from
# dwarv's --report ledger and the read-back; docs/llvm.md explains them), and files per cause.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
C=${1:-$(cd "$root/.." && pwd)/shared/corpus/llvm-spirv-debuginfo}
O=${2:-$(mktemp -d)}
D=${DWARV:-$root/target/release/dwarv}; L=$root/.tools/bin/llvm-spirv-dpcpp; V=$root/.tools/bin/spirv-val
mkdir -p "$O"; rm -f "$O/kept.txt"
counts() { /usr/lib/llvm-19/bin/llvm-dis "$1" -o - 2>/dev/null | grep -o '!DI[A-Za-z]*(' | sort | uniq -c; }
declare -A conv val valn rd same own owns
n=0
for f in $(find $C -name '*.ll' | sort); do
  k=$(echo ${f#$C/} | tr / _); k=${k%.ll}
  llvm-as-14 $f -o $O/$k.bc 2>/dev/null || continue
  opt-14 -strip-debug $O/$k.bc -o $O/$k.nd.bc 2>/dev/null || continue
  llvm-spirv-14 $O/$k.nd.bc -o $O/$k.code.spv 2>/dev/null || continue
  n=$((n+1))
  counts $O/$k.bc > $O/$k.in.counts
  codeok=no; $V $O/$k.code.spv >/dev/null 2>&1 && codeok=yes
  for fl in shader200 shader100 opencl100; do
    case $fl in shader200) ver=nonsemantic-shader-200;; shader100) ver=nonsemantic-shader-100;; opencl100) ver=ocl-100;; esac
    # the translator's own round trip
    if $L --spirv-debug-info-version=$ver $O/$k.bc -o $O/$k.own.$fl.spv 2>/dev/null && $L -r $O/$k.own.$fl.spv -o $O/$k.own.$fl.bc 2>/dev/null; then
      own[$fl]=$((${own[$fl]:-0}+1)); counts $O/$k.own.$fl.bc > $O/$k.own.$fl.counts
      cmp -s $O/$k.in.counts $O/$k.own.$fl.counts && owns[$fl]=$((${owns[$fl]:-0}+1))
    fi
    o=$O/$k.$fl.spv
    $D convert $f --into $O/$k.code.spv -o $o --flavour $fl --report $o.json 2>/dev/null || continue
    conv[$fl]=$((${conv[$fl]:-0}+1))
    if [ $codeok = yes ]; then valn[$fl]=$((${valn[$fl]:-0}+1)); $V $o >/dev/null 2>&1 && val[$fl]=$((${val[$fl]:-0}+1)); fi
    if $L -r $o -o $o.bc 2>$o.r.err; then rd[$fl]=$((${rd[$fl]:-0}+1)); counts $o.bc > $o.counts; cmp -s $O/$k.in.counts $o.counts && { same[$fl]=$((${same[$fl]:-0}+1)); echo "$k $fl kept" >> $O/kept.txt; }; fi
  done
done
echo "files: $n"
echo "| flavour | converts --into | spirv-val ok / code valid | llvm-spirv-dpcpp -r reads | every DI kind count kept | translator's own round trip: read back / kept |"
echo "|---|---|---|---|---|---|"
for fl in shader200 shader100 opencl100; do
  echo "| $fl | ${conv[$fl]:-0} | ${val[$fl]:-0} / ${valn[$fl]:-0} | ${rd[$fl]:-0} | ${same[$fl]:-0} | ${own[$fl]:-0} / ${owns[$fl]:-0} |"
done

# Causes: where dwarv's output loses a count the translator's own round trip keeps.
cause() { # key flavour
  local o=$O/$1.$2.spv c=""
  if [ -f $o.counts ]; then
    local a b
    a=$(/usr/lib/llvm-19/bin/llvm-dis $O/$1.bc -o - 2>/dev/null | grep -c DIFlagFwdDecl)
    b=$(/usr/lib/llvm-19/bin/llvm-dis $o.bc -o - 2>/dev/null | grep -c DIFlagFwdDecl)
    [ "$b" -gt "$a" ] && c="$c fwd-decl-stand-in"
  else
    grep -q transImportedEntry $o.r.err && c="$c opencl-imported-entity"
    grep -q 'cannot have column info without line info' $o.r.err && c="$c block-at-line-0"
  fi
  grep -q 'written as DebugTypeBasic \\"void\\"' $o.json && c="$c void-basic"
  grep -q 'typedef of a non-basic type' $o.json && c="$c typedef-of-non-basic"
  grep -q 'inheritance: spirv-val' $o.json && c="$c inheritance-ns100"
  grep -q 'lexical block file written as' $o.json && c="$c block-file"
  grep -q 'no function type: written as void' $o.json && c="$c function-without-type"
  grep -q 'has no DebugOperation for it' $o.json && c="$c operation-not-in-set"
  echo "${c:- unexplained}"
}
for fl in shader200 shader100 opencl100; do
  declare -A per=()
  for c in $O/*.in.counts; do
    k=$(basename ${c%.in.counts})
    cmp -s $c $O/$k.own.$fl.counts || continue
    cmp -s $c $O/$k.$fl.spv.counts 2>/dev/null && continue
    why=$(cause $k $fl); echo "$fl $k:$why"
    for x in $why; do per[$x]=$((${per[$x]:-0}+1)); done
  done
  for x in "${!per[@]}"; do echo "$fl: $x ${per[$x]}"; done | sort
  unset per
done
