//! What the `spirv/conformance` tests of both tiers share (tests/all/spirv/conformance.rs and
//! tests/judges/spirv/conformance.rs).

pub const TYPEDEF_LOSS: &str = "typedef of a non-basic type: references go to its base";
