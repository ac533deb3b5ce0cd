//! Covers src/container/. dwarv's own checks of it: tests/all/container/offload.rs.
//!
//! Device code inside what GPU toolchains ship: HIP host objects built at test time
//! with hipcc and clang-19 (old and new offload driver, compressed), bundles made with
//! clang-offload-bundler-19 from SPIR-V and bitcode, offloading binaries made with
//! clang-offload-packager-19; every verb sees the host and each device part, `--part` picks
//! one, damaged containers exit 2 naming the entry, and `convert --into` a host object replaces
//! one device image's debug info keeping the rest of the container byte for byte.

use crate::support::offload::*;
use std::path::Path;
use std::process::{Command, Output};

use crate::support::{repo_root, run_ok, tool};

/// Every section's name, header fields but its offset, and bytes, but `.hip_fatbin`'s.
fn sections_but_fatbin(elf: &[u8]) -> Vec<(String, u64, u64, Vec<u8>)> {
    use object::{Object, ObjectSection};
    let f = object::File::parse(elf).unwrap();
    f.sections()
        .filter(|s| s.name() != Ok(".hip_fatbin"))
        .map(|s| {
            let data = s.data().unwrap_or_default().to_vec();
            (s.name().unwrap().to_string(), s.size(), s.align(), data)
        })
        .collect()
}

/// How many bytes of two equally long slices differ.
fn differing(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).filter(|(x, y)| x != y).count()
}

/// Where part `part`'s image lies in `bytes` (a borrowed slice of them).
fn image_range(bytes: &[u8], part: &str) -> std::ops::Range<usize> {
    let parts = dwarv::unstable::container::open(bytes, "x")
        .unwrap()
        .unwrap();
    let i = dwarv::unstable::container::select(&parts, part).unwrap();
    let start = parts[i].bytes.as_ptr() as usize - bytes.as_ptr() as usize;
    start..start + parts[i].bytes.len()
}

#[test]
fn convert_into_a_host_object_replaces_one_device_image_and_keeps_the_rest() {
    for name in ["hipcc.o", "clang19.o"] {
        let orig_path = inputs().join(name);
        let orig = std::fs::read(&orig_path).unwrap();
        let dwir = scratch(format!("{name}.device.dwir"));
        ok(&["dump", "--part", "gfx90a", p(&orig_path), "-o", p(&dwir)]);
        // The same debug info back in: the image is rewritten in its place.
        let same = scratch(format!("{name}.same.o"));
        ok(&[
            "convert",
            p(&dwir),
            "--part",
            "gfx90a",
            "--into",
            p(&orig_path),
            "-o",
            p(&same),
        ]);
        let out = std::fs::read(&same).unwrap();
        let r = image_range(&orig, "gfx90a");
        assert_eq!(out.len(), orig.len());
        // Before the image, only the entry's size field (8 bytes) may change.
        assert!(
            differing(&out[..r.start], &orig[..r.start]) <= 8,
            "{name}: before the image"
        );
        assert!(
            out[r.end..] == orig[r.end..],
            "{name}: bytes after the image"
        );
        ok(&["diff", p(&orig_path), p(&same)]);
        verify_device(&same, GFX90A);
        // A longer file name: the image grows, the bundle and .hip_fatbin with it.
        let long = "d".repeat(9000);
        let grown_dwir = scratch(format!("{name}.grown.dwir"));
        let t = std::fs::read_to_string(&dwir).unwrap();
        let t = t.replacen("saxpy.hip\"", &format!("saxpy.hip.{long}\""), 1);
        std::fs::write(&grown_dwir, t).unwrap();
        let grown = scratch(format!("{name}.grown.o"));
        ok(&[
            "convert",
            p(&grown_dwir),
            "--part",
            "gfx90a",
            "--into",
            p(&orig_path),
            "-o",
            p(&grown),
        ]);
        let g = std::fs::read(&grown).unwrap();
        assert!(g.len() > orig.len());
        let gr = image_range(&g, "gfx90a");
        assert_eq!(gr.start, r.start);
        // Before the image: the ELF's section header offset and the entry's size field.
        assert!(
            differing(&g[..r.start], &orig[..r.start]) <= 16,
            "{name}: before the image"
        );
        // Every other section's bytes are the same.
        assert_eq!(
            sections_but_fatbin(&g),
            sections_but_fatbin(&orig),
            "{name}"
        );
        ok(&["diff", "--part", "host", p(&orig_path), p(&grown)]);
        assert!(ok(&["dump", "--part", "gfx90a", p(&grown)]).contains(&long));
        verify_device(&grown, GFX90A);
        // The host object still links.
        run_ok(
            Command::new(tool("ld.lld-19"))
                .arg("-r")
                .arg(&grown)
                .arg("-o")
                .arg(scratch(format!("{name}.linked.o"))),
        );
    }
    // Into a compressed bundle: refused, no output.
    let out = scratch("z-into.o");
    let o = dwarv(&[
        "convert",
        p(&scratch("hipcc.o.device.dwir")),
        "--part",
        "gfx90a",
        "--into",
        p(&inputs().join("clang19-z.o")),
        "-o",
        p(&out),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("plain bundles"));
    assert!(!out.exists());
}

/// `dwarv convert DWIR --to dwarf --part gfx90a --into CONTAINER -o OUT`.
fn into_gfx90a(dwir: &Path, container: &Path, out: &Path) -> Output {
    let args = [
        "--to",
        "dwarf",
        "--part",
        "gfx90a",
        "--into",
        p(container),
        "-o",
        p(out),
    ];
    dwarv(&[&["convert", p(dwir)][..], &args].concat())
}

/// clang-offload-bundler-19 takes the device image back out of `obj`'s `.hip_fatbin` and
/// llvm-dwarfdump-19 --verify finds nothing wrong in it.
fn verify_device(obj: &Path, target: &str) {
    let fatbin = obj.with_extension("fatbin");
    run_ok(
        Command::new("objcopy")
            .args(["-O", "binary", "--only-section=.hip_fatbin"])
            .arg(obj)
            .arg(&fatbin),
    );
    let image = obj.with_extension("co");
    run_ok(
        Command::new(tool("clang-offload-bundler-19"))
            .args(["-unbundle", "-type=o", &format!("-targets={target}")])
            .arg(format!("-input={}", fatbin.display()))
            .arg(format!("-output={}", image.display())),
    );
    run_ok(
        Command::new(tool("llvm-dwarfdump-19"))
            .arg("--verify")
            .arg(&image),
    );
}

#[test]
fn an_executable_shows_its_device_image_and_takes_it_back_when_it_fits() {
    let main = scratch("main.cpp");
    std::fs::write(
        &main,
        "int launch(int, float, const float *, float *);\nint main() { return launch(0, 1, 0, 0); }\n",
    )
    .unwrap();
    let exe = scratch("saxpy.exe");
    run_ok(
        Command::new(tool("clang++-19"))
            .args(["-g", "-fuse-ld=lld"])
            .arg(&main)
            .arg(inputs().join("clang19.o"))
            .args(["-L/usr/lib/x86_64-linux-gnu", "-lamdhip64", "-o"])
            .arg(&exe),
    );
    let stats = ok(&["stats", p(&exe)]);
    assert!(
        stats.contains(&format!("saxpy.exe [{GFX90A}] (ELF/DWARF)")),
        "{stats}"
    );
    ok(&["roundtrip", "--via", "dwarf", "--part", "gfx90a", p(&exe)]);
    let dwir = scratch("exe.dwir");
    ok(&["dump", "--part", "gfx90a", p(&exe), "-o", p(&dwir)]);
    let same = scratch("saxpy.same.exe");
    let o = into_gfx90a(&dwir, &exe, &same);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let (orig, out) = (std::fs::read(&exe).unwrap(), std::fs::read(&same).unwrap());
    let r = image_range(&orig, "gfx90a");
    assert_eq!(out.len(), orig.len());
    assert!(differing(&out[..r.start], &orig[..r.start]) <= 8);
    assert!(out[r.end..] == orig[r.end..]);
    verify_device(&same, GFX90A);
    // An image that grows cannot move an executable's sections: refused, no output.
    let t = std::fs::read_to_string(&dwir).unwrap();
    let long = "e".repeat(40000);
    std::fs::write(
        &dwir,
        t.replacen("saxpy.hip\"", &format!("saxpy.hip.{long}\""), 1),
    )
    .unwrap();
    let grown = scratch("saxpy.grown.exe");
    let o = into_gfx90a(&dwir, &exe, &grown);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).1.contains("executable or shared object"),
        "{:?}",
        text(&o)
    );
    assert!(!grown.exists());
}

/// A second HIP unit for `amdgpu_code_object_linked_from_units`: it uses saxpy.hip's global
/// across units and the HIP runtime's coordinate classes both units define.
const SCALE_HIP: &str = r#"#include <hip/hip_runtime.h>
extern __device__ float scale_bias;
__device__ float clamp01(float v) {
  float lo = v < 0.0f ? 0.0f : v;
  return lo > 1.0f ? 1.0f : lo;
}
__global__ void scale(int n, float k, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = clamp01(y[i] * k + scale_bias);
}
"#;

/// AMDGPU code objects linked from several units: corpus saxpy.hip and a
/// second unit, compiled by clang-19 with -fgpu-rdc to device bitcode and linked (LTO, lld) into
/// one gfx90a code object of two compile units. The link leaves the HIP runtime's classes in one
/// unit and the definitions of their inlined methods in the other (DW_AT_specification across
/// units), which the writer put in the class's unit: `roundtrip --via dwarf` exited 1 with 20
/// differences. Now it exits 0 with nothing to say, and `convert --into` the code object verifies
/// (llvm-dwarfdump-19) and reads back the same.
#[test]
fn amdgpu_code_object_linked_from_units() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("offload-rdc");
    std::fs::create_dir_all(&dir).unwrap();
    let scale = dir.join("scale.hip");
    std::fs::write(&scale, SCALE_HIP).unwrap();
    let mut units = Vec::new();
    // Device bitcode named .o: clang hands it to lld, which links it (LTO).
    for src in [repo_root().join("corpus/src/saxpy.hip"), scale] {
        let bc = dir.join(src.file_name().unwrap()).with_extension("dev.o");
        run_ok(
            crate::support::offload::clang19_hip()
                .args(["-fgpu-rdc", "--cuda-device-only", "-c"])
                .arg(&src)
                .arg("-o")
                .arg(&bc),
        );
        units.push(bc);
    }
    let co = dir.join("linked.co");
    run_ok(
        Command::new(tool("clang-19"))
            .args([
                "--target=amdgcn-amd-amdhsa",
                "-mcpu=gfx90a",
                "-g",
                "-O1",
                "-fuse-ld=lld",
            ])
            .args(&units)
            .arg("-o")
            .arg(&co),
    );
    let info = run_ok(
        Command::new(tool("llvm-dwarfdump-19"))
            .args(["--debug-info"])
            .arg(&co),
    );
    let dump = String::from_utf8_lossy(&info.stdout);
    assert_eq!(dump.matches("DW_TAG_compile_unit").count(), 2, "{dump}");
    assert!(dump.contains("DW_AT_specification"), "{dump}");
    let r = dwarv(&["roundtrip", p(&co), "--via", "dwarf"]);
    let (out, err) = text(&r);
    assert!(
        r.status.success() && out.trim().is_empty() && err.trim().is_empty(),
        "{out}{err}"
    );
    let rewritten = dir.join("linked.dwarv.co");
    let c = dwarv(&[
        "convert",
        p(&co),
        "--to",
        "dwarf",
        "--into",
        p(&co),
        "-o",
        p(&rewritten),
    ]);
    assert!(c.status.success(), "{}", text(&c).1);
    run_ok(
        Command::new(tool("llvm-dwarfdump-19"))
            .arg("--verify")
            .arg(&rewritten),
    );
    let d = dwarv(&["diff", p(&co), p(&rewritten)]);
    assert!(d.status.success(), "{}", text(&d).0);
}
