//! Scopes (namespaces, modules, common blocks, functions, lexical blocks) and inlined-at chains.

use super::code::{CodePos, CodeRange};
use super::expr::Location;
use super::{Flags, Handle, Loc, RawAttr, Ref, Type, Unit, Value};

#[derive(Clone, Debug, PartialEq)]
pub struct Scope {
    pub kind: ScopeKind,
    pub name: Option<String>,
    /// The enclosing unit, scope or type.
    pub parent: Option<Ref>,
    pub at: Option<Loc>,
    pub flags: Flags,
    pub extra: Vec<RawAttr>,
}

impl Scope {
    pub fn new(kind: ScopeKind) -> Scope {
        Scope {
            kind,
            name: None,
            parent: None,
            at: None,
            flags: Flags::default(),
            extra: Vec::new(),
        }
    }
    /// The function details of a function or function declaration.
    pub fn function(&self) -> Option<&FunctionInfo> {
        match &self.kind {
            ScopeKind::Function(f) | ScopeKind::FunctionDecl(f) => Some(f),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ScopeKind {
    Namespace {
        export_symbols: bool,
    },
    /// A source module (Fortran/Clang modules: LLVM DIModule, OpenCL.100 DebugModuleINTEL).
    Module {
        config_macros: Option<String>,
        include_path: Option<String>,
        api_notes: Option<String>,
        is_decl: bool,
    },
    CommonBlock {
        declaration: Option<Handle<super::Variable>>,
    },
    Function(Box<FunctionInfo>),
    /// A function declaration (SPIR-V DebugFunctionDeclaration, a declaration DISubprogram).
    FunctionDecl(Box<FunctionInfo>),
    LexicalBlock {
        ranges: Vec<CodeRange>,
    },
    /// A lexical block file / discriminator: same scope, another file or discriminator.
    BlockFile {
        discriminator: u32,
    },
}

open_enum! {
    /// DW_VIRTUALITY.
    Virtuality: u8 {
        NONE = 0 => "none",
        VIRTUAL = 1 => "virtual",
        PURE_VIRTUAL = 2 => "pure_virtual",
    }
}

/// Everything a function or function declaration has beyond the common scope fields.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FunctionInfo {
    pub linkage: Option<String>,
    pub ty: Option<Handle<Type>>,
    pub unit: Option<Handle<Unit>>,
    pub scope_line: Option<u32>,
    /// The function a trampoline stands for (LLVM `targetFuncName`, SPIR-V `.200` DebugFunction
    /// Target Function Name).
    pub target: Option<String>,
    /// The declaration this definition completes.
    pub declaration: Option<Handle<super::Scope>>,
    pub containing_type: Option<Handle<Type>>,
    pub virtuality: Option<Virtuality>,
    pub virtual_index: Option<u32>,
    pub this_adjustment: Option<i64>,
    pub templates: Vec<Handle<Type>>,
    pub thrown: Vec<Handle<Type>>,
    /// Entities the function keeps alive (LLVM retainedNodes: locals, labels).
    pub retained: Vec<Ref>,
    /// The code: the SPIR-V function (OpFunction id; `diff` ignores it) or the symbol.
    pub binding: Option<Value>,
    pub ranges: Vec<CodeRange>,
    pub entry_pc: Option<CodePos>,
    pub frame_base: Option<Location>,
    /// DW_AT_calling_convention (DW_CC_*).
    pub calling_convention: Option<u8>,
    /// SIMD: DW_AT_LLVM_lanes, lane_pc, active_lane (seed 002).
    pub lanes: Option<u32>,
    pub lane_pc: Option<Location>,
    pub active_lane: Option<Location>,
}

/// One link of an inlined-at chain: code of `Scope`s inlined at this call site.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InlinedAt {
    /// Where the call was (the call site's file, line and column).
    pub at: Loc,
    /// The scope that contains the call.
    pub scope: Option<Handle<Scope>>,
    /// The call site this one was itself inlined at.
    pub parent: Option<Handle<InlinedAt>>,
    /// The function inlined here, when no scope run says it (a DWARF inlined subroutine whose
    /// address ranges are all empty: gcc keeps such call sites for their variables).
    pub origin: Option<Handle<Scope>>,
    /// Where a debugger enters the inlined code (DW_AT_entry_pc), when the producer said.
    pub entry_pc: Option<CodePos>,
}
