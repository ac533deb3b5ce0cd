#!/usr/bin/env bash
# Run the whole test suite against the project-local SPIRV-Tools, after the
# habits the README states (scripts/habits.sh: fmt, clippy, doc, generated
# grammar tables).
#
#   bash scripts/test.sh [cargo test args...]
#   HABITS=0 bash scripts/test.sh ...    # the tests alone (while iterating)
#
# Exit code is cargo's, or 1 when a habit check failed. The last line is a
# "N passed, N failed" summary summed over all of cargo's "test result:" lines.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

# .tools/bin first, so the newer spirv-val shadows Debian's 2023.1 in
# /usr/bin; DWARV_TOOLS tells the tests (tests/common) where it is.
export DWARV_TOOLS="$repo/.tools/bin"
export PATH="$DWARV_TOOLS:$PATH"

log="$(mktemp)"
trap 'rm -f "$log"' EXIT

habits_rc=0
if [ "${HABITS:-1}" != 0 ]; then
  bash scripts/habits.sh || habits_rc=1
fi

# --no-fail-fast: run every test binary even after one fails, so the
# summary counts the whole suite. tee keeps the output live; PIPESTATUS
# gives cargo's own exit code.
set +e
# With the `inkwell` feature: the build-step API on an in-memory module is tested too
# (tests/all/llvm/inkwell_step.rs, tests/judges/build_step/inkwell_step.rs,
# examples/inkwell_step.rs).
cargo test --workspace --features dwarv/inkwell --no-fail-fast "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e

# "test result: ok. 12 passed; 0 failed; 1 ignored; ..." -> sum the counts.
read -r passed failed ignored < <(awk '
  /test result:/ {
    for (i = 1; i <= NF; i++) {
      if ($(i+1) ~ /^passed;?/)  p += $i
      if ($(i+1) ~ /^failed;?/)  f += $i
      if ($(i+1) ~ /^ignored;?/) g += $i
    }
  }
  END { printf "%d %d %d\n", p, f, g }' "$log")

# One line per test binary (the tiers: all, regressions, judges; the unit tests; the doctests),
# with its wall time as libtest reports it.
awk '
  /^ *Running / { what = ($2 == "unittests") ? "unittests " $3 : $2 }
  /^ *Doc-tests / { what = "doctests " $2 }
  /test result:/ {
    t = $0; sub(/.*finished in /, "", t)
    printf "binary %s: %s passed, %s failed, %s ignored, %s\n", what, $4, $6, $8, t
  }' "$log"

# Exactly "word: N passed, N failed, N skipped" so CI log readers recognise it.
[ "$habits_rc" -eq 0 ] || echo "habits: FAILED (see the habit lines above)"
echo "summary: $passed passed, $failed failed, $ignored skipped"
[ "$rc" -ne 0 ] && exit "$rc"
exit "$habits_rc"
