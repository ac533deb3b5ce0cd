//! `cargo run -p llvm-bridge --example probe -- FILE…`: loads each module (contained) and prints
//! its node, location and intrinsic counts, or the error. With `PROBE_RAW=DIR`, also writes each
//! module's model buffer to DIR (seeds for the `llvm_bridge` fuzz target).
fn main() {
    for path in std::env::args().skip(1) {
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                println!("{path}: {e}");
                continue;
            }
        };
        if let (Ok(dir), Ok(raw)) = (
            std::env::var("PROBE_RAW"),
            llvm_bridge::load_raw(&bytes, &path),
        ) {
            let name = std::path::Path::new(&path).file_name().unwrap_or_default();
            let _ = std::fs::write(
                std::path::Path::new(&dir)
                    .join(name)
                    .with_extension("model"),
                raw,
            );
        }
        match llvm_bridge::load(&bytes, &path) {
            Ok(m) => println!(
                "{path}: ok nodes={} cus={} functions={} locations={} intrinsics={} opaque={}",
                m.nodes.len(),
                m.compile_units.len(),
                m.functions.len(),
                m.locations.len(),
                m.intrinsics.len(),
                m.opaque_pointers
            ),
            Err(e) => println!("{path}: ERROR {e}"),
        }
    }
}
