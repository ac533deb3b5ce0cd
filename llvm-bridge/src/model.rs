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

/// A field's value, borrowed from the model's tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field<'m> {
    Int(i64),
    Str(&'m str),
    /// A node reference (absent references are not sent).
    Ref(NodeId),
    /// A list of node references; `None` is a null operand.
    Refs(&'m [Option<NodeId>]),
    /// DIExpression elements.
    Ops(&'m [u64]),
}

/// One field in [`Nodes`]' field table: its key, its type (the wire's field type, 0..=4) and
/// its value: an integer's two halves, a node id, or the start and length of its string or list
/// in the table of that kind. 12 bytes, where a `(Key, Field)` with owned values took 40 and an
/// allocation per string and list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    pub(crate) key: Key,
    pub(crate) ty: u8,
    pub(crate) a: u32,
    pub(crate) b: u32,
}

pub(crate) const INT: u8 = 0;
pub(crate) const STR: u8 = 1;
pub(crate) const REF: u8 = 2;
pub(crate) const REFS: u8 = 3;
pub(crate) const OPS: u8 = 4;

/// One node in [`Nodes`]: its kind, tag and where its fields start in the field table (they
/// end where the next node's start).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rec {
    pub(crate) kind: Kind,
    pub(crate) distinct: bool,
    pub(crate) tag: u16,
    pub(crate) first: u32,
}

/// The node table: every node's fields in one table, its strings in one string and its lists
/// in one table per element type, rather than a vector per node and an allocation per value
/// (the model of a 10 MB bitcode holds 0.46 M nodes and 2 M fields). Read through
/// [`Nodes::get`] and [`Nodes::iter`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Nodes {
    pub(crate) recs: Vec<Rec>,
    pub(crate) slots: Vec<Slot>,
    pub(crate) strings: String,
    pub(crate) refs: Vec<Option<NodeId>>,
    pub(crate) ops: Vec<u64>,
}

impl Nodes {
    pub fn len(&self) -> usize {
        self.recs.len()
    }
    pub fn is_empty(&self) -> bool {
        self.recs.is_empty()
    }
    /// Node `id` (panics past the table, like indexing: the decoder checks every reference).
    pub fn get(&self, id: NodeId) -> Node<'_> {
        let i = id as usize;
        let rec = self.recs[i];
        let end = self
            .recs
            .get(i + 1)
            .map_or(self.slots.len(), |r| r.first as usize);
        Node {
            kind: rec.kind,
            distinct: rec.distinct,
            tag: rec.tag,
            slots: &self.slots[rec.first as usize..end],
            t: self,
        }
    }
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Node<'_>> + '_ {
        (0..self.recs.len() as NodeId).map(|id| self.get(id))
    }
    fn value(&self, s: &Slot) -> Field<'_> {
        let (a, b) = (s.a as usize, s.b as usize);
        match s.ty {
            STR => Field::Str(&self.strings[a..a + b]),
            REF => Field::Ref(s.a),
            REFS => Field::Refs(&self.refs[a..a + b]),
            OPS => Field::Ops(&self.ops[a..a + b]),
            _ => Field::Int((u64::from(s.b) << 32 | u64::from(s.a)) as i64),
        }
    }
}

/// A node of the model: its kind, tag and fields, borrowed from [`Nodes`].
#[derive(Clone, Copy)]
pub struct Node<'m> {
    pub kind: Kind,
    pub distinct: bool,
    /// The DWARF tag (DINode classes), 0 otherwise.
    pub tag: u16,
    slots: &'m [Slot],
    t: &'m Nodes,
}

impl std::fmt::Debug for Node<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Node")
            .field("kind", &self.kind)
            .field("distinct", &self.distinct)
            .field("tag", &self.tag)
            .field("fields", &self.fields().collect::<Vec<_>>())
            .finish()
    }
}

impl<'m> Node<'m> {
    /// The fields in the order the shim sent them.
    pub fn fields(&self) -> impl Iterator<Item = (Key, Field<'m>)> + 'm {
        let t = self.t;
        self.slots.iter().map(move |s| (s.key, t.value(s)))
    }
    pub fn get(&self, k: Key) -> Option<Field<'m>> {
        let t = self.t;
        self.slots.iter().find(|s| s.key == k).map(|s| t.value(s))
    }
    pub fn int(&self, k: Key) -> Option<i64> {
        match self.get(k) {
            Some(Field::Int(v)) => Some(v),
            _ => None,
        }
    }
    pub fn str(&self, k: Key) -> Option<&'m str> {
        match self.get(k) {
            Some(Field::Str(v)) => Some(v),
            _ => None,
        }
    }
    pub fn node(&self, k: Key) -> Option<NodeId> {
        match self.get(k) {
            Some(Field::Ref(v)) => Some(v),
            _ => None,
        }
    }
    pub fn refs(&self, k: Key) -> Option<&'m [Option<NodeId>]> {
        match self.get(k) {
            Some(Field::Refs(v)) => Some(v),
            _ => None,
        }
    }
    pub fn ops(&self, k: Key) -> Option<&'m [u64]> {
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
    pub nodes: Nodes,
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
    pub fn node(&self, id: NodeId) -> Node<'_> {
        self.nodes.get(id)
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
