//! The offload containers the container tests read: HIP host objects built with hipcc and
//! clang-19 (old and new offload driver, compressed, -fgpu-rdc), the device bitcode, bundles of
//! SPIR-V and bitcode made with clang-offload-bundler-19, an object holding its device image in
//! a section, and an offloading binary made with clang-offload-packager-19. Built once per state
//! of the tree ([`super::fixtures::cached`]); and the helpers both tiers' container tests use.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use super::{corpus, repo_root, run_ok, tool};

/// The folder of the built containers (see the module's header for what it holds).
pub fn inputs() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let src = repo_root().join("corpus/src/saxpy.hip");
        let mut key = super::fixtures::Key::with_tools();
        key.file(&src).text(&corpus().display().to_string());
        super::fixtures::cached("offload", &key, |dir| build(&src, dir))
    })
}

fn build(src: &Path, dir: &Path) {
    let out = |n: &str| dir.join(n);
    run_ok(
        Command::new(tool("hipcc"))
            .args(["-g", "-O1", "--offload-arch=gfx90a", "-c"])
            .arg(src)
            .arg("-o")
            .arg(out("hipcc.o")),
    );
    for (name, extra) in [
        ("clang19.o", &[][..]),
        ("clang19-new.o", &["--offload-new-driver"][..]),
        ("clang19-z.o", &["--offload-compress"][..]),
        ("clang19-rdc.o", &["--offload-new-driver", "-fgpu-rdc"][..]),
    ] {
        run_ok(
            clang19_hip()
                .args(extra)
                .arg("-c")
                .arg(src)
                .arg("-o")
                .arg(out(name)),
        );
    }
    run_ok(
        clang19_hip()
            .args(["--cuda-device-only", "-emit-llvm", "-c"])
            .arg(src)
            .arg("-o")
            .arg(out("device.bc")),
    );
    // -O0 (after the -O1 of clang19_hip): the pair the LLVM/DWARF cross-check agrees on.
    for (name, extra) in [
        ("device.O0.bc", &["--cuda-device-only", "-emit-llvm"][..]),
        ("clang19.O0.o", &[][..]),
    ] {
        run_ok(
            clang19_hip()
                .arg("-O0")
                .args(extra)
                .arg("-c")
                .arg(src)
                .arg("-o")
                .arg(out(name)),
        );
    }
    let c = corpus();
    std::fs::write(out("empty"), b"").unwrap();
    let bundle = |targets: &str, device: &Path, output: &str, extra: &[&str]| {
        run_ok(
            Command::new(tool("clang-offload-bundler-19"))
                .args([
                    "-type=bc",
                    &format!("-targets=host-x86_64-unknown-linux-gnu,{targets}"),
                ])
                .arg(format!("-input={}", out("empty").display()))
                .arg(format!("-input={}", device.display()))
                .arg(format!("-output={}", out(output).display()))
                .args(extra),
        );
    };
    bundle(
        "hip-spirv64-unknown-unknown--generic",
        &c.join("kernel.ocl100.spv"),
        "spirv.bundle",
        &[],
    );
    bundle(
        "hip-spir64-unknown-unknown--generic",
        &c.join("kernel.O0.bc"),
        "bitcode.bundle",
        &[],
    );
    bundle(
        "hip-spir64-unknown-unknown--generic",
        &c.join("kernel.O0.bc"),
        "bitcode-z.bundle",
        &["-compress"],
    );
    run_ok(
        Command::new(tool("clang-offload-bundler-19"))
            .args([
                "-type=o",
                &format!("-targets=host-x86_64-unknown-linux-gnu,{GFX90A}"),
            ])
            .arg(format!("-input={}", c.join("prog.dwarf5.o").display()))
            .arg(format!("-input={}", c.join("kernel.gfx90a.o").display()))
            .arg(format!("-output={}", out("sections.o").display())),
    );
    run_ok(
        Command::new(tool("clang-offload-packager-19"))
            .arg("-o")
            .arg(out("packaged.bin"))
            .arg(format!(
                "--image=file={},triple=spirv64-unknown-unknown,arch=generic,kind=openmp",
                c.join("kernel.ocl100.spv").display()
            ))
            .arg(format!(
                "--image=file={},triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip",
                c.join("kernel.gfx90a.o").display()
            )),
    );
}

/// clang-19's HIP flags for Debian's ROCm layout (device libraries of rocm-device-libs).
pub fn clang19_hip() -> Command {
    let mut c = Command::new(tool("clang-19"));
    c.args([
        "-x",
        "hip",
        "--offload-arch=gfx90a",
        "--rocm-path=/usr",
        "--hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode",
        "-g",
        "-O1",
    ]);
    c
}

pub const GFX90A: &str = "hipv4-amdgcn-amd-amdhsa--gfx90a";

pub fn dwarv(args: &[&str]) -> Output {
    crate::support::dwarv(args)
}

pub fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

pub fn ok(args: &[&str]) -> String {
    let o = dwarv(args);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "dwarv {args:?}\n{out}\n{err}");
    out
}

pub fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Where this file's tests write: outside the shared fixture folder.
pub fn scratch(name: impl AsRef<Path>) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("offload");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}
