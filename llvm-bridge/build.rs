//! Builds the C++ shim against LLVM 14 (`llvm-config`, or `$LLVM_CONFIG`) as a shared object
//! linked to libLLVM (Debian ships no static libPolly, so the static route fails there). The crate
//! embeds it and loads it when a module is first read (`src/shim.rs`): a dwarv run that reads no
//! LLVM never loads libLLVM, whose relocations and static constructors cost ~15 ms per process.
use std::process::Command;

fn llvm_config(arg: &str) -> String {
    let exe = std::env::var("LLVM_CONFIG").unwrap_or_else(|_| {
        if Command::new("llvm-config-14")
            .arg("--version")
            .output()
            .is_ok()
        {
            "llvm-config-14".into()
        } else {
            "llvm-config".into()
        }
    });
    let out = Command::new(&exe)
        .arg(arg)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {exe} (install llvm-14-dev): {e}"));
    assert!(out.status.success(), "{exe} {arg} failed");
    String::from_utf8(out.stdout)
        .expect("llvm-config output is UTF-8")
        .trim()
        .to_string()
}

fn main() {
    println!("cargo:rerun-if-changed=shim/bridge.cpp");
    println!("cargo:rerun-if-env-changed=LLVM_CONFIG");
    let version = llvm_config("--version");
    assert!(
        version.starts_with("14."),
        "llvm-bridge needs LLVM 14, found {version}"
    );
    let mut b = cc::Build::new();
    b.cpp(true)
        .pic(true)
        .file("shim/bridge.cpp")
        .warnings(false);
    for f in llvm_config("--cxxflags").split_whitespace() {
        b.flag(f);
    }
    let objects = b.compile_intermediates();
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let shared = out.join("libdwarv_llvm_shim.so");
    let libdir = llvm_config("--libdir");
    let status = b
        .get_compiler()
        .to_command()
        .arg("-shared")
        .args(&objects)
        .arg("-o")
        .arg(&shared)
        .arg(format!("-L{libdir}"))
        .arg(format!("-Wl,-rpath,{libdir}"))
        .arg("-lLLVM-14")
        .status()
        .expect("link the LLVM shim");
    assert!(status.success(), "linking {} failed", shared.display());
}
