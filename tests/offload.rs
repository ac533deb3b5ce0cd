//! Device code inside what GPU toolchains ship (issue 21): HIP host objects built at test time
//! with hipcc and clang-19 (old and new offload driver, compressed), bundles made with
//! clang-offload-bundler-19 from SPIR-V and bitcode, offloading binaries made with
//! clang-offload-packager-19; every verb sees the host and each device part, `--part` picks
//! one, damaged containers exit 2 naming the entry, and `convert --into` a host object replaces
//! one device image's debug info keeping the rest of the container byte for byte.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use common::{corpus, repo_root, run_ok, tool};

const GFX90A: &str = "hipv4-amdgcn-amd-amdhsa--gfx90a";

/// The inputs, built once per test binary.
struct Built {
    dir: PathBuf,
}

impl Built {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

/// clang-19's HIP flags for Debian's ROCm layout (device libraries of rocm-device-libs).
fn clang19_hip() -> Command {
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

/// The HIP objects (hipcc; clang-19 old driver, new driver, compressed, new driver with
/// -fgpu-rdc: `.llvm.offloading`), the bundles and offloading binaries.
fn built() -> &'static Built {
    static B: OnceLock<Built> = OnceLock::new();
    B.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("offload");
        std::fs::create_dir_all(&dir).unwrap();
        let src = repo_root().join("corpus/src/saxpy.hip");
        let out = |n: &str| dir.join(n);
        run_ok(
            Command::new(tool("hipcc"))
                .args(["-g", "-O1", "--offload-arch=gfx90a", "-c"])
                .arg(&src)
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
                    .arg(&src)
                    .arg("-o")
                    .arg(out(name)),
            );
        }
        run_ok(
            clang19_hip()
                .args(["--cuda-device-only", "-emit-llvm", "-c"])
                .arg(&src)
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
                    .arg(&src)
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
        Built { dir }
    })
}

fn dwarv(args: &[&str]) -> Output {
    common::dwarv(args)
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn ok(args: &[&str]) -> String {
    let o = dwarv(args);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "dwarv {args:?}\n{out}\n{err}");
    out
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// The HIP host objects whose `.hip_fatbin` holds a gfx90a code object.
const HIP_OBJECTS: [&str; 4] = ["hipcc.o", "clang19.o", "clang19-new.o", "clang19-z.o"];

#[test]
fn stats_and_dump_show_the_host_and_the_device_kernel_its_variables_and_lines() {
    let b = built();
    for name in HIP_OBJECTS {
        let f = b.path(name);
        let all = ok(&["stats", p(&f)]);
        assert!(all.contains(&format!("{name} [host] (ELF/DWARF)")), "{all}");
        assert!(
            all.contains(&format!("{name} [{GFX90A}] (ELF/DWARF)")),
            "{all}"
        );
        let json: serde_json::Value =
            serde_json::from_str(&ok(&["stats", "--json", "--part", "gfx90a", p(&f)])).unwrap();
        let entities = &json["entities"];
        assert!(entities["line_row"].as_u64().unwrap() > 0, "{name}: {json}");
        assert!(
            entities["variable.global"].as_u64().unwrap() > 0,
            "{name}: {json}"
        );
        assert!(
            entities["variable.param"].as_u64().unwrap() >= 4,
            "{name}: {json}"
        );
        let dump = ok(&["dump", "--part", "gfx90a", p(&f)]);
        // The kernel with its code range, the device variable, and the kernel's line rows.
        let kernel = dump
            .lines()
            .find(|l| l.contains("function \"saxpy\"") && l.contains("ranges=["))
            .unwrap_or_else(|| panic!("{name}: no device kernel\n{dump}"));
        assert!(kernel.contains(" at=f"), "{kernel}");
        assert!(dump.contains("global \"scale_bias\""), "{name}");
        assert!(dump.contains(" \"n\" type="), "{name}");
        // Both parts in one dump, each under its name.
        let both = ok(&["dump", p(&f)]);
        assert!(both.contains("; part host\n"));
        assert!(both.contains(&format!("; part {GFX90A}\n")));
        let v = ok(&["validate", p(&f)]);
        assert_eq!(v.lines().count(), 2, "{v}");
    }
}

#[test]
fn each_device_image_round_trips_through_dwarf() {
    let b = built();
    for (name, part) in [
        ("hipcc.o", "gfx90a"),
        ("clang19.o", "gfx90a"),
        ("clang19-new.o", "gfx90a"),
        ("clang19-z.o", "gfx90a"),
        ("sections.o", "gfx90a"),
        ("packaged.bin", "gfx90a"),
        ("spirv.bundle", "generic"),
        ("packaged.bin", "openmp-spirv64-unknown-unknown--generic"),
        // Device bitcode: LLVM IR through DWARF and back (docs/dwarf.md, "LLVM IR ⇄ DWARF").
        ("bitcode.bundle", "hip-spir64-unknown-unknown--generic"),
        ("bitcode-z.bundle", "hip-spir64-unknown-unknown--generic"),
        ("clang19-rdc.o", "hip-amdgcn-amd-amdhsa--gfx90a"),
    ] {
        ok(&[
            "roundtrip",
            "--via",
            "dwarf",
            "--part",
            part,
            p(&b.path(name)),
        ]);
    }
    // The host part too.
    ok(&[
        "roundtrip",
        "--via",
        "dwarf",
        "--part",
        "host",
        p(&b.path("hipcc.o")),
    ]);
}

#[test]
fn bundles_of_spirv_and_bitcode_and_offloading_binaries_read_as_what_they_hold() {
    let b = built();
    for (name, part, format) in [
        (
            "spirv.bundle",
            "hip-spirv64-unknown-unknown--generic",
            "SPIR-V",
        ),
        (
            "bitcode.bundle",
            "hip-spir64-unknown-unknown--generic",
            "LLVM bitcode",
        ),
        (
            "bitcode-z.bundle",
            "hip-spir64-unknown-unknown--generic",
            "LLVM bitcode",
        ),
        (
            "packaged.bin",
            "openmp-spirv64-unknown-unknown--generic",
            "SPIR-V",
        ),
        ("packaged.bin", "hip-amdgcn-amd-amdhsa--gfx90a", "ELF/DWARF"),
        (
            "clang19-rdc.o",
            "hip-amdgcn-amd-amdhsa--gfx90a",
            "LLVM bitcode",
        ),
        ("sections.o", GFX90A, "ELF/DWARF"),
    ] {
        let f = b.path(name);
        let stats = ok(&["stats", p(&f)]);
        assert!(
            stats.contains(&format!("{name} [{part}] ({format})")),
            "{stats}"
        );
        let dump = ok(&["dump", "--part", part, p(&f)]);
        let kernel = if name.starts_with("clang19") {
            "saxpy"
        } else {
            "histogram"
        };
        assert!(
            dump.contains(&format!("function \"{kernel}\"")),
            "{name} [{part}]: no {kernel}"
        );
    }
    // A bundle file of one device image needs no --part.
    ok(&["roundtrip", "--via", "dwarf", p(&b.path("spirv.bundle"))]);
    // The compressed bundle is really one (CCOB), and reads as the plain one does.
    let z = std::fs::read(b.path("bitcode-z.bundle")).unwrap();
    assert_eq!(&z[..4], b"CCOB");
    let zc = std::fs::read(b.path("clang19-z.o")).unwrap();
    assert!(zc.windows(4).any(|w| w == b"CCOB"));
    ok(&[
        "diff",
        p(&b.path("bitcode.bundle")),
        p(&b.path("bitcode-z.bundle")),
    ]);
    // Host objects of the same source: host to host and device to device, part by part.
    ok(&["diff", p(&b.path("clang19.o")), p(&b.path("clang19-z.o"))]);
}

#[test]
fn several_parts_and_none_picked_is_a_usage_error_listing_them() {
    let b = built();
    let f = b.path("hipcc.o");
    let out = b.path("x.dwir");
    let _ = std::fs::remove_file(&out);
    for args in [
        vec!["convert", p(&f), "-o", p(&out)],
        vec!["roundtrip", "--via", "dwarf", p(&f)],
        vec!["strip", p(&f), "-o", p(&out), "--debug-out", "y.o"],
        vec!["convert", p(&f), "--part", "gfx1030", "-o", p(&out)],
        vec!["diff", p(&f), p(&b.path("device.bc"))],
    ] {
        let o = dwarv(&args);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(&format!("host, {GFX90A}")), "{args:?}: {err}");
        assert!(!out.exists());
    }
    // --part on something that is not a container.
    let o = dwarv(&[
        "stats",
        "--part",
        "host",
        p(&corpus().join("prog.dwarf5.o")),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("not a container"));
    let plain = corpus().join("prog.dwarf5.o");
    let o = dwarv(&["diff", "--part", "host", p(&plain), p(&plain)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("neither"), "{:?}", text(&o));
    // Picked: converts.
    ok(&["convert", p(&f), "--part", GFX90A, "-o", p(&out)]);
    assert!(std::fs::read_to_string(&out).unwrap().contains("\"saxpy\""));
}

/// A copy of `bytes` with the little-endian u64 at `at` set to `v`.
fn with_u64(bytes: &[u8], at: usize, v: u64) -> Vec<u8> {
    let mut b = bytes.to_vec();
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
    b
}

fn with_u32(bytes: &[u8], at: usize, v: u32) -> Vec<u8> {
    let mut b = bytes.to_vec();
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
    b
}

/// `dwarv stats` of `bytes` exits 2 and its message names `what`.
fn damaged(bytes: &[u8], name: &str, what: &[&str]) {
    let f = built().path(name);
    std::fs::write(&f, bytes).unwrap();
    let o = dwarv(&["stats", p(&f)]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{name}: {err}");
    for w in what {
        assert!(err.contains(w), "{name}: `{w}` not in: {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn damaged_containers_exit_2_naming_the_entry() {
    let b = built();
    let spv = std::fs::read(b.path("spirv.bundle")).unwrap();
    // Header 24 + count 8; entry 0 at 32: offset, size, id length (8 each), id.
    let id0 = u64::from_le_bytes(spv[48..56].try_into().unwrap()) as usize;
    let e1 = 56 + id0;
    damaged(&spv[..40], "trunc.bundle", &["entry 0 of 2", "truncated"]);
    damaged(
        &spv[..e1 + 20],
        "trunc1.bundle",
        &["entry 1 of 2", "truncated"],
    );
    damaged(
        &with_u64(&spv, e1, spv.len() as u64),
        "past.bundle",
        &[
            "entry 1 (hip-spirv64-unknown-unknown--generic)",
            "past the end",
        ],
    );
    damaged(
        &with_u64(&with_u64(&spv, e1, u64::MAX - 4), e1 + 8, 64),
        "overflow.bundle",
        &[
            "entry 1 (hip-spirv64-unknown-unknown--generic)",
            "overflows",
        ],
    );
    damaged(
        &with_u64(&spv, 24, u64::MAX),
        "count.bundle",
        &["entry 2 of 18446744073709551615"],
    );
    // Compressed: the header states one byte more (or far more) than the stream holds.
    let z = std::fs::read(b.path("bitcode-z.bundle")).unwrap();
    let stated = u32::from_le_bytes(z[12..16].try_into().unwrap());
    damaged(
        &with_u32(&z, 12, stated + 1),
        "short.bundle",
        &["compressed bundle at 0x0", "inflates to", "states"],
    );
    damaged(
        &with_u32(&z, 12, u32::MAX),
        "huge.bundle",
        &["beyond dwarv's limit"],
    );
    damaged(
        &with_u32(&z, 8, z.len() as u32 + 1),
        "total.bundle",
        &["total size"],
    );
    damaged(&z[..z.len() / 2], "cut.bundle", &["total size"]);
    // A stream that inflates to the stated size but not to the bundle the hash (v2: at 16)
    // was taken of.
    let hash = u64::from_le_bytes(z[16..24].try_into().unwrap());
    damaged(
        &with_u64(&z, 16, hash ^ 1),
        "hash.bundle",
        &["compressed bundle at 0x0", "MD5"],
    );
    // In a host object: the entry count of the bundle in .hip_fatbin.
    let o = std::fs::read(b.path("hipcc.o")).unwrap();
    let at = o
        .windows(24)
        .position(|w| w == b"__CLANG_OFFLOAD_BUNDLE__")
        .unwrap();
    damaged(
        &with_u64(&o, at + 24, 1000),
        "count.o",
        &["section .hip_fatbin, bundle at 0x0", "of 1000"],
    );
    // An offloading binary whose image runs past its end.
    let pk = std::fs::read(b.path("packaged.bin")).unwrap();
    damaged(
        &with_u64(&pk, 32 + 32, 1 << 40),
        "image.bin",
        &["offloading binary at 0x0", "past the binary's end"],
    );
}

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
    let b = built();
    for name in ["hipcc.o", "clang19.o"] {
        let orig_path = b.path(name);
        let orig = std::fs::read(&orig_path).unwrap();
        let dwir = b.path(&format!("{name}.device.dwir"));
        ok(&["dump", "--part", "gfx90a", p(&orig_path), "-o", p(&dwir)]);
        // The same debug info back in: the image is rewritten in its place.
        let same = b.path(&format!("{name}.same.o"));
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
        let grown_dwir = b.path(&format!("{name}.grown.dwir"));
        let t = std::fs::read_to_string(&dwir).unwrap();
        let t = t.replacen("saxpy.hip\"", &format!("saxpy.hip.{long}\""), 1);
        std::fs::write(&grown_dwir, t).unwrap();
        let grown = b.path(&format!("{name}.grown.o"));
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
                .arg(b.path(&format!("{name}.linked.o"))),
        );
    }
    // Into a compressed bundle: refused, no output.
    let out = b.path("z-into.o");
    let o = dwarv(&[
        "convert",
        p(&b.path("hipcc.o.device.dwir")),
        "--part",
        "gfx90a",
        "--into",
        p(&b.path("clang19-z.o")),
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
    let b = built();
    let main = b.path("main.cpp");
    std::fs::write(
        &main,
        "int launch(int, float, const float *, float *);\nint main() { return launch(0, 1, 0, 0); }\n",
    )
    .unwrap();
    let exe = b.path("saxpy.exe");
    run_ok(
        Command::new(tool("clang++-19"))
            .args(["-g", "-fuse-ld=lld"])
            .arg(&main)
            .arg(b.path("clang19.o"))
            .args(["-L/usr/lib/x86_64-linux-gnu", "-lamdhip64", "-o"])
            .arg(&exe),
    );
    let stats = ok(&["stats", p(&exe)]);
    assert!(
        stats.contains(&format!("saxpy.exe [{GFX90A}] (ELF/DWARF)")),
        "{stats}"
    );
    ok(&["roundtrip", "--via", "dwarf", "--part", "gfx90a", p(&exe)]);
    let dwir = b.path("exe.dwir");
    ok(&["dump", "--part", "gfx90a", p(&exe), "-o", p(&dwir)]);
    let same = b.path("saxpy.same.exe");
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
    let grown = b.path("saxpy.grown.exe");
    let o = into_gfx90a(&dwir, &exe, &grown);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).1.contains("executable or shared object"),
        "{:?}",
        text(&o)
    );
    assert!(!grown.exists());
}

#[test]
fn crosscheck_of_the_device_bitcode_against_the_code_object_in_the_bundle() {
    let b = built();
    let pair = |bc: &str, obj: &str| {
        dwarv(&[
            "diff",
            "--crosscheck",
            "--part",
            "gfx90a",
            "--limit",
            "100",
            p(&b.path(bc)),
            p(&b.path(obj)),
        ])
    };
    let o = pair("device.O0.bc", "clang19.O0.o");
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    // -O1: the threadIdx.x accessors (HIP's __HIP_ThreadIdx::operator() and the conversion
    // operator of its __X) are inlined into code that reads a register the kernel starts with:
    // no instruction, so no inlined_subroutine and no abstract DIE; the cross-check takes the
    // DWARF side's word for it (crosscheck::folded_away).
    let o = pair("device.bc", "clang19.o");
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
}

#[test]
fn batch_over_100_host_objects_reports_per_device_image() {
    let b = built();
    let dir = b.path("batch-in");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let sources = ["hipcc.o", "clang19.o", "clang19-z.o", "clang19-new.o"];
    for i in 0..100 {
        let src = b.path(sources[i % sources.len()]);
        std::fs::copy(&src, dir.join(format!("obj{i:03}.o"))).unwrap();
    }
    let out = b.path("batch-out");
    let _ = std::fs::remove_dir_all(&out);
    let report = b.path("batch.json");
    let o = dwarv(&[
        "batch",
        p(&dir),
        "-o",
        p(&out),
        "--to",
        "ir",
        "--quiet",
        "--report",
        p(&report),
    ]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let rep: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let records = rep["records"].as_array().unwrap();
    assert_eq!(records.len(), 200);
    let device: Vec<_> = records.iter().filter(|r| r["part"] == GFX90A).collect();
    assert_eq!(device.len(), 100);
    for r in &device {
        assert_eq!(r["status"], "converted", "{r}");
        let output = r["output"].as_str().unwrap();
        assert!(output.ends_with(&format!(".{GFX90A}.dwir")), "{output}");
        assert!(r["stats"]["entities"]["variable.global"].as_u64().unwrap() > 0);
    }
    assert_eq!(records.iter().filter(|r| r["part"] == "host").count(), 100);
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

/// AMDGPU code objects linked from several units (issue 24 item 1): corpus saxpy.hip and a
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
            clang19_hip()
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
