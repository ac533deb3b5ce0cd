//! Covers src/back/spirv/ (shader100 outputs on a Vulkan driver).
//!
//! Shaders a Vulkan driver runs: every dwarv path that writes
//! NonSemantic.Shader.DebugInfo.100 into a compute shader gives a module that Mesa's lavapipe
//! (with the Khronos validation layer) turns into a pipeline without a message and that computes
//! exactly the bytes the module dwarv was given computes, while still carrying its debug info.
//!
//! Shaders: corpus/src/kernels.comp (functions with parameters and locals, nested structs and
//! arrays, a loop, a switch, shared memory and a barrier, push constants) and
//! corpus/src/particles.comp (structs with array members, an SSBO and a UBO, a mat4, floats),
//! each built by glslang with `-gVS`, `-gV` and `-g`, and the `-gVS` build after `spirv-opt -O`
//! and after `spirv-opt --private-to-local`. The no-debug build (`-V`) computes the reference
//! of the unoptimised builds. A missing driver, loader or layer fails the test (setup.sh installs
//! them).

use std::path::{Path, PathBuf};
use std::process::Command;

use super::Buffer;

/// The dwarv paths that write shader100 from a shader module `input` (in `dir`), by name.
const PATHS: &[&str] = &[
    "in place",
    "in place --through-ir",
    "strip (the code alone)",
    "strip + attach",
    "DWARF --into the stripped code",
    ".dwir --into the stripped code",
    "via opencl100 and back",
    "via debuginfo and back",
];

/// Known failures, as (shader variant, path), each an open finding; the test fails when one is
/// fixed too, so that this list only shrinks. (None left: the `-g` shaders' line rows, which
/// have no function to be tied to, go `--into` the stripped code by the code's hash,
/// `ModuleInfo::code_id`.)
const KNOWN: &[(&str, &str)] = &[];

fn dwarv(dir: &Path, args: &[&str]) -> Result<(), String> {
    let o = Command::new(env!("CARGO_BIN_EXE_dwarv"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    match o.status.success() {
        true => Ok(()),
        false => Err(format!(
            "dwarv {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&o.stderr)
        )),
    }
}

fn tool(dir: &Path, name: &str, args: &[&str]) {
    crate::support::run_ok(
        Command::new(crate::support::tool(name))
            .args(args)
            .current_dir(dir),
    );
}

/// Writes `path`'s output of `input` (a file in `dir`) and returns its file name.
fn write_path(dir: &Path, input: &str, path: &str) -> Result<String, String> {
    let out = format!("{input}.{}.spv", path.replace([' ', '/', '+', '.'], "_"));
    let strip =
        |code: &str, side: &str| dwarv(dir, &["strip", input, "-o", code, "--debug-out", side]);
    match path {
        "in place" => dwarv(dir, &["convert", input, "-o", &out])?,
        "in place --through-ir" => dwarv(dir, &["convert", input, "-o", &out, "--through-ir"])?,
        "strip (the code alone)" => strip(&out, &format!("{out}.o"))?,
        "strip + attach" => {
            let (code, side) = (format!("{out}.code.spv"), format!("{out}.o"));
            strip(&code, &side)?;
            dwarv(dir, &["attach", &code, &side, "-o", &out])?;
        }
        "DWARF --into the stripped code" => {
            let (code, side) = (format!("{out}.code.spv"), format!("{out}.o"));
            strip(&code, &format!("{out}.side.o"))?;
            dwarv(dir, &["convert", input, "-o", &side, "--to", "dwarf"])?;
            let args = ["convert", &side, "--into", &code, "-o", &out];
            dwarv(dir, &[&args[..], &["--flavour", "shader100"]].concat())?;
        }
        ".dwir --into the stripped code" => {
            let (code, ir) = (format!("{out}.code.spv"), format!("{out}.dwir"));
            strip(&code, &format!("{out}.side.o"))?;
            dwarv(dir, &["dump", input, "-o", &ir])?;
            let args = ["convert", &ir, "--into", &code, "-o", &out];
            dwarv(dir, &[&args[..], &["--flavour", "shader100"]].concat())?;
        }
        _ => {
            let set = path
                .strip_prefix("via ")
                .and_then(|p| p.strip_suffix(" and back"))
                .unwrap();
            let there = format!("{out}.{set}.spv");
            dwarv(dir, &["convert", input, "-o", &there, "--flavour", set])?;
            dwarv(
                dir,
                &["convert", &there, "-o", &out, "--flavour", "shader100"],
            )?;
        }
    }
    Ok(out)
}

/// A shader's buffers and push constants over deterministic data, and its workgroup count.
struct Workload {
    buffers: fn() -> Vec<Buffer>,
    push: Vec<u8>,
    groups: u32,
}

fn words(f: impl Fn(u32) -> u32, n: u32) -> Vec<u8> {
    (0..n).flat_map(|i| f(i).to_le_bytes()).collect()
}

fn kernels() -> Workload {
    Workload {
        buffers: || {
            vec![
                Buffer {
                    binding: 0,
                    uniform: false,
                    bytes: words(|i| i.wrapping_mul(0x9e37_79b9) ^ (i >> 3), 256),
                },
                Buffer {
                    binding: 1,
                    uniform: false,
                    bytes: vec![0; 1024],
                },
            ]
        },
        push: [256u32, 0x1234]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect(),
        groups: 4,
    }
}

fn particles() -> Workload {
    Workload {
        buffers: || {
            // 256 particles of 24 floats (pos, mass, vel, age, trail[4]); the uniform block:
            // world (16 floats), two emitters (8), gravity and dt (4), count (a uint) at word 28.
            let f = |x: f32| x.to_bits();
            let items = words(|i| f(((i % 97) as f32) * 0.25 + 1.0), 256 * 24);
            let mut params = words(|i| f(if i % 5 == 0 { 1.0 } else { 0.125 * i as f32 }), 32);
            params[28 * 4..29 * 4].copy_from_slice(&256u32.to_le_bytes());
            vec![
                Buffer {
                    binding: 0,
                    uniform: false,
                    bytes: items,
                },
                Buffer {
                    binding: 1,
                    uniform: true,
                    bytes: params,
                },
            ]
        },
        push: Vec::new(),
        groups: 4,
    }
}

/// What a module did on lavapipe: the buffers after the dispatch and the messages, with the
/// object handles (which differ from run to run) taken out.
struct Ran {
    buffers: Vec<Vec<u8>>,
    messages: Vec<String>,
}

/// Runs `file` (in `dir`) on lavapipe; `Err` when the driver refuses it.
fn run(dir: &Path, file: &str, w: &Workload) -> Result<Ran, String> {
    let spirv = std::fs::read(dir.join(file)).unwrap();
    let r = super::dispatch(&spirv, &(w.buffers)(), &w.push, w.groups)?;
    let messages = r
        .messages
        .iter()
        .map(|m| {
            m.split_whitespace()
                .filter(|w| !w.starts_with("0x"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    Ok(Ran {
        buffers: r.buffers,
        messages,
    })
}

/// `file` carries NonSemantic debug info that reads back with the functions, blocks and variables
/// of `input`'s, and line rows if it has any.
fn carries_debug_info(dir: &Path, file: &str, input: &str) -> Result<(), String> {
    let read = |f: &str| {
        let bytes = std::fs::read(dir.join(f)).unwrap();
        dwarv::read(&bytes, f).map(|r| (bytes, r.module))
    };
    let (bytes, out) = read(file).map_err(|e| e.to_string())?;
    let (_, given) = read(input).map_err(|e| e.to_string())?;
    if !String::from_utf8_lossy(&bytes).contains("NonSemantic.Shader.DebugInfo.100") {
        return Err("no NonSemantic.Shader.DebugInfo.100 import".into());
    }
    let counts = |m: &dwarv::Module| (m.scopes.len(), m.vars.len(), !m.lines.is_empty());
    match counts(&out) == counts(&given) {
        true => Ok(()),
        false => Err(format!(
            "(scopes, variables, has lines) {:?} read back, {:?} given",
            counts(&out),
            counts(&given)
        )),
    }
}

#[test]
fn every_shader100_path_loads_and_computes_the_same_on_lavapipe() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let src = crate::support::repo_root().join("corpus/src");
    let mut failures: Vec<(String, String, String)> = Vec::new();
    let mut checked = 0;
    for (shader, workload) in [("kernels", kernels()), ("particles", particles())] {
        let source: PathBuf = src.join(format!("{shader}.comp"));
        let source = source.to_str().unwrap();
        let nodebug = format!("{shader}.nodebug.spv");
        tool(dir, "glslangValidator", &["-V", "-o", &nodebug, source]);
        let reference = run(dir, &nodebug, &workload)
            .unwrap_or_else(|e| panic!("{nodebug} does not run on lavapipe: {e}"));
        assert_eq!(reference.messages, Vec::<String>::new(), "{nodebug}");
        let mut variants = Vec::new();
        for flag in ["-gVS", "-gV", "-g"] {
            let out = format!("{shader}{flag}.spv");
            tool(dir, "glslangValidator", &["-V", flag, "-o", &out, source]);
            variants.push((out, true));
        }
        for (name, pass) in [("O", "-O"), ("p2l", "--private-to-local")] {
            let out = format!("{shader}-gVS.{name}.spv");
            tool(
                dir,
                "spirv-opt",
                &[pass, &format!("{shader}-gVS.spv"), "-o", &out],
            );
            variants.push((out, false));
        }
        for (variant, same_code_as_nodebug) in &variants {
            // The module as given computes the reference (optimised ones: what they compute, and
            // the messages they have the layer give already).
            let own = run(dir, variant, &workload)
                .unwrap_or_else(|e| panic!("{variant} does not run on lavapipe: {e}"));
            if *same_code_as_nodebug {
                assert!(
                    own.buffers == reference.buffers,
                    "{variant} computes otherwise than {nodebug}"
                );
                assert_eq!(own.messages, Vec::<String>::new(), "{variant}");
            }
            for path in PATHS {
                checked += 1;
                let judged = write_path(dir, variant, path).and_then(|out| {
                    let got = run(dir, &out, &workload)?;
                    if got.buffers != own.buffers {
                        return Err("computes other bytes".into());
                    }
                    // No message the module given did not have already (the layer's
                    // SPIRV-Tools 2023 finds fault with some of spirv-opt's output).
                    let new: Vec<_> = got
                        .messages
                        .iter()
                        .filter(|m| !own.messages.contains(m))
                        .collect();
                    if !new.is_empty() {
                        return Err(format!("new messages: {new:#?}"));
                    }
                    match *path {
                        "strip (the code alone)" => Ok(()),
                        _ => carries_debug_info(dir, &out, variant),
                    }
                });
                if let Err(e) = judged {
                    failures.push((variant.clone(), path.to_string(), e));
                }
            }
        }
    }
    eprintln!(
        "lavapipe: {} of {checked} shader100 outputs load, compute the same and carry debug info",
        checked - failures.len()
    );
    let got: Vec<(&str, &str)> = failures
        .iter()
        .map(|(v, p, _)| (v.as_str(), p.as_str()))
        .collect();
    assert_eq!(got, KNOWN, "failures: {failures:#?}");
}

/// Converting a Vulkan shader into a set Vulkan drivers refuse says so: a
/// warning on stderr naming the set to use, an `unloadable` loss in the report, exit 3 and no
/// output under `--strict`, a count in a batch's summary; and the warning is true: lavapipe
/// refuses the output. An OpenCL kernel in OpenCL.DebugInfo.100 gets no such warning.
#[test]
fn a_vulkan_shader_into_a_set_vulkan_refuses_is_said() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let source = crate::support::repo_root().join("corpus/src/kernels.comp");
    tool(
        dir,
        "glslangValidator",
        &["-V", "-gVS", "-o", "k.spv", source.to_str().unwrap()],
    );
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_dwarv"))
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap()
    };
    for (set, import) in [
        ("opencl100", "OpenCL.DebugInfo.100"),
        ("debuginfo", "DebugInfo"),
    ] {
        let out = format!("k.{set}.spv");
        let report = format!("k.{set}.json");
        let o = run(&[
            "convert",
            "k.spv",
            "-o",
            &out,
            "--flavour",
            set,
            "--report",
            &report,
        ]);
        assert_eq!(o.status.code(), Some(0), "{o:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains(&format!(
                "warning: {out}: a Vulkan shader with {import} debug info"
            )) && err.contains("--flavour shader100"),
            "{err}"
        );
        let json = std::fs::read_to_string(dir.join(&report)).unwrap();
        assert!(json.contains("\"kind\": \"unloadable\""), "{json}");
        let spirv = std::fs::read(dir.join(&out)).unwrap();
        let w = kernels();
        let refused = super::dispatch(&spirv, &(w.buffers)(), &w.push, w.groups);
        assert!(refused.is_err(), "lavapipe loaded the {set} module");

        let strict = format!("k.{set}.strict.spv");
        let o = run(&[
            "convert",
            "k.spv",
            "-o",
            &strict,
            "--flavour",
            set,
            "--strict",
        ]);
        assert_eq!(o.status.code(), Some(3), "{o:?}");
        assert!(!dir.join(&strict).exists());
    }
    let o = run(&[
        "batch",
        "k.spv",
        "-o",
        "out",
        "--to",
        "spirv",
        "--flavour",
        "opencl100",
    ]);
    let summary =
        String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    assert!(
        summary.contains("will not load") && summary.contains("1 Vulkan shader(s)"),
        "{summary}"
    );

    let kernel = crate::support::repo_root().join("corpus/ir/opencl_kernel.dwir");
    let o = run(&[
        "convert",
        kernel.to_str().unwrap(),
        "-o",
        "kernel.spv",
        "--flavour",
        "opencl100",
    ]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert!(
        !String::from_utf8_lossy(&o.stderr).contains("warning"),
        "{o:?}"
    );
}
