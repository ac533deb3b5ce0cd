//! Covers src/sidecar.rs. What real consumers judge of it: tests/judges/cli/strip_attach.rs.
//!
//! Split debug info: `dwarv strip` then `dwarv attach` on every corpus GLSL and
//! OpenCL module returns the module's IR (`dwarv diff` exit 0), the stripped module and the
//! result pass spirv-val (`llvm-spirv-14 -r` judges SPIRV.debug), `--flavour` gives what an
//! in-place conversion into that set gives, `--keep-link` keeps the link records (which `diff`
//! ignores), and a sidecar of another module is refused (exit 2, no output).

use crate::support::cli_strip_attach::*;

use crate::support::dwarv;

#[test]
fn a_sidecar_of_another_module_is_refused() {
    let corpus = crate::support::corpus();
    let (code, side, other_code, other_side) = (
        tmp("m.shade.code.spv"),
        tmp("m.shade.side.o"),
        tmp("m.particles.code.spv"),
        tmp("m.particles.side.o"),
    );
    ok(&[
        "strip",
        s(&corpus.join("shade.spv")),
        "-o",
        s(&code),
        "--debug-out",
        s(&side),
    ]);
    ok(&[
        "strip",
        s(&corpus.join("particles.spv")),
        "-o",
        s(&other_code),
        "--debug-out",
        s(&other_side),
    ]);
    let out = tmp("m.out.spv");
    let _ = std::fs::remove_file(&out);
    let o = dwarv(&["attach", s(&code), s(&other_side), "-o", s(&out)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("does not belong"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!out.exists(), "no output");
    // Not a sidecar at all: the original module, or a stripped module's own code.
    for bad in [corpus.join("shade.spv"), code.clone()] {
        let o = dwarv(&["attach", s(&code), s(&bad), "-o", s(&out)]);
        assert_eq!(o.status.code(), Some(2), "{}", bad.display());
        assert!(!out.exists());
    }
}

#[test]
fn strip_refuses_what_it_cannot_strip_and_writes_nothing() {
    let corpus = crate::support::corpus();
    let (code, side) = (tmp("n.code.spv"), tmp("n.side.o"));
    ok(&[
        "strip",
        s(&corpus.join("shade.spv")),
        "-o",
        s(&code),
        "--debug-out",
        s(&side),
    ]);
    // No debug info, or stripped already: exit 2, neither output.
    for input in [corpus.join("shade.nodebug.spv"), code] {
        let (c2, s2) = (tmp("n2.code.spv"), tmp("n2.side.o"));
        let o = dwarv(&["strip", s(&input), "-o", s(&c2), "--debug-out", s(&s2)]);
        assert_eq!(o.status.code(), Some(2), "{}", input.display());
        assert!(!c2.exists() && !s2.exists(), "{}", input.display());
    }
}
