//! Builds the C++ shim against LLVM 14 (`llvm-config`, or `$LLVM_CONFIG`) and links libLLVM
//! dynamically (Debian ships no static libPolly, so the static route fails there).
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
    b.cpp(true).file("shim/bridge.cpp").warnings(false);
    for f in llvm_config("--cxxflags").split_whitespace() {
        b.flag(f);
    }
    b.compile("dwarv_llvm_shim");
    println!("cargo:rustc-link-search=native={}", llvm_config("--libdir"));
    println!("cargo:rustc-link-lib=dylib=LLVM-14");
}
