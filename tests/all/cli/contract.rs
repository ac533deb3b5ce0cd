//! Covers src/cli/, src/output.rs.
//!
//! The CLI contract: verbs, exit codes, messages, atomic outputs, driven through the binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn dwarv(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dwarv"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("dwarv runs")
}

fn dwarv_stdin(args: &[&str], stdin: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_dwarv"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("dwarv runs");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn code(o: &Output) -> i32 {
    o.status
        .code()
        .expect("dwarv exits normally, not by a signal")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn files(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "dwir"))
        .collect();
    v.sort();
    assert!(!v.is_empty(), "no fixtures in {dir}");
    v
}

fn rel(path: &Path) -> String {
    path.strip_prefix(root()).unwrap().display().to_string()
}

#[test]
fn dump_piped_into_diff_is_equal_for_every_corpus_file() {
    for path in files("corpus/ir") {
        let p = rel(&path);
        let dump = dwarv(&["dump", &p]);
        assert_eq!(code(&dump), 0, "dump {p}: {}", text(&dump.stderr));
        assert_eq!(
            text(&dump.stdout),
            std::fs::read_to_string(&path).unwrap(),
            "dump of canonical {p} differs"
        );
        let d = dwarv_stdin(&["diff", "-", &p], &dump.stdout);
        assert_eq!(
            code(&d),
            0,
            "diff - {p}: {}{}",
            text(&d.stdout),
            text(&d.stderr)
        );
        let v = dwarv(&["validate", &p]);
        assert_eq!(code(&v), 0, "validate {p}: {}", text(&v.stdout));
    }
}

/// Text on stdin that does not parse is named `<stdin>` with its line and column (the files in
/// tests/regressions/ir_text give theirs).
#[test]
fn malformed_text_on_stdin_gives_line_column_and_exit_2() {
    let o = dwarv_stdin(&["dump", "-"], b"; dwarv-ir 9 source=ir\n");
    assert_eq!(code(&o), 2);
    assert_eq!(
        text(&o.stderr),
        "dwarv: <stdin>:1:12: unsupported IR text version `9` (this dwarv reads 1)\n"
    );
}

#[test]
fn diff_reports_a_changed_field_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let original = std::fs::read_to_string(root().join("corpus/ir/sample.dwir")).unwrap();
    let changed = original.replace(
        "t4 = member \"intensity\" t0 offset=128",
        "t4 = member \"intensity\" t0 offset=96",
    );
    assert_ne!(original, changed);
    let b = dir.path().join("b.dwir");
    std::fs::write(&b, changed).unwrap();
    let o = dwarv(&["diff", "corpus/ir/sample.dwir", b.to_str().unwrap()]);
    assert_eq!(code(&o), 1);
    assert_eq!(
        text(&o.stdout),
        "changed: type member \"intensity\" in <struct \"Light\" in <unit of <file \"shade.comp\" dir=\"/src\">>>\n    - offset=128\n    + offset=96\n"
    );
}

#[test]
fn diff_ignores_entity_order_and_spirv_ids() {
    // The same module with its two members declared in the other order and other SPIR-V ids.
    let a = "; dwarv-ir 1 source=spirv:OpenCL.DebugInfo.100\nu0 = unit opencl\nt0 = base \"int\" enc=signed bits=32\nt1 = struct \"S\" elements=[t2, t3] in=u0\nt2 = member \"x\" t0 offset=0 in=t1\nt3 = member \"y\" t0 offset=32 in=t1\nv0 = global \"g\" type=t1 in=u0 bind=%5\n";
    let b = "; dwarv-ir 1 source=dwarf:x86_64\nu0 = unit opencl dwarf=4\nt0 = base \"int\" enc=signed bits=32\nt1 = member \"y\" t0 offset=32 in=t3\nt2 = member \"x\" t0 offset=0 in=t3\nt3 = struct \"S\" elements=[t2, t1] in=u0\nv0 = global \"g\" type=t3 in=u0 bind=%99\n";
    let dir = tempfile::tempdir().unwrap();
    let (pa, pb) = (dir.path().join("a.dwir"), dir.path().join("b.dwir"));
    std::fs::write(&pa, a).unwrap();
    std::fs::write(&pb, b).unwrap();
    let o = dwarv(&["diff", pa.to_str().unwrap(), pb.to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{}", text(&o.stdout));
    // Member order inside the struct does carry meaning.
    let c = b.replace("elements=[t2, t1]", "elements=[t1, t2]");
    std::fs::write(&pb, c).unwrap();
    let o = dwarv(&["diff", pa.to_str().unwrap(), pb.to_str().unwrap()]);
    assert_eq!(code(&o), 1);
}

#[test]
fn ignore_code_positions_compares_only_the_declarative_part() {
    let original = std::fs::read_to_string(root().join("corpus/ir/sample.dwir")).unwrap();
    let moved = original
        .replace("line @+1440..+1472", "line @+1444..+1480")
        .replace("declare v1 @+1432", "declare v1 @+1436");
    let dir = tempfile::tempdir().unwrap();
    let b = dir.path().join("b.dwir");
    std::fs::write(&b, moved).unwrap();
    let strict = dwarv(&["diff", "corpus/ir/sample.dwir", b.to_str().unwrap()]);
    assert_eq!(code(&strict), 1);
    assert!(
        text(&strict.stdout).contains("only in A: line table"),
        "{}",
        text(&strict.stdout)
    );
    let loose = dwarv(&[
        "diff",
        "--ignore-code-positions",
        "corpus/ir/sample.dwir",
        b.to_str().unwrap(),
    ]);
    assert_eq!(code(&loose), 0, "{}", text(&loose.stdout));
}

#[test]
fn convert_to_ir_writes_the_canonical_text_atomically_and_reports() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.dwir");
    let report = dir.path().join("r.json");
    let o = dwarv(&[
        "convert",
        "corpus/ir/sample.dwir",
        "-o",
        out.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(root().join("corpus/ir/sample.dwir")).unwrap()
    );
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(r["status"], "ok");
    assert_eq!(r["target"], "ir");
    assert_eq!(r["diagnostics"]["losses"].as_array().unwrap().len(), 0);
    // Nothing but the two outputs: no temporary files left behind.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn failed_conversions_exit_2_and_leave_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &str); 5] = [
        (
            &[
                "convert",
                "tests/regressions/ir/dangling_ref.dwir",
                "-o",
                "OUT.dwir",
            ],
            "breaks IR rules",
        ),
        (
            &[
                "convert",
                "tests/regressions/ir_text/bad_enum.dwir",
                "-o",
                "OUT.dwir",
            ],
            "bad_enum.dwir:3:19",
        ),
        (
            &[
                "convert",
                "corpus/ir/sample.dwir",
                "-o",
                "OUT.spv",
                "--into",
                "corpus/ir/sample.dwir",
            ],
            "the module to write into",
        ),
        (
            &["convert", "corpus/ir/sample.dwir", "-o", "OUT.bin"],
            "give --to ir|spirv|dwarf|visa",
        ),
        (
            &[
                "convert",
                "corpus/ir/sample.dwir",
                "-o",
                "OUT.dwir",
                "--flavour",
                "shader100",
            ],
            "--flavour applies to SPIR-V output",
        ),
    ];
    for (args, want) in cases {
        let out = dir.path().join(args[3]);
        let mut args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        args[3] = out.to_str().unwrap().to_string();
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = dwarv(&refs);
        assert_eq!(code(&o), 2, "{refs:?}: {}", text(&o.stderr));
        assert!(
            text(&o.stderr).contains(want),
            "{refs:?}: {}",
            text(&o.stderr)
        );
        assert!(!out.exists(), "{refs:?} left {}", out.display());
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "temporary files left behind"
    );
}

#[test]
fn other_formats_are_detected_by_content_and_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, Vec<u8>, &str); 5] = [
        (
            "k.dwir",
            vec![0x03, 0x02, 0x23, 0x07, 0, 0, 1, 0],
            "k.dwir: word 2: shorter than the 5-word SPIR-V header",
        ),
        (
            "k.spv",
            b"\x7fELF\x02\x01\x01".to_vec(),
            "k.spv: ELF offset 0x0: not a readable ELF file",
        ),
        (
            "k.o",
            b"BC\xC0\xDE\x35\x14\0\0".to_vec(),
            "k.o: Expected a single module",
        ),
        (
            "k.bc",
            b"; ModuleID = 'k'\nsource_filename = \"k.c\"\ndefine i32 @f( {\n".to_vec(),
            "k.bc: line 4:1: error: expected type",
        ),
        (
            "k.ll",
            0xdead_d010u32.to_le_bytes().to_vec(),
            "k.ll: byte 4: header: a uw field needs 2 byte(s), 0 left (truncated)",
        ),
    ];
    for (name, bytes, want) in cases {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        let o = dwarv(&["dump", p.to_str().unwrap()]);
        assert_eq!(code(&o), 2);
        assert!(
            text(&o.stderr).contains(want),
            "{name}: {}",
            text(&o.stderr)
        );
    }
    let o = dwarv_stdin(&["dump", "-"], b"hello");
    assert_eq!(code(&o), 2);
    assert!(text(&o.stderr).contains("unrecognised input format"));
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["frobnicate"][..],
        &["diff", "only-one"],
        &["convert", "x.dwir"],
        &["roundtrip", "x", "--via", "ir"],
    ] {
        assert_eq!(code(&dwarv(args)), 2, "{args:?}");
    }
    assert_eq!(code(&dwarv(&["--help"])), 0);
    let o = dwarv(&[
        "roundtrip",
        "corpus/ir/sample.dwir",
        "--via",
        "dwarf",
        "--flavour",
        "shader100",
    ]);
    assert_eq!(code(&o), 2);
    assert!(text(&o.stderr).contains("--flavour applies to --via spirv"));
}

/// `roundtrip --via dwarf`: 0 for an object that survives DWARF → IR → DWARF unchanged, 1 with
/// the differences and the writer's losses otherwise.
#[test]
fn roundtrip_via_dwarf_diffs_and_prints_the_losses() {
    let o = dwarv(&["roundtrip", "corpus/ir/glsl_shader.dwir", "--via", "dwarf"]);
    assert_eq!(code(&o), 1, "{}", text(&o.stderr));
    // An event whose scope is not its variable's has no encoding in dwarv's attributes: the
    // loss is printed with the differences.
    assert!(
        text(&o.stdout).contains("ledger: dropped: v15: an event: its scope is not the variable's"),
        "{}",
        text(&o.stdout)
    );
    assert!(text(&o.stderr).contains("changes through DWARF"));
}

/// `roundtrip --via spirv`: exit 1 with the differences and the ledger lines that explain them
/// when the trip loses something, 0 when it does not; bad input is exit 2.
#[test]
fn roundtrip_via_spirv_diffs_and_prints_the_ledger() {
    // A standalone module holds no code: the sample's line rows, scope runs and events are not
    // written (the ledger says so) and not compared (stderr says so); files are compared by
    // path (the directory joined into the name, as every set writes it), so what differs there
    // is the checksum NonSemantic has no operand for.
    let o = dwarv(&["roundtrip", "corpus/ir/sample.dwir", "--via", "spirv"]);
    assert_eq!(code(&o), 1, "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(!out.contains("line table"), "{out}");
    assert!(
        out.contains("    changed: f0 (file \"/src/shade.comp\")\n        - checksum="),
        "{out}"
    );
    assert!(
        out.contains("ledger: unmatched: module: ") && out.contains("line rows not written"),
        "{out}"
    );
    assert!(text(&o.stderr).contains("are not compared"));
    assert!(text(&o.stderr).contains("difference(s)"));
    // The IR of a module without code-anchored records goes through the standalone module whole.
    let dir = tempfile::tempdir().unwrap();
    let ir = dir.path().join("types.dwir");
    std::fs::write(
        &ir,
        "; dwarv-ir 1 source=spirv:NonSemantic.Shader.DebugInfo.100\n\
         f0 = file \"a.comp\"\n\
         u0 = unit glsl file=f0 dwarf=4 debug_version=100\n\
         t0 = base \"float\" enc=float bits=32\n",
    )
    .unwrap();
    let o = dwarv(&["roundtrip", ir.to_str().unwrap(), "--via", "spirv"]);
    assert_eq!(code(&o), 0, "{}{}", text(&o.stdout), text(&o.stderr));
    let o = dwarv(&["roundtrip", "tests/does-not-exist.spv", "--via", "spirv"]);
    assert_eq!(code(&o), 2);
}

/// A closed stdout ends every verb that prints quietly, as it ends a Unix tool: by SIGPIPE,
/// with nothing on stderr (it was a panic, exit 101, "failed printing to stdout").
#[test]
fn a_closed_stdout_ends_each_printing_verb_quietly() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    let tmp = tempfile::tempdir().unwrap();
    // Enough text to fill the pipe (64 KiB) many times over.
    let mut ir = String::from("; dwarv-ir 1 source=ir\n");
    for i in 0..20_000 {
        ir.push_str(&format!(
            "t{i} = base \"type_number_{i}\" enc=signed bits=32\n"
        ));
    }
    let (a, b) = (tmp.path().join("a.dwir"), tmp.path().join("b.dwir"));
    std::fs::write(&a, &ir).unwrap();
    std::fs::write(&b, ir.replace("bits=32", "bits=64")).unwrap();
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    for args in [
        vec!["dump", a],
        vec!["diff", a, b, "--limit", "100000"],
        vec!["roundtrip", a, "--via", "spirv"],
        vec!["stats", a, "--json"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_dwarv"))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 16];
        let _ = child.stdout.as_mut().unwrap().read(&mut first);
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = text(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        let quiet =
            out.status.signal() == Some(libc::SIGPIPE) || out.status.code().is_some_and(|c| c <= 1);
        assert!(quiet, "{args:?}: {:?}, stderr: {stderr}", out.status);
    }
}

/// `roundtrip --via spirv` of a SPIR-V input takes the path `convert` takes and says which on
/// stderr: this valid module, which `convert` returns byte for byte on its own words, round-trips
/// exactly; through the IR (`--through-ir`) the event on a debug-only constant is a real loss,
/// ledgered.
#[test]
fn roundtrip_via_spirv_takes_converts_path_and_says_which() {
    let tmp = tempfile::tempdir().unwrap();
    let spv = tmp.path().join("v.spv");
    let asm = root().join("tests/spirv/value_of_a_debug_only_constant.spvasm");
    let tools = std::env::var_os("DWARV_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join(".tools/bin"));
    let made = Command::new(tools.join("spirv-as"))
        .args(["--target-env", "spv1.1"])
        .arg(&asm)
        .arg("-o")
        .arg(&spv)
        .status()
        .expect("spirv-as runs (scripts/setup.sh installs it)");
    assert!(made.success());
    let spv = spv.to_str().unwrap();
    let out_path = tmp.path().join("o.spv");
    let o = dwarv(&["convert", spv, "-o", out_path.to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{o:?}");
    assert_eq!(
        std::fs::read(&out_path).unwrap(),
        std::fs::read(spv).unwrap()
    );

    let o = dwarv(&["roundtrip", spv, "--via", "spirv"]);
    assert_eq!((code(&o), text(&o.stdout).as_str()), (0, ""), "{o:?}");
    assert!(
        text(&o.stderr).contains("in place, own set, on its words"),
        "{o:?}"
    );

    let o = dwarv(&["roundtrip", spv, "--via", "spirv", "--through-ir"]);
    assert_eq!(code(&o), 1, "{o:?}");
    assert!(
        text(&o.stderr).contains("in place, through the IR: --through-ir"),
        "{o:?}"
    );
    assert!(
        text(&o.stdout).contains("ledger: unmatched: module: 1 declare/value events"),
        "{o:?}"
    );

    let o = dwarv(&["roundtrip", spv, "--via", "dwarf", "--through-ir"]);
    assert_eq!(code(&o), 2, "{o:?}");
}

/// `--into` names the target when `--to` does not: an ELF binary or container takes DWARF, a
/// SPIR-V module SPIR-V, whatever the output is called.
#[test]
fn into_a_base_implies_its_target() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = crate::support::corpus();
    let cases = [
        ("prog.dwarf5.o", "prog.dwarf5.o", b"\x7fELF".as_slice()),
        (
            "kernel.ocl100.spv",
            "kernel.nodebug.spv",
            [0x03, 0x02, 0x23, 0x07].as_slice(),
        ),
    ];
    for (input, base, magic) in cases {
        let out = dir.path().join(format!("{input}.out"));
        let o = dwarv(&[
            "convert",
            corpus.join(input).to_str().unwrap(),
            "--into",
            corpus.join(base).to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code(&o), 0, "{input}: {}", text(&o.stderr));
        let written = std::fs::read(&out).unwrap();
        assert!(written.starts_with(magic), "{input}: not the base's format");
    }
}

#[test]
fn into_a_module_of_another_program_is_refused_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = crate::support::corpus();
    let out = dir.path().join("out.spv");
    // frag.cl's functions are none of kernel.nodebug.spv's.
    let args = [
        "convert",
        corpus.join("frag.O0.bc").to_str().unwrap(),
        "--into",
        corpus.join("kernel.nodebug.spv").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]
    .map(str::to_string);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = dwarv(&args);
    assert_eq!(code(&o), 2, "{}", text(&o.stderr));
    let said = text(&o.stderr);
    assert!(
        said.contains("none of the") && said.contains("--allow-unmatched"),
        "{said}"
    );
    assert!(!out.exists(), "no output");
    let o = dwarv(&[&args[..], &["--allow-unmatched"]].concat());
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("unmatched"), "the losses are said");
}

/// `--strict` checks an `--into`: the translation of the same module passes (what is left is
/// what the set cannot hold); the code of another build of it is refused.
#[test]
fn strict_passes_a_correct_into_and_refuses_a_mismatched_one() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = crate::support::corpus();
    let out = dir.path().join("out.spv");
    let code_module = corpus.join("kernel.nodebug.spv");
    let into = |input: &str| {
        dwarv(&[
            "convert",
            corpus.join(input).to_str().unwrap(),
            "--into",
            code_module.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--strict",
        ])
    };
    let o = into("kernel.O0.bc");
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("kept 3/3 functions, 153/153 line rows")
            && text(&o.stderr).contains("the target cannot hold"),
        "{}",
        text(&o.stderr)
    );
    std::fs::remove_file(&out).unwrap();
    // -O2's blocks are not those of the -O0 code.
    let o = into("kernel.O2.bc");
    assert_eq!(code(&o), 3, "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("an option or the input can avoid"),
        "{}",
        text(&o.stderr)
    );
    assert!(!out.exists());
}

#[test]
fn an_input_without_debug_info_is_refused_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = crate::support::corpus();
    for input in ["kernel.nodebug.bc", "kernel.nodebug.spv"] {
        let out = dir.path().join(format!("{input}.dwir"));
        let args = [
            "convert",
            corpus.join(input).to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]
        .map(str::to_string);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = dwarv(&args);
        assert_eq!(code(&o), 2, "{input}: {}", text(&o.stderr));
        let said = text(&o.stderr);
        assert!(
            said.contains("no debug info") && said.contains("--allow-no-debug-info"),
            "{input}: {said}"
        );
        assert!(!out.exists(), "{input}: no output");
        let o = dwarv(&[&args[..], &["--allow-no-debug-info"]].concat());
        assert_eq!(code(&o), 0, "{input}: {}", text(&o.stderr));
    }
}

#[test]
fn losses_are_said_on_stderr_unless_quiet() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = crate::support::corpus();
    let out = dir.path().join("out.spv");
    let args = [
        "convert",
        corpus.join("kernel.O0.bc").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]
    .map(str::to_string);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = dwarv(&args);
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    let said = text(&o.stderr);
    // Standalone: no code to tie functions and line rows to.
    assert!(
        said.contains("kept 0/3 functions, 0/153 line rows, 27/27 variables")
            && said.contains("--report FILE lists them"),
        "{said}"
    );
    let o = dwarv(&[&args[..], &["--quiet"]].concat());
    assert_eq!(code(&o), 0);
    assert!(o.stderr.is_empty(), "{}", text(&o.stderr));
}

#[test]
fn completions_and_manual_pages_come_from_the_command_line_itself() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let o = dwarv(&["completions", shell]);
        assert_eq!(code(&o), 0, "{shell}: {}", text(&o.stderr));
        let script = text(&o.stdout);
        for verb in ["convert", "translate", "roundtrip", "batch"] {
            assert!(script.contains(verb), "{shell}: no {verb}");
        }
    }
    let o = dwarv(&["man"]);
    assert_eq!(code(&o), 0);
    assert!(text(&o.stdout).contains(".TH dwarv 1"), "a roff page");
    let dir = tempfile::tempdir().unwrap();
    let o = dwarv(&["man", "--dir", dir.path().to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    for verb in ["convert", "translate", "batch", "diff"] {
        let page = std::fs::read_to_string(dir.path().join(format!("dwarv-{verb}.1"))).unwrap();
        assert!(page.contains(&format!(".TH dwarv-{verb} 1")), "{verb}");
    }
}
