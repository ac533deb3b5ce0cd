#!/usr/bin/env bash
# Generates a corpus of GLSL compute shaders with variations (bench/gen_glsl.py: 4–43 functions,
# 4 struct types, one seed each) and compiles them with `glslangValidator -gVS` (NonSemantic
# debug info), two at a time.
#
#   bash bench/gen_corpus.sh OUT_DIR [COUNT]      # COUNT defaults to 1000
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:?usage: gen_corpus.sh OUT_DIR [COUNT]}"
count="${2:-1000}"
mkdir -p "$out/src" "$out/spv"
one() {
  local i="$1" here="$2" out="$3" sub=$(( $1 % 10 ))
  mkdir -p "$out/spv/$sub"
  python3 "$here/gen_glsl.py" --funcs $(( 4 + i % 40 )) --structs 4 --seed "$i" > "$out/src/s$i.comp"
  glslangValidator -gVS -V --target-env vulkan1.2 -o "$out/spv/$sub/s$i.spv" "$out/src/s$i.comp" >/dev/null
}
export -f one
seq 0 $(( count - 1 )) | xargs -P 2 -I{} bash -c 'one "$@"' _ {} "$here" "$out"
echo "$count shaders in $out/spv ($(du -sh "$out/spv" | cut -f1))" >&2
