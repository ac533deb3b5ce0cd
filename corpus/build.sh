#!/usr/bin/env bash
# Build the binary corpus inputs from corpus/src with the installed compilers
# (scripts/setup.sh installs them). Outputs go to $OUT (default corpus/out,
# which is gitignored):
#
#   kernel.O0.bc kernel.O0.ll kernel.O2.bc kernel.O2.ll   spir64 LLVM IR, DWARF 5 metadata
#   kernel.ocl100.spv kernel.legacy.spv                   llvm-spirv-14 of kernel.O0.bc
#   kernel.nodebug.bc kernel.nodebug.spv                  same, debug info stripped
#   kernel.gfx900.o                                       AMDGPU ELF, DWARF 5, -O2
#   kernel.gfx900.O0.o kernel.gfx900.dwarf4.o             AMDGPU gfx900, DWARF 5 -O0, DWARF 4 -O2
#   kernel.gfx900.O0.ll kernel.gfx900.ll                  their LLVM IR (-O0, -O2)
#   kernel.gfx90a.o kernel.gfx1030.o                      AMDGPU gfx90a / gfx1030, DWARF 5, -O2
#   particles.spv shade.spv                               glslang -gVS (NonSemantic.Shader.DebugInfo.100)
#   particles.nodebug.spv shade.nodebug.spv               glslang -V, no debug info (the code parts)
#   stages/{stage.geom,.tesc,.tese,.rgen,.rchit,bufref.comp}.{gVS,g}.spv
#                                                         glslang -gVS / -g (OpLine only), Vulkan 1.2;
#                                                         bufref.comp.gVS.spv is invalid (glslang 12)
#   prog.dwarf5.o prog.dwarf4.o prog.ll prog.O2           x86-64 host C
#   prog.dwarf5.O2.o prog.dwarf4.O2.o                     x86-64 -O2 with macros (.debug_macro, .debug_macinfo)
#   prog.O2.macro.ll                                      their LLVM IR
#   prog.embed.o                                          DWARF 5 with embedded source (DW_LNCT_LLVM_source)
#   shapes.dwarf5.o shapes.dwarf4.O2.o                    x86-64 C++ (classes, templates, namespaces)
#   shapes.types.o                                        same, DWARF 5 type units (-fdebug-types-section)
#   frag.O0.bc/.ll frag.O2.bc/.ll                         spir64 OpenCL C; -O2: inlining, DW_OP_LLVM_fragment
#   shapes.O0.bc/.ll shapes.O2.bc/.ll                     the same C++ as LLVM IR (-O0, -O2)
#   prog.O2.ll                                            x86-64 host C at -O2 (LLVM IR)
#   optimized.dwarf5.O2.o                                 x86-64 -O2: DW_OP_convert, concrete before abstract, variadic, u64 constant
#   errors.gcc.O0.o                                       x86-64 C++ with <stdexcept>, <string>, <vector> by gcc (g++)
#   assign.O2.ll                                          x86-64 C at -O2 by clang-19 (whatever $CLANG):
#                                                         assignment tracking's #dbg_assign records
#
# No absolute path of the checkout or of $OUT ends up in the outputs: we
# compile inside corpus/src with relative names plus -fdebug-prefix-map, and
# run the LLVM tools inside $OUT (llvm-dis writes its input path as ModuleID).
set -euo pipefail
trap 'echo "corpus/build.sh: FAILED (line $LINENO): $BASH_COMMAND" >&2' ERR

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
src="$here/src"
OUT="${OUT:-$here/out}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"

# spirv-val must be the project-local >= 2025.5 one, never Debian's 2023.1.
SPIRV_VAL="${DWARV_TOOLS:-$repo/.tools/bin}/spirv-val"
CLANG="${CLANG:-clang-14}"
# The LLVM tools of the compiler's own LLVM (CLANG=clang-19: llvm-dis-19, opt-19…; the
# unversioned names are LLVM 14's). Its llvm-spirv where Debian has one (14, 15); without one
# (LLVM 19) the llvm-spirv outputs are not made.
ver="${CLANG##*clang-}"
sfx=""
if [[ "$ver" =~ ^[0-9]+$ ]] && [ "$ver" != 14 ]; then sfx="-$ver"; fi
LLVM_DIS="llvm-dis$sfx" OPT="opt$sfx" DWARFDUMP="llvm-dwarfdump$sfx"
if [ -z "${LLVM_SPIRV+x}" ]; then
  LLVM_SPIRV="llvm-spirv-14"
  if [ -n "$sfx" ]; then LLVM_SPIRV="llvm-spirv$sfx"; fi
  command -v "$LLVM_SPIRV" >/dev/null || LLVM_SPIRV=""
fi
GXX="${GXX:-g++}"
for t in "$CLANG" ${LLVM_SPIRV:+"$LLVM_SPIRV"} "$LLVM_DIS" "$OPT" "$DWARFDUMP" glslangValidator "$SPIRV_VAL" "$GXX"; do
  command -v "$t" >/dev/null || { echo "corpus/build.sh: '$t' not found; run scripts/setup.sh" >&2; exit 1; }
done

step() { echo "[corpus] $*"; }
# Map the source dir to "." so DW_AT_comp_dir / DIFile directory is relative.
DBGMAP=(-fdebug-prefix-map="$src"=.)
CL=(-target spir64-unknown-unknown -x cl -cl-std=CL2.0 -g "${DBGMAP[@]}")

cd "$src"
step "kernel.cl -> spir64 bitcode (-O0, -O2)"
"$CLANG" "${CL[@]}" -O0 -emit-llvm -c kernel.cl -o "$OUT/kernel.O0.bc"
"$CLANG" "${CL[@]}" -O2 -emit-llvm -c kernel.cl -o "$OUT/kernel.O2.bc"

step "frag.cl -> spir64 bitcode (-O0, -O2); shapes.cpp -> x86-64 bitcode (-O0, -O2)"
for o in O0 O2; do
  "$CLANG" "${CL[@]}" -$o -emit-llvm -c frag.cl -o "$OUT/frag.$o.bc"
  "$CLANG" -std=c++17 -g -$o "${DBGMAP[@]}" -emit-llvm -c shapes.cpp -o "$OUT/shapes.$o.bc"
done
"$CLANG" -gdwarf-5 -O2 "${DBGMAP[@]}" -S -emit-llvm prog.c -o "$OUT/prog.O2.ll"

step "kernel.cl -> AMDGPU gfx900 object"
# -nogpulib: no ROCm device libraries on Debian; the relocatable .o suffices.
"$CLANG" -target amdgcn-amd-amdhsa -mcpu=gfx900 -nogpulib -x cl -cl-std=CL2.0 \
  -g -O2 "${DBGMAP[@]}" -c kernel.cl -o "$OUT/kernel.gfx900.o"

step "kernel.cl -> AMDGPU objects: gfx900 -O0 and DWARF 4, gfx90a, gfx1030"
AMD=(-target amdgcn-amd-amdhsa -nogpulib -x cl -cl-std=CL2.0 -g "${DBGMAP[@]}")
"$CLANG" "${AMD[@]}" -mcpu=gfx900 -O0 -c kernel.cl -o "$OUT/kernel.gfx900.O0.o"
"$CLANG" "${AMD[@]}" -mcpu=gfx900 -O2 -gdwarf-4 -c kernel.cl -o "$OUT/kernel.gfx900.dwarf4.o"
"$CLANG" "${AMD[@]}" -mcpu=gfx90a -O2 -c kernel.cl -o "$OUT/kernel.gfx90a.o"
"$CLANG" "${AMD[@]}" -mcpu=gfx1030 -O2 -c kernel.cl -o "$OUT/kernel.gfx1030.o"
# The LLVM IR of the gfx900 objects (the LLVM/DWARF cross-check).
"$CLANG" "${AMD[@]}" -mcpu=gfx900 -O0 -S -emit-llvm kernel.cl -o "$OUT/kernel.gfx900.O0.ll"
"$CLANG" "${AMD[@]}" -mcpu=gfx900 -O2 -S -emit-llvm kernel.cl -o "$OUT/kernel.gfx900.ll"

step "GLSL -> SPIR-V with NonSemantic debug info (-gVS)"
# Relative input names here become the DebugSource file names.
glslangValidator -V -gVS -o "$OUT/particles.spv" particles.comp >/dev/null
glslangValidator -V -gVS -o "$OUT/shade.spv" shade.frag >/dev/null
step "GLSL -> SPIR-V without debug info (the code part, for --into)"
glslangValidator -V -o "$OUT/particles.nodebug.spv" particles.comp >/dev/null
glslangValidator -V -o "$OUT/shade.nodebug.spv" shade.frag >/dev/null
step "errors.cpp -> x86-64 object by gcc (-O0)"
# gcc's DWARF: declarations naming their `this` (DW_AT_object_pointer), C4/D4 constructors with
# their concrete C2/D2 instances. (Not -O2: llvm-dwarfdump --verify takes over ten minutes of
# CPU on gcc's -O2 object of this file.)
"$GXX" -g -O0 "${DBGMAP[@]}" -c errors.cpp -o "$OUT/errors.gcc.O0.o"
step "GLSL stages -> SPIR-V, -gVS and -g (OpLine only), in stages/"
# Geometry, tessellation and ray-tracing stages (their storage classes), buffer references.
# glslang 12's -gVS output of bufref.comp is invalid (a DebugTypeMember names id 0: the
# forward reference its later versions write with OpExtInstWithForwardRefsKHR).
mkdir -p "$OUT/stages"
stages=()
for s in stage.geom stage.tesc stage.tese stage.rgen stage.rchit bufref.comp; do
  for g in gVS g; do
    glslangValidator -V --target-env vulkan1.2 -$g -o "$OUT/stages/$s.$g.spv" "stages/$s" >/dev/null
    stages+=("stages/$s.$g.spv")
  done
done

step "assign.c -> x86-64 LLVM IR at -O2 by clang-19 (assignment tracking, #dbg_assign)"
# clang 17+ track assignments by default at -O1 and above; clang-14 and -15 know no such thing.
command -v clang-19 >/dev/null || { echo "corpus/build.sh: 'clang-19' not found; run scripts/setup.sh" >&2; exit 1; }
clang-19 -gdwarf-5 -O2 "${DBGMAP[@]}" -S -emit-llvm assign.c -o "$OUT/assign.O2.ll"
grep -q '#dbg_assign' "$OUT/assign.O2.ll" || { echo "corpus/build.sh: no #dbg_assign in assign.O2.ll" >&2; exit 1; }

step "prog.c -> x86-64 objects (DWARF 5, DWARF 4), IR and -O2 executable"
"$CLANG" -gdwarf-5 -O0 "${DBGMAP[@]}" -c prog.c -o "$OUT/prog.dwarf5.o"
"$CLANG" -gdwarf-4 -O0 "${DBGMAP[@]}" -c prog.c -o "$OUT/prog.dwarf4.o"
"$CLANG" -gdwarf-5 -O0 "${DBGMAP[@]}" -S -emit-llvm prog.c -o "$OUT/prog.ll"
"$CLANG" -gdwarf-5 -O2 "${DBGMAP[@]}" prog.c -o "$OUT/prog.O2"
"$CLANG" -gdwarf-5 -O2 -fdebug-macro "${DBGMAP[@]}" -c prog.c -o "$OUT/prog.dwarf5.O2.o"
"$CLANG" -gdwarf-5 -O2 -fdebug-macro "${DBGMAP[@]}" -S -emit-llvm prog.c -o "$OUT/prog.O2.macro.ll"
"$CLANG" -gdwarf-4 -O2 -fdebug-macro "${DBGMAP[@]}" -c prog.c -o "$OUT/prog.dwarf4.O2.o"
"$CLANG" -gdwarf-5 -gembed-source -O0 "${DBGMAP[@]}" -c prog.c -o "$OUT/prog.embed.o"
"$CLANG" -gdwarf-5 -O2 "${DBGMAP[@]}" -c optimized.c -o "$OUT/optimized.dwarf5.O2.o"
step "shapes.cpp -> x86-64 objects (DWARF 5 -O0, DWARF 4 -O2)"
"$CLANG" -std=c++17 -gdwarf-5 -O0 "${DBGMAP[@]}" -c shapes.cpp -o "$OUT/shapes.dwarf5.o"
"$CLANG" -std=c++17 -gdwarf-4 -O2 "${DBGMAP[@]}" -c shapes.cpp -o "$OUT/shapes.dwarf4.O2.o"
"$CLANG" -std=c++17 -gdwarf-5 -fdebug-types-section -O0 "${DBGMAP[@]}" -c shapes.cpp -o "$OUT/shapes.types.o"

cd "$OUT"
step "llvm-dis, ${LLVM_SPIRV:-no llvm-spirv} (ocl-100, legacy, no debug)"
"$LLVM_DIS" kernel.O0.bc -o kernel.O0.ll
"$LLVM_DIS" kernel.O2.bc -o kernel.O2.ll
for f in frag.O0 frag.O2 shapes.O0 shapes.O2; do "$LLVM_DIS" "$f.bc" -o "$f.ll"; done
"$OPT" -strip-debug kernel.O0.bc -o kernel.nodebug.bc
spirv_outputs=()
if [ -n "$LLVM_SPIRV" ]; then
  "$LLVM_SPIRV" --spirv-debug-info-version=ocl-100 kernel.O0.bc -o kernel.ocl100.spv
  "$LLVM_SPIRV" --spirv-debug-info-version=legacy  kernel.O0.bc -o kernel.legacy.spv
  "$LLVM_SPIRV" kernel.nodebug.bc -o kernel.nodebug.spv
  spirv_outputs=(kernel.ocl100.spv kernel.legacy.spv kernel.nodebug.spv)
fi

step "checks"
expected=(kernel.O0.bc kernel.O0.ll kernel.O2.bc kernel.O2.ll "${spirv_outputs[@]}"
          kernel.nodebug.bc kernel.gfx900.o
          particles.spv shade.spv particles.nodebug.spv shade.nodebug.spv prog.dwarf5.o prog.dwarf4.o prog.ll prog.O2
          kernel.gfx900.O0.o kernel.gfx900.dwarf4.o kernel.gfx90a.o kernel.gfx1030.o
          prog.dwarf5.O2.o prog.dwarf4.O2.o shapes.dwarf5.o shapes.dwarf4.O2.o shapes.types.o prog.embed.o
          frag.O0.bc frag.O0.ll frag.O2.bc frag.O2.ll shapes.O0.bc shapes.O0.ll shapes.O2.bc shapes.O2.ll
          prog.O2.ll kernel.gfx900.O0.ll kernel.gfx900.ll prog.O2.macro.ll optimized.dwarf5.O2.o
          errors.gcc.O0.o assign.O2.ll "${stages[@]}")
ELF_OBJECTS=(kernel.gfx900.O0.o kernel.gfx900.dwarf4.o kernel.gfx90a.o kernel.gfx1030.o
             prog.dwarf5.O2.o prog.dwarf4.O2.o shapes.dwarf5.o shapes.dwarf4.O2.o shapes.types.o prog.embed.o
             optimized.dwarf5.O2.o errors.gcc.O0.o)
for f in "${expected[@]}"; do
  [ -s "$f" ] || { echo "corpus/build.sh: missing or empty output $OUT/$f" >&2; exit 1; }
done
# glslang output is valid SPIR-V; llvm-spirv-14's debug info is known not to
# be (inputs-and-peers.md section 1), so it is not validated here.
"$SPIRV_VAL" --target-env vulkan1.1 particles.spv
"$SPIRV_VAL" --target-env vulkan1.1 shade.spv
for f in "${stages[@]}"; do
  if [ "$f" = stages/bufref.comp.gVS.spv ]; then
    ! "$SPIRV_VAL" --target-env vulkan1.2 "$f" 2>/dev/null || { echo "corpus/build.sh: $f is valid now: move it to the valid stages" >&2; exit 1; }
  else
    "$SPIRV_VAL" --target-env vulkan1.2 "$f"
  fi
done
# prog.O2 is linked by GNU ld, which merges string tails in .debug_str; llvm-dwarfdump 19
# checks .debug_str_offsets against that ("is neither zero nor immediately following a null
# character"), 14 and 15 do not: the linked program is verified by those only.
linked=(prog.O2)
if [ -n "$sfx" ] && [ "$ver" -ge 19 ]; then linked=(); fi
for f in kernel.gfx900.o prog.dwarf5.o prog.dwarf4.o "${linked[@]}" "${ELF_OBJECTS[@]}"; do
  "$DWARFDUMP" --verify "$f" >/dev/null || { echo "corpus/build.sh: $DWARFDUMP --verify failed on $f" >&2; exit 1; }
done
# grep -F -l: list files containing a build path (fixed string, binary-safe).
if leaks="$(grep -F -l -e "$src" -e "$OUT" "${expected[@]}")"; then
  echo "corpus/build.sh: absolute build path leaked into: $leaks" >&2; exit 1
fi
step "OK: ${#expected[@]} files in $OUT"
