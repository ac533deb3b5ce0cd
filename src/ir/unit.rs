//! Compile units, files, source texts and macros.

use super::code::CodeRange;
use super::{Flags, Handle, RawAttr, Ref};

/// A source text, shared by the files that embed it (DebugSource Text, DIFile source,
/// DW_LNCT_LLVM_source). Kept apart so that identical texts are stored once.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Text {
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct File {
    pub name: String,
    pub directory: Option<String>,
    pub checksum: Option<Checksum>,
    pub source: Option<Handle<Text>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Checksum {
    pub kind: ChecksumKind,
    pub bytes: Vec<u8>,
}

open_enum! {
    /// File checksum kinds, numbered as LLVM's DIFile::ChecksumKind.
    ChecksumKind: u32 {
        MD5 = 1 => "md5",
        SHA1 = 2 => "sha1",
        SHA256 = 3 => "sha256",
    }
}

open_enum! {
    /// Source languages, numbered as DW_LANG (DWARF 5, plus the codes DWARF 6 and LLVM added).
    /// The SPIR-V SourceLanguage of each lives in `spec::spirv`.
    Language: u32 {
        C89 = 0x01 => "c89",
        C = 0x02 => "c",
        ADA83 = 0x03 => "ada83",
        CPP = 0x04 => "c++",
        COBOL74 = 0x05 => "cobol74",
        COBOL85 = 0x06 => "cobol85",
        FORTRAN77 = 0x07 => "fortran77",
        FORTRAN90 = 0x08 => "fortran90",
        PASCAL83 = 0x09 => "pascal83",
        MODULA2 = 0x0a => "modula2",
        JAVA = 0x0b => "java",
        C99 = 0x0c => "c99",
        ADA95 = 0x0d => "ada95",
        FORTRAN95 = 0x0e => "fortran95",
        PLI = 0x0f => "pli",
        OBJC = 0x10 => "objc",
        OBJC_PLUS_PLUS = 0x11 => "objc++",
        UPC = 0x12 => "upc",
        D = 0x13 => "d",
        PYTHON = 0x14 => "python",
        OPENCL = 0x15 => "opencl",
        GO = 0x16 => "go",
        MODULA3 = 0x17 => "modula3",
        HASKELL = 0x18 => "haskell",
        CPP03 = 0x19 => "c++03",
        CPP11 = 0x1a => "c++11",
        OCAML = 0x1b => "ocaml",
        RUST = 0x1c => "rust",
        C11 = 0x1d => "c11",
        SWIFT = 0x1e => "swift",
        JULIA = 0x1f => "julia",
        DYLAN = 0x20 => "dylan",
        CPP14 = 0x21 => "c++14",
        FORTRAN03 = 0x22 => "fortran03",
        FORTRAN08 = 0x23 => "fortran08",
        RENDERSCRIPT = 0x24 => "renderscript",
        BLISS = 0x25 => "bliss",
        KOTLIN = 0x26 => "kotlin",
        ZIG = 0x27 => "zig",
        CRYSTAL = 0x28 => "crystal",
        CPP17 = 0x2a => "c++17",
        CPP20 = 0x2b => "c++20",
        C17 = 0x2c => "c17",
        FORTRAN18 = 0x2d => "fortran18",
        ADA2005 = 0x2e => "ada2005",
        ADA2012 = 0x2f => "ada2012",
        HIP = 0x30 => "hip",
        ASSEMBLY = 0x31 => "assembly",
        CSHARP = 0x32 => "c#",
        MOJO = 0x33 => "mojo",
        GLSL = 0x34 => "glsl",
        GLSL_ES = 0x35 => "glsl_es",
        HLSL = 0x36 => "hlsl",
        OPENCL_CPP = 0x37 => "opencl_c++",
        CPP_FOR_OPENCL = 0x38 => "c++_for_opencl",
        SYCL = 0x39 => "sycl",
        CPP23 = 0x3a => "c++23",
        ODIN = 0x3b => "odin",
        P4 = 0x3c => "p4",
        METAL = 0x3d => "metal",
        C23 = 0x3e => "c23",
        FORTRAN23 = 0x3f => "fortran23",
        RUBY = 0x40 => "ruby",
        MOVE = 0x41 => "move",
        MIPS_ASSEMBLER = 0x8001 => "mips_assembler",
        LLVM_HIP = 0x8100 => "llvm_hip",
        GOOGLE_RENDERSCRIPT = 0x8e57 => "google_renderscript",
        BORLAND_DELPHI = 0xb000 => "borland_delphi",
        // dwarv's own codes (DW_LANG_lo_user range) for SPIR-V source languages DWARF lacks.
        DWARV_WGSL = 0x8d00 => "wgsl",
        DWARV_SLANG = 0x8d01 => "slang",
        DWARV_ZIG_SPIRV = 0x8d02 => "spirv_zig",
        DWARV_NZSL = 0x8d03 => "nzsl",
        DWARV_ESSL = 0x8d04 => "essl",
    }
}

open_enum! {
    /// How much debug info a unit carries (LLVM DICompileUnit emissionKind).
    EmissionKind: u32 {
        NONE = 0 => "none",
        FULL = 1 => "full",
        LINE_TABLES_ONLY = 2 => "line_tables_only",
        DEBUG_DIRECTIVES_ONLY = 3 => "debug_directives_only",
    }
}

open_enum! {
    /// Unit kinds, numbered as DW_UT.
    UnitKind: u8 {
        COMPILE = 0x01 => "compile",
        TYPE = 0x02 => "type",
        PARTIAL = 0x03 => "partial",
        SKELETON = 0x04 => "skeleton",
        SPLIT_COMPILE = 0x05 => "split_compile",
        SPLIT_TYPE = 0x06 => "split_type",
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Unit {
    pub kind: UnitKind,
    /// The primary source file; its directory is the compilation directory.
    pub file: Option<Handle<File>>,
    pub language: Language,
    pub producer: Option<String>,
    /// Compiler flags (DW_AT_producer's split-off flags, LLVM `flags:`, DebugEntryPoint args).
    pub flags_text: Option<String>,
    pub flags: Flags,
    pub runtime_version: u32,
    pub emission: EmissionKind,
    /// DWARF version of the unit as read (`diff` ignores it); None = writer's default.
    pub dwarf_version: Option<u16>,
    /// The SPIR-V debug set's Version operand as read (`diff` ignores it).
    pub debug_version: Option<u32>,
    pub dwo_name: Option<String>,
    pub dwo_id: Option<u64>,
    /// A type unit's signature (DWARF 5 DW_UT_type: what DW_FORM_ref_sig8 and DW_AT_signature
    /// name) and the type its header names.
    pub signature: Option<u64>,
    pub signed_type: Option<Handle<super::Type>>,
    pub split_debug_inlining: bool,
    pub debug_info_for_profiling: bool,
    /// LLVM nameTableKind / whether DWARF accelerator names are wanted (0 default, 1 GNU, 2 none, 3 Apple).
    pub name_table: u32,
    pub ranges_base_address: bool,
    pub sysroot: Option<String>,
    pub sdk: Option<String>,
    /// DW_AT_LLVM_augmentation (AMD heterogeneous debugging).
    pub augmentation: Option<String>,
    /// Code covered by the unit (DW_AT_ranges / low_pc-high_pc).
    pub ranges: Vec<CodeRange>,
    /// Types the unit keeps although nothing refers to them (LLVM retainedTypes).
    pub retained: Vec<Ref>,
    pub extra: Vec<RawAttr>,
}

impl Default for Unit {
    fn default() -> Self {
        Unit {
            kind: UnitKind::COMPILE,
            file: None,
            language: Language::C99,
            producer: None,
            flags_text: None,
            flags: Flags::default(),
            runtime_version: 0,
            emission: EmissionKind::FULL,
            dwarf_version: None,
            debug_version: None,
            dwo_name: None,
            dwo_id: None,
            signature: None,
            signed_type: None,
            split_debug_inlining: false,
            debug_info_for_profiling: false,
            name_table: 0,
            ranges_base_address: false,
            sysroot: None,
            sdk: None,
            augmentation: None,
            ranges: Vec::new(),
            retained: Vec::new(),
            extra: Vec::new(),
        }
    }
}

open_enum! {
    /// Macro entry kinds, numbered as DW_MACRO (DWARF 5 .debug_macro).
    MacroKind: u8 {
        DEFINE = 0x01 => "define",
        UNDEF = 0x02 => "undef",
        START_FILE = 0x03 => "file",
        IMPORT = 0x07 => "import",
    }
}

/// A macro definition or undefinition, or an included file that groups them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Macro {
    pub kind: MacroKind,
    /// The unit or the enclosing `file` macro.
    pub parent: Option<Ref>,
    pub line: u32,
    /// The included file, for `file` entries; the defining source for SPIR-V definitions.
    pub file: Option<Handle<File>>,
    pub name: Option<String>,
    pub value: Option<String>,
    /// For `undef`: the definition it cancels, when the source says (SPIR-V DebugMacroUndef).
    pub definition: Option<Handle<Macro>>,
}

/// An empty definition: what readers allocate before they fill it.
impl Default for Macro {
    fn default() -> Self {
        Macro {
            kind: MacroKind::DEFINE,
            parent: None,
            line: 0,
            file: None,
            name: None,
            value: None,
            definition: None,
        }
    }
}

/// A build identifier (NonSemantic DebugBuildIdentifier, GNU build-id note).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BuildId {
    pub id: String,
    pub flags: u32,
}

/// What `dwarv strip` leaves in a stripped module to find its debug info again.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Link {
    pub build_id: String,
    pub storage_path: Option<String>,
}
