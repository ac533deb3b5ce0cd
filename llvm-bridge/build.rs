//! Builds the C++ shim once per LLVM the build machine has (every
//! `/usr/lib/llvm-N/bin/llvm-config`, or only `$LLVM_CONFIG` when that is set), each as a shared
//! object linked to its libLLVM (Debian ships no static libPolly, so the static route fails
//! there). The crate embeds every one and loads the one an input needs when it is first read
//! (`src/shim.rs`, `src/pick.rs`): a dwarv run that reads no LLVM never loads a libLLVM, whose
//! relocations and static constructors cost ~15 ms per process.
//!
//! `LLVM_VERSIONS` lists the LLVMs a full build carries (scripts/setup.sh installs their
//! development packages). One that is missing is skipped with a cargo warning, except under CI
//! (`CI=true`), where it is an error: a CI machine has what setup installed.
//!
//! Beside each reader, where the SPIR-V translator's library of that LLVM and its headers are
//! found, the SPIR-V writer `dwarv translate` runs in process (shim/spirv_writer.cpp, its own
//! shared object, loaded only by a translation). `TRANSLATOR_VERSIONS` lists the LLVMs whose
//! writer a CI build must carry.
use std::path::{Path, PathBuf};
use std::process::Command;

/// The oldest LLVM whose API the shim is written for.
const OLDEST: u32 = 14;

struct Llvm {
    major: u32,
    version: String,
    config: PathBuf,
}

fn query(config: &Path, arg: &str) -> Option<String> {
    let out = Command::new(config).arg(arg).output().ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8(out.stdout).ok()?.trim().to_string())
}

fn probe(config: PathBuf) -> Option<Llvm> {
    let version = query(&config, "--version")?;
    let major = version.split('.').next()?.parse().ok()?;
    Some(Llvm {
        major,
        version,
        config,
    })
}

/// Every LLVM development package found, oldest first, one per major version.
fn installed() -> Vec<Llvm> {
    if let Ok(exe) = std::env::var("LLVM_CONFIG") {
        let l = probe(PathBuf::from(&exe))
            .unwrap_or_else(|| panic!("LLVM_CONFIG={exe} does not run (`{exe} --version`)"));
        return vec![l];
    }
    let mut found: Vec<Llvm> = Vec::new();
    if let Ok(dir) = std::fs::read_dir("/usr/lib") {
        for e in dir.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(n) = name.strip_prefix("llvm-") else {
                continue;
            };
            if n.parse::<u32>().is_err() {
                continue;
            }
            let config = e.path().join("bin/llvm-config");
            if config.exists() {
                found.extend(probe(config));
            }
        }
    }
    if found.is_empty() {
        // Not a Debian layout: whatever `llvm-config` the PATH offers.
        found.extend(
            ["llvm-config-14", "llvm-config"]
                .iter()
                .find_map(|c| probe(c.into())),
        );
    }
    found.sort_by_key(|l| l.major);
    found.dedup_by_key(|l| l.major);
    found
}

/// The runtime library the shim links (its file name, which is its soname on Debian).
fn runtime_library(libdir: &str, major: u32) -> String {
    for name in [format!("libLLVM-{major}.so"), "libLLVM.so".to_string()] {
        if let Ok(real) = std::fs::canonicalize(Path::new(libdir).join(name)) {
            if let Some(f) = real.file_name() {
                return f.to_string_lossy().into_owned();
            }
        }
    }
    format!("libLLVM-{major}.so")
}

/// Compiles and links the shim against `l`; the shared object's path and the library it needs.
/// Compiles and links the shim against `l`: the shared object and libLLVM's runtime soname, or
/// the compiler's complaint.
fn build(l: &Llvm, out: &Path) -> Result<(PathBuf, String), String> {
    let cfg = |arg: &str| {
        query(&l.config, arg).unwrap_or_else(|| panic!("{} {arg} failed", l.config.display()))
    };
    let dir = out.join(format!("llvm{}", l.major));
    std::fs::create_dir_all(&dir).expect("create the shim's build directory");
    let mut b = cc::Build::new();
    b.cpp(true)
        .pic(true)
        .file("shim/bridge.cpp")
        .out_dir(&dir)
        .cargo_metadata(false)
        .warnings(false)
        // Only the two entry points leave the object: two shims, each with its own LLVM, never
        // bind each other's inline functions.
        .flag("-fvisibility=hidden")
        .flag("-fvisibility-inlines-hidden")
        // cc passes rustc's sanitizer on (cargo fuzz builds with -Zsanitizer=address): a shim
        // linked to gcc's libasan cannot be loaded into a process whose ASan runtime is rustc's
        // ("ASan runtime does not come first"), and LLVM itself is not instrumented anyway.
        .flag("-fno-sanitize=all");
    for f in cfg("--cxxflags").split_whitespace() {
        b.flag(f);
    }
    let objects = b.try_compile_intermediates().map_err(|e| e.to_string())?;
    let shared = out.join(format!("libdwarv_llvm_shim_{}.so", l.major));
    let libdir = cfg("--libdir");
    let libs = query_link_shared(&l.config).unwrap_or_else(|| format!("-lLLVM-{}", l.major));
    let status = b
        .get_compiler()
        .to_command()
        .arg("-shared")
        .args(&objects)
        .arg("-o")
        .arg(&shared)
        .arg(format!("-L{libdir}"))
        .arg(format!("-Wl,-rpath,{libdir}"))
        .args(libs.split_whitespace())
        .status()
        .expect("link the LLVM shim");
    if !status.success() {
        return Err(format!("linking {} failed", shared.display()));
    }
    Ok((shared, runtime_library(&libdir, l.major)))
}

/// The translator's library of LLVM `major`, where the system's loader finds it
/// (`libLLVMSPIRVLib.so.N`, Debian package libllvmspirvlibN).
fn translator_library(major: u32) -> Option<PathBuf> {
    let name = format!("libLLVMSPIRVLib.so.{major}");
    [
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib64",
        "/usr/lib",
        "/usr/local/lib",
    ]
    .iter()
    .map(|d| Path::new(d).join(&name))
    .find(|p| p.exists())
}

/// The folder holding `LLVMSPIRVLib/LLVMSPIRVLib.h` of LLVM `major`'s translator: what
/// scripts/setup.sh extracts into `.tools/include/llvmspirv-N` (Debian's `-dev` packages of
/// two translators conflict, so neither is installed), or an installed one of that version.
fn translator_headers(major: u32) -> Option<PathBuf> {
    let var = format!("DWARV_TRANSLATOR_HEADERS_{major}");
    println!("cargo:rerun-if-env-changed={var}");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let candidates = [
        std::env::var_os(&var).map(PathBuf::from),
        Some(repo.join(format!(".tools/include/llvmspirv-{major}"))),
        Some(PathBuf::from(format!("/usr/lib/llvm-{major}/include"))),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|d| d.join("LLVMSPIRVLib/LLVMSPIRVLib.h").exists())
}

/// Compiles the SPIR-V writer (shim/spirv_writer.cpp) against LLVM `l`'s translator: its shared
/// object and the translator library it needs, or why not.
fn build_writer(l: &Llvm, out: &Path) -> Result<(PathBuf, String), String> {
    let library = translator_library(l.major)
        .ok_or_else(|| format!("libLLVMSPIRVLib.so.{} not installed", l.major))?;
    let headers = translator_headers(l.major).ok_or_else(|| {
        format!(
            "no headers of the LLVM {} translator (LLVMSPIRVLib/LLVMSPIRVLib.h): scripts/setup.sh extracts them into .tools/include/llvmspirv-{}",
            l.major, l.major
        )
    })?;
    println!("cargo:rerun-if-changed={}", headers.display());
    let cfg = |arg: &str| query(&l.config, arg).unwrap_or_default();
    let dir = out.join(format!("writer{}", l.major));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let mut b = cc::Build::new();
    b.cpp(true)
        .pic(true)
        .file("shim/spirv_writer.cpp")
        .include(&headers)
        .out_dir(&dir)
        .cargo_metadata(false)
        .warnings(false)
        .flag("-fvisibility=hidden")
        .flag("-fvisibility-inlines-hidden")
        .flag("-fno-sanitize=all");
    for f in cfg("--cxxflags").split_whitespace() {
        b.flag(f);
    }
    let objects = b.try_compile_intermediates().map_err(|e| e.to_string())?;
    let shared = out.join(format!("libdwarv_spirv_writer_{}.so", l.major));
    let libdir = cfg("--libdir");
    let libs = query_link_shared(&l.config).unwrap_or_else(|| format!("-lLLVM-{}", l.major));
    let lib_dir = library.parent().unwrap_or(Path::new("/usr/lib"));
    let file = library.file_name().unwrap_or_default().to_string_lossy();
    let status = b
        .get_compiler()
        .to_command()
        .arg("-shared")
        .args(&objects)
        .arg("-o")
        .arg(&shared)
        .arg(format!("-L{}", lib_dir.display()))
        .arg(format!("-l:{file}"))
        .arg(format!("-L{libdir}"))
        .arg(format!("-Wl,-rpath,{libdir}"))
        .args(libs.split_whitespace())
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() {
        return Err(format!("linking {} failed", shared.display()));
    }
    Ok((shared, file.into_owned()))
}

/// `llvm-config --link-shared --libs`: the one shared libLLVM (`-lLLVM-19`).
fn query_link_shared(config: &Path) -> Option<String> {
    let out = Command::new(config)
        .args(["--link-shared", "--libs"])
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    println!("cargo:rerun-if-changed=shim/bridge.cpp");
    println!("cargo:rerun-if-changed=LLVM_VERSIONS");
    println!("cargo:rerun-if-changed=TRANSLATOR_VERSIONS");
    println!("cargo:rerun-if-changed=shim/spirv_writer.cpp");
    println!("cargo:rerun-if-env-changed=LLVM_CONFIG");
    println!("cargo:rerun-if-env-changed=CI");
    let wanted: Vec<u32> = std::fs::read_to_string("LLVM_VERSIONS")
        .expect("llvm-bridge/LLVM_VERSIONS")
        .split_whitespace()
        .map(|v| {
            v.parse()
                .expect("LLVM_VERSIONS holds major version numbers")
        })
        .collect();
    let translators: Vec<u32> = std::fs::read_to_string("TRANSLATOR_VERSIONS")
        .expect("llvm-bridge/TRANSLATOR_VERSIONS")
        .split_whitespace()
        .map(|v| {
            v.parse()
                .expect("TRANSLATOR_VERSIONS holds major version numbers")
        })
        .collect();
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let mut found = installed();
    for l in found.iter().filter(|l| l.major < OLDEST) {
        println!(
            "cargo:warning=LLVM {} ({}) skipped: the shim reads LLVM {OLDEST} and newer",
            l.version,
            l.config.display()
        );
    }
    found.retain(|l| l.major >= OLDEST);
    if std::env::var("LLVM_CONFIG").is_err() {
        for w in &wanted {
            if found.iter().any(|l| l.major == *w) {
                continue;
            }
            let what = format!(
                "LLVM {w} not found (/usr/lib/llvm-{w}/bin/llvm-config; Debian package llvm-{w}-dev, \
                 scripts/setup.sh installs it)"
            );
            assert!(
                !ci,
                "{what}: a CI build carries every LLVM in llvm-bridge/LLVM_VERSIONS"
            );
            println!("cargo:warning={what}: dwarv is built without its reader");
        }
    }
    assert!(
        !found.is_empty(),
        "no LLVM development package found: install llvm-14-dev (or set LLVM_CONFIG)"
    );
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let mut table = String::from(
        "/// The shims this build carries, oldest LLVM first (generated by build.rs).\n\
         pub static CARRIED: &[Carried] = &[\n",
    );
    let mut carried = 0;
    for l in &found {
        println!("cargo:rerun-if-changed={}", l.config.display());
        // An LLVM the list names must build; another one the machine happens to have (a newer
        // llvm-N-dev) is carried when its shim compiles, and skipped with a warning when not.
        let (shared, library) = match build(l, &out) {
            Ok(built) => built,
            Err(e) if wanted.contains(&l.major) || std::env::var("LLVM_CONFIG").is_ok() => {
                panic!("the shim for LLVM {} does not build: {e}", l.version)
            }
            Err(e) => {
                println!(
                    "cargo:warning=LLVM {} ({}) skipped: not in llvm-bridge/LLVM_VERSIONS and \
                     the shim does not compile against it ({e}); see docs/llvm.md, \"Adding an LLVM\"",
                    l.version,
                    l.config.display()
                );
                continue;
            }
        };
        carried += 1;
        // The translator's library: wherever it and its headers are; the LLVMs the list names
        // have it on a CI machine.
        let writer = match build_writer(l, &out) {
            Ok((object, library)) => format!(
                "Some(Writer {{ library: {library:?}, object: include_bytes!({:?}) }})",
                object.display().to_string()
            ),
            Err(e) if translators.contains(&l.major) => {
                assert!(
                    !ci,
                    "the SPIR-V writer for LLVM {} does not build: {e}",
                    l.major
                );
                println!(
                    "cargo:warning=LLVM {}: no in-process SPIR-V translator ({e}); `dwarv \
                     translate` runs the translator's executable for its modules",
                    l.major
                );
                "None".to_string()
            }
            Err(_) => "None".to_string(),
        };
        table += &format!(
            "    Carried {{ major: {}, version: {:?}, library: {:?}, object: include_bytes!({:?}), writer: {writer} }},\n",
            l.major,
            l.version,
            library,
            shared.display().to_string()
        );
    }
    assert!(carried > 0, "no LLVM the shim builds against");
    table += "];\n";
    std::fs::write(out.join("carried.rs"), table).expect("write carried.rs");
}
