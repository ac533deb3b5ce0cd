//! Covers src/sidecar.rs. dwarv's own checks of it: tests/all/cli/strip_attach.rs.
//!
//! Split debug info: `dwarv strip` then `dwarv attach` on every corpus GLSL and
//! OpenCL module returns the module's IR (`dwarv diff` exit 0), the stripped module and the
//! result pass spirv-val (`llvm-spirv-14 -r` judges SPIRV.debug), `--flavour` gives what an
//! in-place conversion into that set gives, `--keep-link` keeps the link records (which `diff`
//! ignores), and a sidecar of another module is refused (exit 2, no output).

use crate::support::cli_strip_attach::*;
use std::path::Path;

use crate::support::dwarv;

/// The environment spirv-val judges a module in: vulkan1.2 for shaders; for kernels the
/// universal environment of their SPIR-V version (llvm-spirv-14 writes 1.4).
fn env_of(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap();
    let words = dwarv::unstable::spirv::binary::to_words(&bytes).unwrap();
    let kernel = dwarv::unstable::spirv::binary::Module::parse(&words)
        .unwrap()
        .insns
        .iter()
        .any(|i| {
            i.opcode() == dwarv::unstable::spirv::binary::op::CAPABILITY && i.operands() == [6]
        });
    match kernel {
        false => "vulkan1.2".into(),
        true => format!("spv1.{}", (words[1] >> 8) & 0xff),
    }
}

/// The module's real consumer: spirv-val, or `llvm-spirv-14 -r` for SPIRV.debug.
fn judge(path: &Path, legacy: bool) {
    if legacy {
        crate::support::llvm_spirv_reads(path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    } else {
        crate::support::spirv_val(path, &env_of(path));
    }
}

fn diff_ok(a: &Path, b: &Path) {
    let o = dwarv(&["diff", s(a), s(b)]);
    assert!(
        o.status.success(),
        "{} vs {}:\n{}",
        a.display(),
        b.display(),
        String::from_utf8_lossy(&o.stdout)
    );
}

/// (module, is SPIRV.debug, another set to attach in).
const INPUTS: [(&str, bool, &str); 4] = [
    ("particles.spv", false, "opencl100"),
    ("shade.spv", false, "opencl100"),
    ("kernel.ocl100.spv", false, "shader100"),
    ("kernel.legacy.spv", true, "opencl100"),
];

#[test]
fn strip_then_attach_restores_every_corpus_module() {
    let corpus = crate::support::corpus();
    for (name, legacy, other) in INPUTS {
        let input = corpus.join(name);
        let (code, side, out) = (
            tmp(&format!("{name}.code.spv")),
            tmp(&format!("{name}.side.o")),
            tmp(&format!("{name}.out.spv")),
        );
        ok(&["strip", s(&input), "-o", s(&code), "--debug-out", s(&side)]);
        // The stripped module: code plus the link records only, valid SPIR-V.
        crate::support::spirv_val(&code, &env_of(&code));
        let (stripped, _) =
            dwarv::unstable::front::spirv::read(&std::fs::read(&code).unwrap(), name).unwrap();
        assert!(
            stripped.units.is_empty() && stripped.types.is_empty(),
            "{name}"
        );
        let link = stripped.info.link.clone().expect("link records");
        assert_eq!(link.storage_path.as_deref(), Some(s(&side)), "{name}");
        assert_eq!(link.build_id.len(), 32, "{name}");
        assert!(stripped.info.build_id.is_none(), "{name}");
        // The sidecar is DWARF that LLVM verifies.
        let v = crate::support::tool_output("llvm-dwarfdump", &["--verify", s(&side)]);
        assert!(v.contains("No errors."), "{name}: {v}");

        ok(&["attach", s(&code), s(&side), "-o", s(&out)]);
        judge(&out, legacy);
        // Rewriting the original in place is what dwarv writes for this IR; the attached module
        // is that, and (but for the writer's spirv-val encodings of kernel.ocl100's typedefs of
        // vectors, which the original breaks spirv-val with) the original itself.
        let own = tmp(&format!("{name}.own.spv"));
        ok(&["convert", s(&input), "-o", s(&own), "--to", "spirv"]);
        diff_ok(&own, &out);
        if name != "kernel.ocl100.spv" {
            diff_ok(&input, &out);
        }
        let out_ir = dwarv::unstable::input::load(s(&out)).unwrap();
        assert!(out_ir.info.link.is_none(), "{name}: link records dropped");

        // --keep-link: the link records stay (NonSemantic has them; other sets say they cannot),
        // and diff ignores them.
        let kept = tmp(&format!("{name}.kept.spv"));
        let o = dwarv(&["attach", s(&code), s(&side), "-o", s(&kept), "--keep-link"]);
        assert!(o.status.success(), "{name}");
        judge(&kept, legacy);
        let kept_ir = dwarv::unstable::input::load(s(&kept)).unwrap();
        let shader = kept_ir.source.flavour.as_deref() == Some("NonSemantic.Shader.DebugInfo.100");
        let kept_id = kept_ir.info.link.as_ref().map(|l| l.build_id.clone());
        match shader {
            true => assert_eq!(kept_id, Some(link.build_id.clone()), "{name}: link kept"),
            false => {
                assert_eq!(kept_id, None, "{name}");
                let err = String::from_utf8_lossy(&o.stderr);
                assert!(
                    err.contains("link records: the set has no"),
                    "{name}: {err}"
                );
            }
        }
        diff_ok(&out, &kept);

        // --flavour: what converting the original into that set in place gives.
        let (via, direct) = (
            tmp(&format!("{name}.{other}.spv")),
            tmp(&format!("{name}.{other}.direct.spv")),
        );
        ok(&[
            "attach",
            s(&code),
            s(&side),
            "-o",
            s(&via),
            "--flavour",
            other,
        ]);
        ok(&[
            "convert",
            s(&input),
            "-o",
            s(&direct),
            "--to",
            "spirv",
            "--flavour",
            other,
        ]);
        judge(&via, false);
        diff_ok(&direct, &via);
    }
}
