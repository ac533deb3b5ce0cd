//! Variables, labels, call sites, ObjC properties, imported entities and entry points.

use super::code::CodePos;
use super::expr::Location;
use super::{Expr, Flags, Handle, InlinedAt, Loc, RawAttr, Ref, Scope, Type, Unit, Value};

#[derive(Clone, Debug, PartialEq)]
pub struct Variable {
    pub kind: VarKind,
    pub name: Option<String>,
    pub ty: Option<Handle<Type>>,
    /// The enclosing scope, unit or composite (static members).
    pub scope: Option<Ref>,
    pub at: Option<Loc>,
    pub flags: Flags,
    pub linkage: Option<String>,
    pub align_bits: Option<u32>,
    /// Where the variable lives (DWARF DW_AT_location; the expression of a global).
    pub location: Option<Location>,
    /// What the variable is bound to: the SPIR-V OpVariable/OpConstant, an LLVM global, a symbol.
    pub binding: Option<Value>,
    pub const_value: Option<Value>,
    /// The in-class declaration of a static member (a member type, or a variable: DWARF
    /// DW_AT_specification).
    pub declaration: Option<Ref>,
    pub extra: Vec<RawAttr>,
}

impl Variable {
    pub fn new(kind: VarKind) -> Variable {
        Variable {
            kind,
            name: None,
            ty: None,
            scope: None,
            at: None,
            flags: Flags::default(),
            linkage: None,
            align_bits: None,
            location: None,
            binding: None,
            const_value: None,
            declaration: None,
            extra: Vec::new(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum VarKind {
    Global,
    Local,
    /// A parameter, numbered from 1.
    Param(u32),
    /// A variable inlined at a call site (NonSemantic/OpenCL.100 DebugInlinedVariable).
    Inlined {
        origin: Handle<Variable>,
        inlined: Handle<InlinedAt>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Label {
    /// Empty in a copy that takes its origin's (DWARF: a label DIE naming only its origin).
    pub name: String,
    pub scope: Option<Handle<Scope>>,
    pub at: Option<Loc>,
    pub pos: Option<CodePos>,
    /// The label this one is a concrete copy of: the same source label at another address, in
    /// an inlined or out-of-line instance of its function (DWARF DW_AT_abstract_origin).
    pub origin: Option<Handle<Label>>,
}

/// A call site (DW_TAG_call_site).
#[derive(Clone, Debug, PartialEq)]
pub struct CallSite {
    /// The calling function or block.
    pub scope: Option<Handle<Scope>>,
    /// The return address (DW_AT_call_return_pc) or the call instruction (DW_AT_call_pc).
    pub pos: Option<CodePos>,
    pub is_return_pc: bool,
    /// The callee, when known statically.
    pub target: Option<Ref>,
    /// The callee's address, for indirect calls (DW_AT_call_target).
    pub target_location: Option<Location>,
    pub tail: bool,
    pub at: Option<Loc>,
    pub params: Vec<CallParam>,
    pub extra: Vec<RawAttr>,
}

/// A call-site parameter: where it was passed and the value it had.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CallParam {
    pub location: Option<Handle<Expr>>,
    pub value: Option<Handle<Expr>>,
    pub data_value: Option<Handle<Expr>>,
}

/// An Objective-C property (LLVM DIObjCProperty, DW_TAG_APPLE_property).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Property {
    pub name: String,
    pub at: Option<Loc>,
    pub getter: Option<String>,
    pub setter: Option<String>,
    pub attributes: u32,
    pub ty: Option<Handle<Type>>,
}

open_enum! {
    /// Imported-entity kinds, numbered as DW_TAG.
    ImportKind: u16 {
        MODULE = 0x3a => "module",
        DECLARATION = 0x08 => "declaration",
        UNIT = 0x3d => "unit",
    }
}

/// A `using` directive or declaration (SPIR-V DebugImportedEntity, DIImportedEntity).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Import {
    pub kind: ImportKind,
    pub name: Option<String>,
    pub scope: Option<Ref>,
    pub entity: Option<Ref>,
    pub at: Option<Loc>,
    pub elements: Vec<Ref>,
}

/// NonSemantic DebugEntryPoint: how an entry point was compiled.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EntryPoint {
    pub function: Option<Handle<Scope>>,
    pub unit: Option<Handle<Unit>>,
    pub signature: String,
    pub arguments: String,
}
