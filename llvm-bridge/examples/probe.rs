//! `cargo run -p llvm-bridge --example probe -- FILE…`: loads each module (contained) and prints
//! its node, location and intrinsic counts, or the error.
fn main() {
    for path in std::env::args().skip(1) {
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                println!("{path}: {e}");
                continue;
            }
        };
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
