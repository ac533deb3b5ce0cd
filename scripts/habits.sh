#!/usr/bin/env bash
# The habits the README states, as checks (run by scripts/test.sh, hence by CI):
#   - cargo fmt --check
#   - cargo clippy --all-targets -- -D warnings      (every crate of the workspace)
#   - cargo doc without warnings                     (the library's public face)
#   - the fuzz targets (fuzz/, a workspace of its own) formatted and compiling
#   - src/spec/spirv_grammar.rs is what scripts/gen_spirv_tables.py makes of the installed
#     SPIRV-Headers grammars (Debian's spirv-headers, which scripts/setup.sh installs)
# Prints one line per check and exits 1 when any failed.
#
#   bash scripts/habits.sh
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
failed=()
check() { # check NAME CMD...: runs CMD, prints its output only when it fails
  local name="$1" log
  shift
  log="$(mktemp)"
  if "$@" >"$log" 2>&1; then
    echo "habit: $name ok"
  else
    cat "$log"
    echo "habit: $name FAILED"
    failed+=("$name")
  fi
  rm -f "$log"
}

grammar_is_generated() {
  local dir=/usr/include/spirv/unified1 gen
  [ -f "$dir/extinst.debuginfo.grammar.json" ] ||
    { echo "no SPIRV-Headers grammars in $dir: run scripts/setup.sh"; return 1; }
  gen="$(mktemp)"
  python3 scripts/gen_spirv_tables.py "$dir" | rustfmt --edition 2021 >"$gen" &&
    diff -u src/spec/spirv_grammar.rs "$gen"
  local rc=$?
  rm -f "$gen"
  return $rc
}

check fmt cargo fmt --all --check
check clippy cargo clippy --workspace --all-targets --features dwarv/inkwell --quiet -- -D warnings
check doc env RUSTDOCFLAGS="-D warnings" cargo doc --workspace --features dwarv/inkwell --no-deps --quiet
check grammar grammar_is_generated
check fuzz-fmt cargo fmt --manifest-path fuzz/Cargo.toml --check
check fuzz-build cargo check --manifest-path fuzz/Cargo.toml --quiet

if [ "${#failed[@]}" -ne 0 ]; then
  echo "habits: ${#failed[@]} failed (${failed[*]})"
  exit 1
fi
echo "habits: all kept"
