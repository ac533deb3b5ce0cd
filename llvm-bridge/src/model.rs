//! The plain model of an LLVM module's debug metadata: what the shim saw, with no LLVM type in it.
//!
//! Nodes are kept generic (kind, tag and named fields, named exactly as LLVM's assembly writes
//! them) so that every field of every LLVM 14 DI class reaches the core without one Rust struct
//! per class; the core reads the fields it maps and ledgers the rest.

/// Index of a node in [`Model::nodes`].
pub type NodeId = u32;

macro_rules! names {
    ($(#[$m:meta])* $name:ident { $($v:ident),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(non_camel_case_types)]
        pub enum $name { $($v),* , Unknown }
        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$v),*];
            pub fn name(self) -> &'static str {
                match self { $($name::$v => stringify!($v),)* $name::Unknown => "unknown" }
            }
            pub fn from_name(s: &str) -> $name {
                match s { $(stringify!($v) => $name::$v,)* _ => $name::Unknown }
            }
        }
    };
}

names! {
    /// The metadata node kinds the shim reports (LLVM 14's DI classes plus plain metadata).
    Kind {
        DICompileUnit, DIFile, DIBasicType, DIStringType, DIDerivedType, DICompositeType,
        DISubroutineType, DISubrange, DIGenericSubrange, DIEnumerator, DITemplateTypeParameter,
        DITemplateValueParameter, DISubprogram, DILexicalBlock, DILexicalBlockFile, DINamespace,
        DIModule, DICommonBlock, DILocalVariable, DIGlobalVariable, DIGlobalVariableExpression,
        DIExpression, DILabel, DIImportedEntity, DIMacro, DIMacroFile, DIObjCProperty, DILocation,
        DIArgList, GenericDINode, MDTuple, MDString, Value, Other, DIAssignID,
    }
}

names! {
    /// Field names, as in LLVM's assembly (`baseType:`, `scopeLine:` …).
    Key {
        language, file, producer, isOptimized, flags, runtimeVersion, splitDebugFilename,
        emissionKind, enums, retainedTypes, globals, imports, macros, dwoId, splitDebugInlining,
        debugInfoForProfiling, nameTableKind, rangesBaseAddress, sysroot, sdk, filename,
        directory, checksumkind, checksum, source, name, size, align, encoding, stringLength,
        stringLengthExpression, stringLocationExpression, line, scope, baseType, offset,
        extraData, dwarfAddressSpace, annotations, elements, runtimeLang, vtableHolder,
        templateParams, identifier, discriminator, dataLocation, associated, allocated, rank, cc,
        types, count, lowerBound, upperBound, stride, value, isUnsigned, type_, defaulted,
        linkageName, scopeLine, containingType, unit, virtuality, virtualIndex, thisAdjustment,
        spFlags, declaration, retainedNodes, thrownTypes, column, exportSymbols, configMacros,
        includePath, apinotes, isDecl, arg, isLocal, isDefinition, var, expr, entity,
        macinfoType, nodes, getter, setter, attributes, inlinedAt, isImplicitCode, args, header,
        operands, intValue, defInst, argNo, allocaNo, targetFuncName, ptrAuthKey,
        ptrAuthIsAddressDiscriminated, ptrAuthExtraDiscriminator, ptrAuthIsaPointer,
        ptrAuthAuthenticatesNullValues,
    }
}

impl Key {
    /// The shim's name for a key (`type` is a Rust keyword here).
    pub fn wire_name(self) -> &'static str {
        match self {
            Key::type_ => "type",
            k => k.name(),
        }
    }
    pub fn from_wire(s: &str) -> Key {
        if s == "type" {
            Key::type_
        } else {
            Key::from_name(s)
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Field {
    Int(i64),
    Str(String),
    /// A node reference (absent references are not sent).
    Ref(NodeId),
    /// A list of node references; `None` is a null operand.
    Refs(Vec<Option<NodeId>>),
    /// DIExpression elements.
    Ops(Vec<u64>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub kind: Kind,
    pub distinct: bool,
    /// The DWARF tag (DINode classes), 0 otherwise.
    pub tag: u16,
    pub fields: Vec<(Key, Field)>,
}

impl Node {
    pub fn get(&self, k: Key) -> Option<&Field> {
        self.fields
            .iter()
            .find(|(key, _)| *key == k)
            .map(|(_, f)| f)
    }
    pub fn int(&self, k: Key) -> Option<i64> {
        match self.get(k) {
            Some(Field::Int(v)) => Some(*v),
            _ => None,
        }
    }
    pub fn str(&self, k: Key) -> Option<&str> {
        match self.get(k) {
            Some(Field::Str(v)) => Some(v),
            _ => None,
        }
    }
    pub fn node(&self, k: Key) -> Option<NodeId> {
        match self.get(k) {
            Some(Field::Ref(v)) => Some(*v),
            _ => None,
        }
    }
    pub fn refs(&self, k: Key) -> Option<&[Option<NodeId>]> {
        match self.get(k) {
            Some(Field::Refs(v)) => Some(v),
            _ => None,
        }
    }
    pub fn ops(&self, k: Key) -> Option<&[u64]> {
        match self.get(k) {
            Some(Field::Ops(v)) => Some(v),
            _ => None,
        }
    }
}

/// A global variable of the module: its name, linkage and `!dbg` attachments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Global {
    pub name: String,
    /// `llvm::GlobalValue::LinkageTypes` (0 external … 10 common).
    pub linkage: u8,
    pub address_space: u32,
    pub is_declaration: bool,
    /// DIGlobalVariableExpression nodes.
    pub dbg: Vec<NodeId>,
}

/// A function: its name, linkage, DISubprogram and its span of the instruction numbering.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    pub linkage: u8,
    pub is_declaration: bool,
    pub subprogram: Option<NodeId>,
    /// Number of the function's first instruction (see [`InstLoc::inst`]).
    pub first_inst: u32,
    pub inst_count: u32,
    /// The instruction count of each basic block, in layout order.
    pub blocks: Vec<u32>,
}

/// The `!dbg` of one instruction. Instructions are numbered from 0 across the module: every
/// instruction of every defined function, in module order, basic blocks in layout order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstLoc {
    pub inst: u32,
    /// A DILocation.
    pub loc: NodeId,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntrinsicKind {
    Declare,
    Value,
    Addr,
    Label,
    /// llvm.dbg.assign / `#dbg_assign` (LLVM 16+): (value, variable, expression, DIAssignID,
    /// address, address expression).
    Assign,
}

/// A call of llvm.dbg.declare/value/addr/label. `args` are the metadata operands in order:
/// (location, variable, expression) or (label); a location is a `Value` node (the operand as
/// LLVM prints it), a `DIArgList`, or absent (`None`) for an empty `!{}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Intrinsic {
    pub kind: IntrinsicKind,
    pub inst: u32,
    pub loc: Option<NodeId>,
    pub args: Vec<Option<NodeId>>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Model {
    pub triple: String,
    pub source_filename: String,
    /// The module only parsed with opaque pointers on.
    pub opaque_pointers: bool,
    pub nodes: Vec<Node>,
    /// `!llvm.dbg.cu`.
    pub compile_units: Vec<NodeId>,
    /// `!llvm.module.flags` rows (tuples).
    pub module_flags: Vec<NodeId>,
    pub globals: Vec<Global>,
    pub functions: Vec<Function>,
    pub locations: Vec<InstLoc>,
    pub intrinsics: Vec<Intrinsic>,
    /// LLVM's warnings while loading (e.g. debug info dropped for an old Debug Info Version).
    pub warnings: Option<String>,
    /// The LLVM that read the module (`llvm-config --version` of its shim; empty when the
    /// model was decoded from a bare buffer).
    pub llvm: &'static str,
}

impl Model {
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }
    /// The integer module flag `name` (`Dwarf Version`, `Debug Info Version`).
    pub fn module_flag(&self, name: &str) -> Option<i64> {
        self.module_flags.iter().find_map(|&id| {
            let ops = self.node(id).refs(Key::elements)?;
            let key = self.node((*ops.get(1)?)?);
            if key.kind != Kind::MDString || key.str(Key::value) != Some(name) {
                return None;
            }
            self.node((*ops.get(2)?)?).int(Key::intValue)
        })
    }
}
