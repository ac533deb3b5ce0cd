//! The neutral debug-info IR every frontend lowers to and every backend writes from.
//!
//! A [`Module`] holds arenas of entities that refer to each other by typed [`Handle`]s, plus the
//! code-anchored tables (line rows, scope runs, declare/value events, call-frame info). It has a
//! text form ([`text`]), a validator ([`verify`]) and a structural diff ([`diff`]).

pub mod arena;
pub mod cfi;
pub mod code;
pub mod diff;
pub mod expr;
pub mod merge;
#[macro_use]
pub mod open;
pub mod prune;
pub mod ref_map;
pub mod scope;
pub mod text;
pub mod types;
pub mod unit;
pub mod var;
pub mod verify;

pub use arena::{Arena, Handle};
pub use cfi::{CfaCode, CfaOp, Cie, Fde};
pub use code::{CodePos, CodeRange, Event, EventKind, LineFlags, LineRow, ScopeRun};
pub use expr::{Arg, Expr, LocEntry, LocList, Location, Op, OpCode};
pub use scope::{FunctionInfo, InlinedAt, Scope, ScopeKind, Virtuality};
pub use types::{
    AddrSpace, Bound, CompositeTag, Encoding, Enumerator, Memory, PtrKind, Qualifier, Subrange,
    TemplateParamKind, Type, TypeKind,
};
pub use unit::{
    BuildId, Checksum, ChecksumKind, EmissionKind, File, Language, Link, Macro, MacroKind, Text,
    Unit, UnitKind,
};
pub use var::{
    CallParam, CallSite, EntryPoint, Import, ImportKind, Label, Property, VarKind, Variable,
};

/// Where the module's debug information came from; printed in the text header. `diff` ignores it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Source {
    /// `ir`, `spirv`, `dwarf`, `llvm` or `visa`.
    pub format: SourceFormat,
    /// The debug set's import name for SPIR-V (`NonSemantic.Shader.DebugInfo.100`, …), the ELF
    /// machine for DWARF; free text otherwise.
    pub flavour: Option<String>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SourceFormat {
    #[default]
    Ir,
    Spirv,
    Dwarf,
    Llvm,
    Visa,
}

impl SourceFormat {
    pub const ALL: [(SourceFormat, &'static str); 5] = [
        (SourceFormat::Ir, "ir"),
        (SourceFormat::Spirv, "spirv"),
        (SourceFormat::Dwarf, "dwarf"),
        (SourceFormat::Llvm, "llvm"),
        (SourceFormat::Visa, "visa"),
    ];
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(f, _)| *f == self)
            .map(|(_, n)| *n)
            .unwrap_or("ir")
    }
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.iter().find(|(_, n)| *n == s).map(|(f, _)| *f)
    }
}

/// Facts about the module as a whole (the `module` line of the text form).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModuleInfo {
    /// ELF `e_machine` of the code the debug info describes (62 x86-64, 224 AMDGPU), if any.
    pub machine: Option<u16>,
    /// Size of a target address in bytes (DWARF address size; 4 or 8 for SPIR-V addressing).
    pub address_size: Option<u8>,
    /// The module's own build identifier (NonSemantic DebugBuildIdentifier, ELF build-id).
    pub build_id: Option<BuildId>,
    /// Where the module's split debug info is stored (NonSemantic DebugStoragePath).
    pub storage_path: Option<String>,
    /// Records that `dwarv strip` adds to tie a stripped module to its sidecar; `diff` ignores them.
    pub link: Option<Link>,
    /// The hash of the SPIR-V code (its debug-stripped normal form, `crate::spirv::code_id`)
    /// whose positions the debug info's code positions are: written `--into` a module
    /// of that very code, they are placed as they are, with no function to match (an OpLine-only
    /// shader has none). Set by the SPIR-V reader for a module with code; `diff` ignores it.
    pub code_id: Option<String>,
}

/// One translation's worth of debug information.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Module {
    pub source: Source,
    pub info: ModuleInfo,
    pub texts: Arena<Text>,
    pub files: Arena<File>,
    pub units: Arena<Unit>,
    pub types: Arena<Type>,
    pub scopes: Arena<Scope>,
    pub inlined: Arena<InlinedAt>,
    pub vars: Arena<Variable>,
    pub exprs: Arena<Expr>,
    pub loclists: Arena<LocList>,
    pub macros: Arena<Macro>,
    pub imports: Arena<Import>,
    pub labels: Arena<Label>,
    pub call_sites: Arena<CallSite>,
    pub properties: Arena<Property>,
    pub entry_points: Arena<EntryPoint>,
    pub cies: Arena<Cie>,
    pub fdes: Arena<Fde>,
    /// Line-table rows, each covering a code range.
    pub lines: Vec<LineRow>,
    /// Which scope (and inlined-at chain) covers each code range.
    pub scope_runs: Vec<ScopeRun>,
    /// DebugDeclare / DebugValue / llvm.dbg.* events anchored at code positions.
    pub events: Vec<Event>,
}

/// A reference to any entity, for fields whose target may be of several kinds (a scope's
/// parent, a composite's elements, an imported entity, …). Printed as the target's short name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ref {
    Text(Handle<Text>),
    File(Handle<File>),
    Unit(Handle<Unit>),
    Type(Handle<Type>),
    Scope(Handle<Scope>),
    Inlined(Handle<InlinedAt>),
    Var(Handle<Variable>),
    Expr(Handle<Expr>),
    LocList(Handle<LocList>),
    Macro(Handle<Macro>),
    Import(Handle<Import>),
    Label(Handle<Label>),
    CallSite(Handle<CallSite>),
    Property(Handle<Property>),
    EntryPoint(Handle<EntryPoint>),
    Cie(Handle<Cie>),
    Fde(Handle<Fde>),
}

/// The kinds of entity, in the order the text form prints them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EntityKind {
    Text,
    File,
    Unit,
    Type,
    Scope,
    Inlined,
    Var,
    Expr,
    LocList,
    Macro,
    Import,
    Label,
    CallSite,
    Property,
    EntryPoint,
    Cie,
    Fde,
}

impl EntityKind {
    /// Short-name prefix in the text form (`t3`, `s1`, …) and a readable noun for messages.
    pub const TABLE: [(EntityKind, &'static str, &'static str); 17] = [
        (EntityKind::Text, "x", "source text"),
        (EntityKind::File, "f", "file"),
        (EntityKind::Unit, "u", "unit"),
        (EntityKind::Type, "t", "type"),
        (EntityKind::Scope, "s", "scope"),
        (EntityKind::Inlined, "i", "inlined-at"),
        (EntityKind::Var, "v", "variable"),
        (EntityKind::Expr, "e", "expression"),
        (EntityKind::LocList, "l", "location list"),
        (EntityKind::Macro, "m", "macro"),
        (EntityKind::Import, "im", "import"),
        (EntityKind::Label, "lb", "label"),
        (EntityKind::CallSite, "cs", "call site"),
        (EntityKind::Property, "p", "property"),
        (EntityKind::EntryPoint, "ep", "entry point"),
        (EntityKind::Cie, "cie", "CIE"),
        (EntityKind::Fde, "fde", "FDE"),
    ];
    pub fn prefix(self) -> &'static str {
        Self::TABLE[self as usize].1
    }
    pub fn noun(self) -> &'static str {
        Self::TABLE[self as usize].2
    }
    pub fn from_prefix(p: &str) -> Option<Self> {
        Self::TABLE
            .iter()
            .find(|(_, pre, _)| *pre == p)
            .map(|(k, _, _)| *k)
    }
}

impl Ref {
    pub fn kind(self) -> EntityKind {
        match self {
            Ref::Text(_) => EntityKind::Text,
            Ref::File(_) => EntityKind::File,
            Ref::Unit(_) => EntityKind::Unit,
            Ref::Type(_) => EntityKind::Type,
            Ref::Scope(_) => EntityKind::Scope,
            Ref::Inlined(_) => EntityKind::Inlined,
            Ref::Var(_) => EntityKind::Var,
            Ref::Expr(_) => EntityKind::Expr,
            Ref::LocList(_) => EntityKind::LocList,
            Ref::Macro(_) => EntityKind::Macro,
            Ref::Import(_) => EntityKind::Import,
            Ref::Label(_) => EntityKind::Label,
            Ref::CallSite(_) => EntityKind::CallSite,
            Ref::Property(_) => EntityKind::Property,
            Ref::EntryPoint(_) => EntityKind::EntryPoint,
            Ref::Cie(_) => EntityKind::Cie,
            Ref::Fde(_) => EntityKind::Fde,
        }
    }
    pub fn index(self) -> usize {
        match self {
            Ref::Text(h) => h.index(),
            Ref::File(h) => h.index(),
            Ref::Unit(h) => h.index(),
            Ref::Type(h) => h.index(),
            Ref::Scope(h) => h.index(),
            Ref::Inlined(h) => h.index(),
            Ref::Var(h) => h.index(),
            Ref::Expr(h) => h.index(),
            Ref::LocList(h) => h.index(),
            Ref::Macro(h) => h.index(),
            Ref::Import(h) => h.index(),
            Ref::Label(h) => h.index(),
            Ref::CallSite(h) => h.index(),
            Ref::Property(h) => h.index(),
            Ref::EntryPoint(h) => h.index(),
            Ref::Cie(h) => h.index(),
            Ref::Fde(h) => h.index(),
        }
    }
    pub fn from_parts(kind: EntityKind, index: u32) -> Ref {
        match kind {
            EntityKind::Text => Ref::Text(Handle::new(index)),
            EntityKind::File => Ref::File(Handle::new(index)),
            EntityKind::Unit => Ref::Unit(Handle::new(index)),
            EntityKind::Type => Ref::Type(Handle::new(index)),
            EntityKind::Scope => Ref::Scope(Handle::new(index)),
            EntityKind::Inlined => Ref::Inlined(Handle::new(index)),
            EntityKind::Var => Ref::Var(Handle::new(index)),
            EntityKind::Expr => Ref::Expr(Handle::new(index)),
            EntityKind::LocList => Ref::LocList(Handle::new(index)),
            EntityKind::Macro => Ref::Macro(Handle::new(index)),
            EntityKind::Import => Ref::Import(Handle::new(index)),
            EntityKind::Label => Ref::Label(Handle::new(index)),
            EntityKind::CallSite => Ref::CallSite(Handle::new(index)),
            EntityKind::Property => Ref::Property(Handle::new(index)),
            EntityKind::EntryPoint => Ref::EntryPoint(Handle::new(index)),
            EntityKind::Cie => Ref::Cie(Handle::new(index)),
            EntityKind::Fde => Ref::Fde(Handle::new(index)),
        }
    }
}

impl Module {
    /// Whether the module holds any debug info at all: a unit, file, type, scope, variable,
    /// line row, macro or label, or call-frame information.
    pub fn has_debug_info(&self) -> bool {
        !(self.units.is_empty()
            && self.files.is_empty()
            && self.types.is_empty()
            && self.scopes.is_empty()
            && self.vars.is_empty()
            && self.macros.is_empty()
            && self.labels.is_empty()
            && self.cies.is_empty()
            && self.fdes.is_empty()
            && self.lines.is_empty())
    }

    /// The unit a scope chain from `r` ends in: its first unit, or a function's own unit where
    /// the chain stops at it.
    pub fn unit_of(&self, mut r: Option<Ref>) -> Option<Handle<Unit>> {
        // Chains are short; the bound only stops a cycle the rules have not yet refused.
        for _ in 0..256 {
            r = match r? {
                Ref::Unit(u) => return Some(u),
                Ref::Scope(s) => {
                    let sc = self.scopes.get(s);
                    match (sc.parent, sc.function().and_then(|f| f.unit)) {
                        (None, Some(u)) => return Some(u),
                        (p, _) => p,
                    }
                }
                Ref::Type(t) => self.types.get(t).scope,
                _ => None,
            };
        }
        None
    }

    /// How many entities of a kind the module holds.
    pub fn count(&self, kind: EntityKind) -> usize {
        match kind {
            EntityKind::Text => self.texts.len(),
            EntityKind::File => self.files.len(),
            EntityKind::Unit => self.units.len(),
            EntityKind::Type => self.types.len(),
            EntityKind::Scope => self.scopes.len(),
            EntityKind::Inlined => self.inlined.len(),
            EntityKind::Var => self.vars.len(),
            EntityKind::Expr => self.exprs.len(),
            EntityKind::LocList => self.loclists.len(),
            EntityKind::Macro => self.macros.len(),
            EntityKind::Import => self.imports.len(),
            EntityKind::Label => self.labels.len(),
            EntityKind::CallSite => self.call_sites.len(),
            EntityKind::Property => self.properties.len(),
            EntityKind::EntryPoint => self.entry_points.len(),
            EntityKind::Cie => self.cies.len(),
            EntityKind::Fde => self.fdes.len(),
        }
    }
    /// Whether a reference points at an existing entity.
    pub fn resolves(&self, r: Ref) -> bool {
        r.index() < self.count(r.kind())
    }
}

/// A source position: file, line and column (0 = unknown, as in DWARF). Printed `f0:9:3`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    pub file: Option<Handle<File>>,
    pub line: u32,
    pub column: u32,
}

/// Named flag bits shared by types, scopes and variables (the union of SPIR-V DebugInfoFlags,
/// LLVM DIFlags and DISPFlags, and the DWARF attributes they stand for). Source bits dwarv has no
/// name for are kept in `foreign`, numbered as in the module's source format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Flags {
    pub bits: u64,
    pub foreign: u32,
}

/// Declares the named flag bits in order: `FLAG_NAMES` (the text form's names, one per bit of
/// [`Flags::bits`], in the text form's order) and one `Flags` constant per bit, so that code names
/// a flag by a constant the compiler checks, never by a string.
macro_rules! flag_bits {
    ($($konst:ident = $name:literal,)*) => {
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        enum FlagBit { $($konst),* }
        /// Flag names, one per bit of [`Flags::bits`]. The order is the text form's order.
        pub const FLAG_NAMES: [&str; [$($name),*].len()] = [$($name),*];
        impl Flags {
            $(pub const $konst: Flags = Flags::bit(FlagBit::$konst as usize);)*
        }
    };
}

flag_bits! {
    PROTECTED = "protected",
    PRIVATE = "private",
    PUBLIC = "public",
    LOCAL = "local", // SPIR-V FlagIsLocal, DW_AT_external absent, isLocal
    DEFINITION = "definition", // SPIR-V FlagIsDefinition, DISPFlagDefinition, isDefinition
    FWD_DECL = "fwd_decl", // FlagFwdDecl, DW_AT_declaration
    ARTIFICIAL = "artificial",
    EXPLICIT = "explicit",
    PROTOTYPED = "prototyped",
    OBJECT_POINTER = "object_pointer",
    STATIC_MEMBER = "static_member",
    INDIRECT_VARIABLE = "indirect_variable",
    LVALUE_REFERENCE = "lvalue_reference",
    RVALUE_REFERENCE = "rvalue_reference",
    OPTIMIZED = "optimized",
    ENUM_CLASS = "enum_class",
    PASS_BY_VALUE = "pass_by_value",
    PASS_BY_REFERENCE = "pass_by_reference",
    UNKNOWN_PHYSICAL_LAYOUT = "unknown_physical_layout",
    BLOCK_BYREF_STRUCT = "block_byref_struct",
    VIRTUAL = "virtual",
    BIT_FIELD = "bit_field",
    NO_RETURN = "no_return",
    SINGLE_INHERITANCE = "single_inheritance",
    MULTIPLE_INHERITANCE = "multiple_inheritance",
    VIRTUAL_INHERITANCE = "virtual_inheritance",
    INTRODUCED_VIRTUAL = "introduced_virtual",
    THUNK = "thunk",
    NON_TRIVIAL = "non_trivial",
    BIG_ENDIAN = "big_endian",
    LITTLE_ENDIAN = "little_endian",
    ALL_CALLS_DESCRIBED = "all_calls_described",
    APPLE_BLOCK = "apple_block",
    EXPORT_SYMBOLS = "export_symbols",
    PURE = "pure", // DISPFlagPure
    ELEMENTAL = "elemental",
    RECURSIVE = "recursive",
    MAIN_SUBPROGRAM = "main_subprogram",
    DELETED = "deleted",
    OBJC_DIRECT = "objc_direct",
    EXTERNAL = "external", // DW_AT_external
    INLINE = "inline", // DW_AT_inline (declared inline)
    DEFAULTED = "defaulted", // DW_AT_defaulted
    // A lexical block whose concrete out-of-line copy names no origin (clang's; DWARF readers
    // pair such blocks by their variables or their place).
    COPY_WITHOUT_ORIGIN = "copy_without_origin",
}

impl Flags {
    pub const fn bit(name_index: usize) -> Flags {
        Flags {
            bits: 1 << name_index,
            foreign: 0,
        }
    }
    /// The flag of the text form's name `name` (`"definition"` → [`Flags::DEFINITION`]).
    pub fn named(name: &str) -> Option<Flags> {
        FLAG_NAMES.iter().position(|n| *n == name).map(Flags::bit)
    }
    /// Whether any bit of `flag` is set.
    pub fn has(self, flag: Flags) -> bool {
        self.bits & flag.bits != 0
    }
    /// These flags and `flag`'s bits.
    pub fn with(mut self, flag: Flags) -> Flags {
        self.bits |= flag.bits;
        self
    }
    /// These flags without `flag`'s bits.
    pub fn without(mut self, flag: Flags) -> Flags {
        self.bits &= !flag.bits;
        self
    }
    pub fn is_empty(self) -> bool {
        self.bits == 0 && self.foreign == 0
    }
}

/// A DWARF attribute dwarv has no field for, kept as it was read: (attribute, form, value bytes).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RawAttr {
    pub attr: u16,
    pub form: u16,
    pub bytes: Vec<u8>,
}

/// A literal or symbolic value: constant values, template arguments, the SPIR-V/LLVM operand a
/// declare/value event or a global is bound to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Int(i128),
    Bytes(Vec<u8>),
    Str(String),
    Ref(Ref),
    /// A SPIR-V result id in the module the debug info describes (`%44`). `diff` ignores it.
    Spirv(u32),
    /// An LLVM value, as LLVM prints it (`%x.addr`, `@g`, `i32 7`).
    Llvm(String),
    /// An ELF symbol (a global's address before relocation).
    Symbol(String),
    Undef,
}

/// The references an entity's record holds, in field order (through the text codec, so every
/// field is covered); `opts` leaves out what a printer with these options leaves out.
pub fn refs_of(m: &Module, r: Ref, opts: text::PrintOptions) -> Vec<Ref> {
    let mut walker = RefWalker::default();
    walker.refs(m, r, opts);
    walker.found.0.into_inner()
}

/// [`refs_of`] for entity after entity, its buffers kept from one to the next.
#[derive(Default)]
pub struct RefWalker {
    found: Collect,
    sink: String,
}

#[derive(Default)]
struct Collect(std::cell::RefCell<Vec<Ref>>);

impl text::Namer for Collect {
    fn name(&self, r: Ref, out: &mut String) {
        self.0.borrow_mut().push(r);
        out.push('?');
    }
}

impl RefWalker {
    /// The references `r`'s record holds, as [`refs_of`] gives them.
    pub fn refs(&mut self, m: &Module, r: Ref, opts: text::PrintOptions) -> &[Ref] {
        use text::{Record, ValueWriter};
        self.found.0.get_mut().clear();
        self.sink.clear();
        let w = &mut ValueWriter::refs_only(&mut self.sink, &self.found, opts);
        match r {
            Ref::Text(h) => m.texts.get(h).write(w),
            Ref::File(h) => m.files.get(h).write(w),
            Ref::Unit(h) => m.units.get(h).write(w),
            Ref::Type(h) => m.types.get(h).write(w),
            Ref::Scope(h) => m.scopes.get(h).write(w),
            Ref::Inlined(h) => m.inlined.get(h).write(w),
            Ref::Var(h) => m.vars.get(h).write(w),
            Ref::Expr(h) => m.exprs.get(h).write(w),
            // A list's only references are its entries' expressions: taken straight from them
            // (through the codec, the walk of 150 000 entries' code ranges was most of the
            // writer's `home_units` on the linked sqlite program).
            Ref::LocList(h) => {
                let found = self.found.0.get_mut();
                found.extend(m.loclists.get(h).entries.iter().map(|e| Ref::Expr(e.expr)));
                return found;
            }
            Ref::Macro(h) => m.macros.get(h).write(w),
            Ref::Import(h) => m.imports.get(h).write(w),
            Ref::Label(h) => m.labels.get(h).write(w),
            Ref::CallSite(h) => m.call_sites.get(h).write(w),
            Ref::Property(h) => m.properties.get(h).write(w),
            Ref::EntryPoint(h) => m.entry_points.get(h).write(w),
            Ref::Cie(h) => m.cies.get(h).write(w),
            Ref::Fde(h) => m.fdes.get(h).write(w),
        }
        self.found.0.get_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::text::{self, for_each_entity, Namer, RecordDyn};
    use super::{Ref, RefWalker};

    /// The refs-only walk (values without references skipped, buffers reused from entity to
    /// entity) names the references a full print of each corpus entity names, in its order.
    #[test]
    fn refs_only_walk_names_what_a_print_names() {
        struct Names(std::cell::RefCell<Vec<Ref>>);
        impl Namer for Names {
            fn name(&self, r: Ref, out: &mut String) {
                self.0.borrow_mut().push(r);
                text::ShortNames.name(r, out);
            }
        }
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/ir");
        let mut named = 0;
        for entry in std::fs::read_dir(&dir).expect("corpus/ir") {
            let path = entry.expect("a corpus entry").path();
            if path.extension().is_none_or(|e| e != "dwir") {
                continue;
            }
            let src = std::fs::read_to_string(&path).expect("a readable corpus file");
            let m = text::parse(&src, "corpus").expect("a corpus module");
            let opts = text::PrintOptions::default();
            let mut walker = RefWalker::default();
            let mut check = |r: Ref, e: &dyn RecordDyn| {
                let names = Names(Default::default());
                let mut out = String::new();
                e.write_dyn(&mut text::ValueWriter::new(&mut out, &names, opts));
                let printed = names.0.into_inner();
                assert_eq!(walker.refs(&m, r, opts), &printed[..], "{r:?} in {path:?}");
                named += printed.len();
            };
            for_each_entity!(m, check);
        }
        assert!(named > 1000, "only {named} references in the corpus");
    }
}
