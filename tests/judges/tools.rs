//! Covers the tools the tests rely on. dwarv's own checks of it: tests/all/tools.rs.
//!
//! The external tools the test suite relies on are installed and runnable,
//! and `corpus/build.sh` turns corpus/src into valid binary inputs.
//! A failure here means: run `bash scripts/setup.sh`.

use crate::support::*;
use std::path::Path;
use std::process::Command;

/// (tool, args that make it print its version and exit 0)
const REQUIRED: &[(&str, &[&str])] = &[
    ("clang-14", &["--version"]),
    ("llvm-spirv-14", &["--version"]),
    ("glslangValidator", &["--version"]),
    ("llvm-dwarfdump", &["--version"]),
    ("llvm-as", &["--version"]),
    ("opt", &["--version"]),
    ("llvm-dis", &["--version"]),
    ("llvm-config", &["--version"]),
    ("gdb", &["--version"]),
    ("spirv-val", &["--version"]),
    ("spirv-as", &["--version"]),
    ("spirv-dis", &["--version"]),
];

#[test]
fn required_tools_are_installed_and_run() {
    // Check all of them first so one run names every missing tool.
    let mut problems = Vec::new();
    for (name, args) in REQUIRED {
        match find_tool(name) {
            None => problems.push(format!("{name}: not found")),
            Some(p) => match Command::new(&p).args(*args).output() {
                Ok(o) if o.status.success() => {}
                Ok(o) => problems.push(format!(
                    "{name} ({}): exited with {}",
                    p.display(),
                    o.status
                )),
                Err(e) => problems.push(format!("{name} ({}): {e}", p.display())),
            },
        }
    }
    assert!(
        problems.is_empty(),
        "external tools missing or broken (run `bash scripts/setup.sh`; SPIRV-Tools are looked up in {}):\n  {}",
        tools_dir().display(),
        problems.join("\n  ")
    );
}

#[test]
fn llvm_is_version_14() {
    // llvm-bridge and the corpus assume LLVM 14 (clang-14, llvm-spirv-14).
    let v = tool_output("llvm-config", &["--version"]);
    assert!(
        v.trim().starts_with("14."),
        "llvm-config on PATH reports {v:?}, need 14.x"
    );
    let v = tool_output("llvm-dwarfdump", &["--version"]);
    assert!(
        v.contains("version 14."),
        "llvm-dwarfdump on PATH is not LLVM 14: {v:?}"
    );
}

fn starts_with(file: &Path, magic: &[u8]) -> bool {
    std::fs::read(file)
        .map(|b| b.starts_with(magic))
        .unwrap_or(false)
}

#[test]
fn corpus_builds_and_glslang_output_validates() {
    let dir = corpus();

    const SPIRV: &[u8] = &[0x03, 0x02, 0x23, 0x07]; // 0x07230203, little-endian
    const ELF: &[u8] = b"\x7fELF";
    const BITCODE: &[u8] = b"BC\xc0\xde";
    let expected: &[(&str, Option<&[u8]>)] = &[
        ("kernel.O0.bc", Some(BITCODE)),
        ("kernel.O2.bc", Some(BITCODE)),
        ("kernel.nodebug.bc", Some(BITCODE)),
        ("kernel.O0.ll", None),
        ("kernel.O2.ll", None),
        ("kernel.ocl100.spv", Some(SPIRV)),
        ("kernel.legacy.spv", Some(SPIRV)),
        ("kernel.nodebug.spv", Some(SPIRV)),
        ("kernel.gfx900.o", Some(ELF)),
        ("particles.spv", Some(SPIRV)),
        ("shade.spv", Some(SPIRV)),
        ("prog.dwarf5.o", Some(ELF)),
        ("prog.dwarf4.o", Some(ELF)),
        ("prog.O2", Some(ELF)),
        ("prog.ll", None),
    ];
    for (name, magic) in expected {
        let f = dir.join(name);
        let len = std::fs::metadata(&f).map(|m| m.len()).unwrap_or(0);
        assert!(len > 0, "corpus/build.sh did not produce {}", f.display());
        if let Some(m) = magic {
            assert!(
                starts_with(&f, m),
                "{} has the wrong magic number",
                f.display()
            );
        }
    }
    for ll in ["kernel.O0.ll", "prog.ll"] {
        let text = std::fs::read_to_string(dir.join(ll)).unwrap();
        assert!(text.contains("!DICompileUnit("), "{ll} has no debug info");
    }

    // glslang -gVS output must be valid and carry NonSemantic debug info.
    for spv in ["particles.spv", "shade.spv"] {
        let f = dir.join(spv);
        spirv_val(&f, "vulkan1.1");
        let dis = run_ok(Command::new(tool("spirv-dis")).arg(&f));
        let text = String::from_utf8_lossy(&dis.stdout);
        assert!(
            text.contains("NonSemantic.Shader.DebugInfo.100"),
            "{spv}: no NonSemantic debug import"
        );
        assert!(
            text.contains("DebugCompilationUnit"),
            "{spv}: no DebugCompilationUnit"
        );
    }
}
