//! The LLVM frontend's containment and conversion: any bytes go through `front::llvm::read`
//! (LLVM in a child process) and must give a module that validates or a clean error — never a
//! crash of this process. Inputs that start with the bridge's model magic are decoded and
//! lowered directly, so the model decoder and the lowering see hostile models too.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let lowered = if data.starts_with(llvm_bridge::MODEL_MAGIC) {
        match llvm_bridge::decode(data) {
            Ok(model) => Some(dwarv::unstable::front::llvm::lower(&model).0),
            Err(_) => None,
        }
    } else {
        dwarv::unstable::front::llvm::read(data, "fuzz.ll")
            .ok()
            .map(|(m, _)| m)
    };
    if let Some(m) = lowered {
        if dwarv::ir::verify::check(&m).is_ok() {
            let text = dwarv::ir::text::print(&m);
            let back = dwarv::ir::text::parse(&text, "fuzz.dwir").expect("printed IR parses");
            assert_eq!(back, m, "IR text round trip");
        }
    }
});
