//! SPIR-V debug-set names and flavours.

/// The SPIR-V debug instruction sets dwarv writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flavour {
    /// `DebugInfo`, the 0.99 draft (seed 001).
    DebugInfo,
    /// `OpenCL.DebugInfo.100`.
    OpenCl100,
    /// `NonSemantic.Shader.DebugInfo.100` (seed 000).
    Shader100,
    /// The OpenCL.100 layout under llvm-spirv's legacy import name `SPIRV.debug`.
    SpirvDebug,
}

/// (flavour, CLI name, OpExtInstImport name).
pub const FLAVOURS: [(Flavour, &str, &str); 4] = [
    (Flavour::DebugInfo, "debuginfo", "DebugInfo"),
    (Flavour::OpenCl100, "opencl100", "OpenCL.DebugInfo.100"),
    (
        Flavour::Shader100,
        "shader100",
        "NonSemantic.Shader.DebugInfo.100",
    ),
    (Flavour::SpirvDebug, "spirv-debug", "SPIRV.debug"),
];

impl Flavour {
    pub fn cli_name(self) -> &'static str {
        FLAVOURS.iter().find(|f| f.0 == self).map_or("", |f| f.1)
    }
    pub fn import_name(self) -> &'static str {
        FLAVOURS.iter().find(|f| f.0 == self).map_or("", |f| f.2)
    }
    pub fn from_cli_name(name: &str) -> Option<Self> {
        FLAVOURS.iter().find(|f| f.1 == name).map(|f| f.0)
    }
    /// The flavour of an import name; versioned imports (`NonSemantic.Shader.DebugInfo.101`)
    /// count as their set.
    pub fn from_import_name(name: &str) -> Option<Self> {
        if let Some(f) = FLAVOURS.iter().find(|f| f.2 == name) {
            return Some(f.0);
        }
        name.strip_prefix("NonSemantic.Shader.DebugInfo.")
            .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
            .map(|_| Flavour::Shader100)
    }
}
