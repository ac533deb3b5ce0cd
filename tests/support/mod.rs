//! Helpers shared by the two test tiers (tests/all, tests/judges): tools, fixtures, files.
//!
//! External tools are real consumers of dwarv's output (DESIGN.md "Tests"). A
//! missing tool is a test failure that points at `scripts/setup.sh`, never a
//! skip.
#![allow(dead_code)] // each test binary uses a different subset

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

pub mod cli_batch;
pub mod cli_strip_attach;
pub mod dwarf_cfi;
pub mod dwarf_read;
pub mod dwarf_write;
pub mod fixtures;
pub mod ir_merge;
pub mod llvm_corpus;
pub mod llvm_read;
pub mod offload;
pub mod rng;
pub mod spirv_conformance;
pub mod spirv_set_to_set;
pub mod spirv_shader200;
pub mod spirv_write;
pub mod visa_tables;

/// Tools that must come from the project-local SPIRV-Tools (>= 2025.5), never
/// from PATH: Debian's /usr/bin/spirv-val 2023.1 rejects valid debug types; and
/// the SPIRV-LLVM-Translator build of PyPI's dpcpp-llvm-spirv (scripts/setup.sh).
const LOCAL_TOOLS: &[&str] = &[
    "spirv-val",
    "spirv-as",
    "spirv-dis",
    "spirv-opt",
    "llvm-spirv-dpcpp",
];

/// Minimum SPIRV-Tools version (year, release) the tests rely on.
pub const MIN_SPIRV_TOOLS: (u32, u32) = (2025, 5);

/// The repository root (the dwarv package directory).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Where the project-local SPIRV-Tools live: `$DWARV_TOOLS`, else `<repo>/.tools/bin`.
pub fn tools_dir() -> PathBuf {
    match std::env::var_os("DWARV_TOOLS") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => repo_root().join(".tools").join("bin"),
    }
}

/// Path of an external tool, or `None` if it is not installed. `spirv-*`
/// tools are looked up only in [`tools_dir`]; everything else on PATH.
pub fn find_tool(name: &str) -> Option<PathBuf> {
    if LOCAL_TOOLS.contains(&name) {
        let p = tools_dir().join(name);
        return is_executable(&p).then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| is_executable(p))
}

/// Path of an external tool; panics (fails the test) if it is missing.
pub fn tool(name: &str) -> PathBuf {
    find_tool(name).unwrap_or_else(|| {
        let where_ = if LOCAL_TOOLS.contains(&name) {
            format!("in {}", tools_dir().display())
        } else {
            "on PATH".to_string()
        };
        panic!("required tool `{name}` not found {where_}: run `bash scripts/setup.sh`")
    })
}

/// Runs `cmd`, panics with its stdout/stderr unless it exits successfully.
pub fn run_ok(cmd: &mut Command) -> Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e} (run `bash scripts/setup.sh`)"));
    if !out.status.success() {
        panic!(
            "{cmd:?} failed ({})\n--- stdout\n{}\n--- stderr\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    out
}

/// Validates a SPIR-V file with the project-local spirv-val; panics with its
/// diagnostics on failure. `target_env` e.g. "vulkan1.1", "opencl2.0", "spv1.4".
pub fn spirv_val(file: &Path, target_env: &str) {
    run_ok(
        Command::new(tool("spirv-val"))
            .arg("--target-env")
            .arg(target_env)
            .arg(file),
    );
}

/// spirv-val in `target_env`: Ok, or its complaint (stderr).
pub fn spirv_val_result(file: &Path, target_env: &str) -> Result<(), String> {
    let o = Command::new(tool("spirv-val"))
        .args(["--target-env", target_env])
        .arg(file)
        .output()
        .unwrap_or_else(|e| panic!("spirv-val does not run: {e}"));
    if o.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).into_owned())
    }
}

/// spirv-val's universal target environment for a module's version word.
pub fn universal_env(version: u32) -> &'static str {
    match version {
        v if v <= 0x0001_0000 => "spv1.0",
        0x0001_0100 => "spv1.1",
        0x0001_0200 => "spv1.2",
        0x0001_0300 => "spv1.3",
        0x0001_0400 => "spv1.4",
        0x0001_0500 => "spv1.5",
        _ => "spv1.6",
    }
}

/// "SPIRV-Tools v2025.5 262bdab..." -> (2025, 5).
pub fn parse_spirv_tools_version(text: &str) -> Option<(u32, u32)> {
    let rest = &text[text.find("SPIRV-Tools v")? + "SPIRV-Tools v".len()..];
    let mut nums = rest
        .split(|c: char| !c.is_ascii_digit())
        .map(str::parse::<u32>);
    Some((nums.next()?.ok()?, nums.next()?.ok()?))
}

/// The corpus `corpus/build.sh` makes with its default compilers (see its header for the file
/// names), built once per state of the tree ([`fixtures::cached`]). Read it, never write into
/// it: the folder is shared by every test and both tiers. Panics if the build fails.
pub fn corpus() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| corpus_built(&[]))
}

/// The corpus built with `env` given to `corpus/build.sh` (`CLANG=clang-19`, …), cached as
/// [`corpus`] is.
pub fn corpus_built(env: &[(&str, &str)]) -> PathBuf {
    let mut key = fixtures::Key::with_tools();
    key.tree(&repo_root().join("corpus").join("src"))
        .file(&repo_root().join("corpus").join("build.sh"));
    for (name, value) in env {
        key.text(name).text(value);
    }
    let tag: String = env.iter().map(|(_, v)| format!("-{v}")).collect();
    fixtures::cached(&format!("corpus{tag}"), &key, |out| build_corpus(out, env))
}

/// Runs `corpus/build.sh` with `OUT=out` and `env`; panics with its output on failure.
pub fn build_corpus(out: &Path, env: &[(&str, &str)]) {
    let mut build = Command::new("bash");
    build
        .arg(repo_root().join("corpus").join("build.sh"))
        .env("OUT", out)
        .env("DWARV_TOOLS", tools_dir());
    for (name, value) in env {
        build.env(name, value);
    }
    run_ok(&mut build);
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    // metadata() follows symlinks, so .tools/bin links are checked at their target.
    std::fs::metadata(p)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// `tool --version` (or other args) output, stdout and stderr joined.
pub fn tool_output<S: AsRef<OsStr>>(name: &str, args: &[S]) -> String {
    let out = run_ok(Command::new(tool(name)).args(args));
    let mut s = String::from_utf8_lossy(&out.stdout).into_owned();
    s.push_str(&String::from_utf8_lossy(&out.stderr));
    s
}

/// The third-party corpus folder `name` of `../shared/corpus/` (beside the repository, as CI
/// checks it out), or `None` when it is absent. Absent is said in the test's output, and under
/// `CI=true` it fails the test: a test that checked nothing must not pass silently there.
pub fn shared_corpus(name: &str) -> Option<PathBuf> {
    let dir = repo_root()
        .join("..")
        .join("shared")
        .join("corpus")
        .join(name);
    if dir.is_dir() {
        return Some(dir);
    }
    let msg = format!(
        "third-party corpus {} is absent: this test checked nothing",
        dir.display()
    );
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{msg} (CI=true)");
    }
    eprintln!("SKIPPED: {msg}");
    None
}

/// The peer corpus (llvm-spirv's own debug-info tests at LLVM 14), as [`shared_corpus`].
pub fn peer() -> Option<PathBuf> {
    shared_corpus("llvm-spirv-debuginfo")
}

/// The peer corpus's SPIR-V modules (see [`build_peer`]), built once per state of the peer
/// corpus and the tools, sorted; `None` when the peer corpus is absent (as [`peer`]). Read them,
/// never write beside them: the folder is shared by every test and both tiers.
pub fn peer_modules() -> Option<&'static [PathBuf]> {
    static MODULES: OnceLock<Option<Vec<PathBuf>>> = OnceLock::new();
    MODULES
        .get_or_init(|| {
            let src = peer()?;
            let mut key = fixtures::Key::with_tools();
            key.tree(&src);
            // The list of modules made is kept beside them: a tool that failed may have left
            // a partial file.
            let dir = fixtures::cached("peer", &key, |out| {
                let made: Vec<String> = build_peer(&src, out)
                    .iter()
                    .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
                    .collect();
                std::fs::write(out.join(PEER_LIST), made.join("\n")).unwrap();
            });
            let list = std::fs::read_to_string(dir.join(PEER_LIST)).unwrap();
            Some(list.lines().map(|name| dir.join(name)).collect())
        })
        .as_deref()
}

/// The file in the peer fixture's folder that lists the modules made.
const PEER_LIST: &str = "modules.txt";

/// Builds the peer corpus into SPIR-V modules in `out`: every `.spvasm` assembled, every `.spt`
/// converted, every `.ll`/`.cl` translated by llvm-spirv-14 in ocl-100 and legacy mode. Inputs
/// a tool refuses are skipped; so are the intermediate bitcode files. Returns the modules made,
/// sorted.
fn build_peer(src: &Path, out: &Path) -> Vec<PathBuf> {
    let inputs = files_under(src, |_| true);
    let quiet = |c: &mut Command| {
        c.stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    // Four workers: the compilers dominate, and the inputs are independent.
    let mut made: Vec<PathBuf> = in_parallel(inputs, 4, |p| Some(build_one(src, out, &p, &quiet)))
        .into_iter()
        .flatten()
        .collect();
    made.sort();
    for bc in files_with_extension(out, "bc") {
        let _ = std::fs::remove_file(bc);
    }
    made
}

/// `f` of every item, on `workers` threads (the items are independent); the results that are
/// `Some`, in no particular order.
pub fn in_parallel<T: Send, R: Send>(
    items: Vec<T>,
    workers: usize,
    f: impl Fn(T) -> Option<R> + Sync,
) -> Vec<R> {
    let work = std::sync::Mutex::new(items);
    let done = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let Some(item) = work.lock().unwrap().pop() else {
                    break;
                };
                if let Some(r) = f(item) {
                    done.lock().unwrap().push(r);
                }
            });
        }
    });
    done.into_inner().unwrap()
}

/// One peer input → the SPIR-V modules made from it.
fn build_one(
    src: &Path,
    out: &Path,
    p: &Path,
    quiet: &dyn Fn(&mut Command) -> bool,
) -> Vec<PathBuf> {
    let mut made = Vec::new();
    {
        let p = p.to_path_buf();
        let rel = p.strip_prefix(src).unwrap().display().to_string();
        let base = out.join(rel.replace('/', "_"));
        let spv = base.with_extension("spv");
        let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
        let bc = base.with_extension("bc");
        let ok = match ext {
            "spvasm" => quiet(
                Command::new(tool("spirv-as"))
                    .args(["--target-env", "spv1.6"])
                    .arg(&p)
                    .arg("-o")
                    .arg(&spv),
            ),
            "spt" => quiet(
                Command::new(tool("llvm-spirv-14"))
                    .arg("-to-binary")
                    .arg(&p)
                    .arg("-o")
                    .arg(&spv),
            ),
            "ll" => quiet(Command::new(tool("llvm-as")).arg(&p).arg("-o").arg(&bc)),
            "cl" => quiet(
                Command::new(tool("clang-14"))
                    .args([
                        "-target",
                        "spir64",
                        "-x",
                        "cl",
                        "-cl-std=CL2.0",
                        "-g",
                        "-O0",
                    ])
                    .args(["-emit-llvm", "-c"])
                    .arg(&p)
                    .arg("-o")
                    .arg(&bc),
            ),
            _ => false,
        };
        if !ok {
            return made;
        }
        if matches!(ext, "ll" | "cl") {
            for (mode, file) in [
                ("ocl-100", spv.clone()),
                ("legacy", base.with_extension("legacy.spv")),
            ] {
                let mut c = Command::new(tool("llvm-spirv-14"));
                c.arg(format!("--spirv-debug-info-version={mode}"))
                    .arg(&bc)
                    .arg("-o")
                    .arg(&file);
                if quiet(&mut c) {
                    made.push(file);
                }
            }
        } else {
            made.push(spv);
        }
    }
    made
}

/// Whether `llvm-spirv-14 -r` reads a SPIR-V module back into LLVM (the bitcode lands beside it);
/// its stderr on failure.
pub fn llvm_spirv_reads(path: &Path) -> Result<(), String> {
    let o = Command::new(tool("llvm-spirv-14"))
        .arg("-r")
        .arg(path)
        .arg("-o")
        .arg(path.with_extension("bc"))
        .output()
        .unwrap_or_else(|e| panic!("llvm-spirv-14 does not run: {e}"));
    if o.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).into_owned())
    }
}

/// Whether the newest SPIRV-LLVM-Translator here (`llvm-spirv-dpcpp`, the judge of
/// NonSemantic.Shader.DebugInfo.200) reads a SPIR-V module back into LLVM (the bitcode lands
/// beside it); its stderr (or the signal) on failure.
pub fn dpcpp_reads(path: &Path) -> Result<(), String> {
    let o = Command::new(tool("llvm-spirv-dpcpp"))
        .arg("-r")
        .arg(path)
        .arg("-o")
        .arg(path.with_extension("bc"))
        .output()
        .unwrap_or_else(|e| panic!("llvm-spirv-dpcpp does not run: {e}"));
    if o.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}: {}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        ))
    }
}

/// Runs the dwarv binary with `args`.
pub fn dwarv(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dwarv"))
        .args(args)
        .output()
        .expect("run dwarv")
}

/// `dwarv convert INPUT -o OUT ARGS… --report OUT.json`; panics unless dwarv exits 0. Returns
/// the report.
pub fn convert_report(input: &Path, out: &Path, args: &[&str]) -> serde_json::Value {
    let report = out.with_extension("json");
    let (i, o, r) = (
        input.to_str().unwrap(),
        out.to_str().unwrap(),
        report.to_str().unwrap(),
    );
    let mut all = vec!["convert", i, "-o", o, "--report", r];
    all.extend(args);
    let res = dwarv(&all);
    assert!(
        res.status.success(),
        "{all:?}: {}",
        String::from_utf8_lossy(&res.stderr)
    );
    serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap()
}

/// An x86-64 ELF object holding the DWARF sections gimli wrote, plus `extra` (name, bytes)
/// sections: what hand-made DWARF tests feed the reader.
pub fn elf_of_dwarf(
    sections: &gimli::write::Sections<gimli::write::EndianVec<gimli::LittleEndian>>,
    extra: &[(&str, &[u8])],
) -> Vec<u8> {
    let mut obj = object::write::Object::new(
        object::BinaryFormat::Elf,
        object::Architecture::X86_64,
        object::Endianness::Little,
    );
    let mut add = |name: &[u8], data: &[u8], align: u64| {
        let s = obj.add_section(vec![], name.to_vec(), object::SectionKind::Debug);
        obj.append_section_data(s, data, align);
    };
    sections
        .for_each(|id, data| -> Result<(), ()> {
            if !data.slice().is_empty() {
                add(id.name().as_bytes(), data.slice(), 1);
            }
            Ok(())
        })
        .unwrap();
    for (name, data) in extra {
        add(name.as_bytes(), data, 8);
    }
    obj.write().unwrap()
}

/// Operations LLVM 14's expression decoder does not know: AMD's raw 0xe1–0xec and
/// DW_OP_LLVM_user (0xe9), DW_OP_implicit_pointer, DW_OP_const_type.
pub fn llvm14_unknown(first: u8) -> bool {
    (0xe1..=0xec).contains(&first) || first == 0xa0 || first == 0xa4
}

/// Runs `llvm-dwarfdump --verify`; returns the number of expressions it could not decode
/// ("invalid DWARF expression": LLVM 14 does not know AMD's vendor operations,
/// DW_OP_implicit_pointer, DW_OP_const_type), after checking each with dwarv's decoder: it must
/// decode the bytes LLVM stopped at completely. Panics on any other complaint.
pub fn dwarfdump_verify(obj: &Path, amd: dwarv::unstable::dwarf::AmdOps) -> usize {
    let o = Command::new(tool("llvm-dwarfdump"))
        .arg("--verify")
        .arg(obj)
        .output()
        .expect("llvm-dwarfdump runs");
    let text =
        String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    let errors: Vec<&str> = text.lines().filter(|l| l.starts_with("error:")).collect();
    let others: Vec<&&str> = errors
        .iter()
        .filter(|l| !l.contains("DIE contains invalid DWARF expression"))
        .collect();
    assert!(others.is_empty(), "{}: {others:?}\n{text}", obj.display());
    if errors.is_empty() {
        assert!(text.contains("No errors."), "{}:\n{text}", obj.display());
    }
    let enc = dwarv::unstable::dwarf::Encoding {
        address_size: 8,
        offset_size: 4,
        amd,
    };
    let mut undecoded = 0;
    for l in text.lines().filter(|l| l.contains("<decoding error>")) {
        let hex = l.split("<decoding error>").nth(1).unwrap();
        let hex = hex.trim().trim_end_matches(')');
        let bytes: Vec<u8> = hex
            .split_whitespace()
            .map(|b| u8::from_str_radix(b, 16).unwrap())
            .collect();
        assert!(
            llvm14_unknown(bytes[0]),
            "{}: LLVM stopped at an operation it should know: {l}",
            obj.display()
        );
        let ops = dwarv::unstable::dwarf::decode_expr(
            &bytes,
            &enc,
            &mut dwarv::unstable::dwarf::OffsetRefs,
        )
        .unwrap_or_else(|e| panic!("{}: dwarv cannot decode {hex}: {e}", obj.display()));
        assert!(
            ops.iter().all(|op| op.code != dwarv::ir::OpCode::RAW),
            "{}: undecodable bytes in {hex}: {ops:?}",
            obj.display()
        );
        undecoded += 1;
    }
    assert_eq!(
        undecoded > 0,
        !errors.is_empty(),
        "{}: invalid expressions without bytes to check:\n{text}",
        obj.display()
    );
    undecoded
}

/// The files under `root` (recursively) that `keep` takes, sorted.
pub fn files_under(root: &Path, keep: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if keep(&p) {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// The hand-written IR texts of `corpus/ir`, sorted.
pub fn corpus_ir() -> Vec<PathBuf> {
    files_with_extension(&repo_root().join("corpus").join("ir"), "dwir")
}

/// The files under `root` (recursively) whose extension is `ext`, sorted.
pub fn files_with_extension(root: &Path, ext: &str) -> Vec<PathBuf> {
    files_under(root, |p| p.extension().is_some_and(|x| x == ext))
}
pub mod visa_gen;
