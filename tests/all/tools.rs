//! Covers the tools the tests rely on. What real consumers judge of it: tests/judges/tools.rs.
//!
//! The project-local SPIRV-Tools are as recent as the tests need (their version read right).
//! A failure here means: run `bash scripts/setup.sh`.

use crate::support::*;

#[test]
fn spirv_tools_are_recent_enough() {
    for name in ["spirv-val", "spirv-as", "spirv-dis"] {
        let text = tool_output(name, &["--version"]);
        let v = parse_spirv_tools_version(&text)
            .unwrap_or_else(|| panic!("cannot read a version from `{name} --version`: {text:?}"));
        assert!(
            v >= MIN_SPIRV_TOOLS,
            "{} is SPIRV-Tools v{}.{}, need >= v{}.{} (Debian's is too old): run `bash scripts/setup.sh`",
            tool(name).display(),
            v.0,
            v.1,
            MIN_SPIRV_TOOLS.0,
            MIN_SPIRV_TOOLS.1
        );
    }
}

#[test]
fn version_parser() {
    assert_eq!(
        parse_spirv_tools_version("SPIRV-Tools v2025.5 262bdab4\nTargets:"),
        Some((2025, 5))
    );
    assert_eq!(
        parse_spirv_tools_version("SPIRV-Tools v2023.1 unknown hash"),
        Some((2023, 1))
    );
    assert_eq!(parse_spirv_tools_version("glslang 12"), None);
}
