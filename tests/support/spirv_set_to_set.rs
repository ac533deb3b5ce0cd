//! What the `spirv/set_to_set` tests of both tiers share (tests/all/spirv/set_to_set.rs and
//! tests/judges/spirv/set_to_set.rs).

pub fn in_place(report: &serde_json::Value) -> String {
    report["in_place"].as_str().unwrap_or_default().to_string()
}
