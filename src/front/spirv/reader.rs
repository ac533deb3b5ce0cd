//! The reader's state (`Ctx`): the module read, its index (strings, constants, debug
//! instructions by id), the IR being filled and where each entity came from. A leaf: the passes
//! (`mod.rs`) and the entity readers (`types`, `scopes`, `expr`, `code`) take a `Ctx`.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::operands::Dec;
use crate::diag::{Diagnostics, LossKind};
use crate::ir::{self, EntityKind, File, Handle, Ref, Source, SourceFormat};
use crate::spirv::binary;
use crate::spirv::{IdSet, NormalForm};

/// Which table a code-anchored row sits in (for error messages about rows).
#[derive(Clone, Copy)]
pub(super) enum Row {
    Line,
    Scope,
    Event,
}

pub(crate) struct Ctx<'a> {
    pub(super) m: &'a binary::Module<'a>,
    pub(super) nf: &'a NormalForm,
    pub(super) strings: HashMap<u32, String>,
    /// Integer (and boolean) constants by id.
    pub(super) consts: HashMap<u32, i128>,
    pub(super) int_types: HashMap<u32, (u32, bool)>,
    pub(super) voids: HashSet<u32>,
    /// Result ids of every other instruction (the code), to tell code ids from dangling ones.
    pub(super) defined: IdSet,
    /// Every debug instruction of a known opcode, with its instruction index, in module order.
    pub(super) decs: Vec<(usize, Dec<'a>)>,
    /// Debug result id → index into `decs`.
    pub(super) by_id: HashMap<u32, usize>,
    /// Result ids of debug instructions with an opcode dwarv does not know.
    pub(super) unknown_ids: HashSet<u32>,
    /// The IR entity each debug result id became.
    pub(super) refs: HashMap<u32, Ref>,
    /// NonSemantic forward declarations completed later: fwd id → the full composite's id.
    pub(super) aliases: std::collections::HashMap<u32, u32>,
    /// Files named by an OpString (OpLine, 0.99 Source operands), by string id.
    pub(super) string_files: HashMap<u32, Handle<File>>,
    /// The joined DebugSource text of each file (index = file handle), before interning.
    pub(super) file_texts: Vec<Option<String>>,
    /// DebugFunctionDefinition links (function scope, OpFunction id), applied at the end.
    pub(super) definitions: Vec<(Handle<ir::Scope>, u32)>,
    /// OpSource's language, for sets without a Language operand.
    pub(super) source_language: Option<u32>,
    pub(super) out: ir::Module,
    pub(super) diag: Diagnostics,
    /// The instruction each entity came from (word offset, id), for error messages.
    pub(super) origin: HashMap<Ref, (usize, u32)>,
    pub(super) rows: [Vec<(usize, Option<u32>)>; 3],
}

impl<'a> Ctx<'a> {
    pub(super) fn new(m: &'a binary::Module<'a>, nf: &'a NormalForm) -> Self {
        let mut out = ir::Module {
            source: Source {
                format: SourceFormat::Spirv,
                flavour: nf.imports.first().map(|d| d.name.clone()),
            },
            ..Default::default()
        };
        out.info.address_size = m.address_size();
        Ctx {
            m,
            nf,
            strings: HashMap::default(),
            consts: HashMap::default(),
            int_types: HashMap::default(),
            voids: HashSet::default(),
            defined: IdSet::new(m),
            decs: Vec::new(),
            by_id: HashMap::default(),
            unknown_ids: HashSet::default(),
            refs: HashMap::default(),
            aliases: std::collections::HashMap::new(),
            string_files: HashMap::default(),
            file_texts: Vec::new(),
            definitions: Vec::new(),
            source_language: None,
            out,
            diag: Diagnostics::default(),
            origin: HashMap::default(),
            rows: Default::default(),
        }
    }

    /// The instruction behind a verifier subject (`t3 (member …)`, `line 4`).
    pub(super) fn place_of(&self, subject: &str) -> (usize, Option<u32>) {
        let mut words = subject.split_whitespace();
        let head = words.next().unwrap_or("");
        let row = match head {
            "line" => Some(Row::Line),
            "scope" => Some(Row::Scope),
            "event" => Some(Row::Event),
            _ => None,
        };
        if let Some(row) = row {
            let n: usize = words.next().and_then(|w| w.parse().ok()).unwrap_or(1);
            let rows = &self.rows[row as usize];
            return rows
                .get(n.saturating_sub(1))
                .map_or((0, None), |(o, id)| (*o, *id));
        }
        let split = head.find(|c: char| c.is_ascii_digit()).unwrap_or(0);
        let (prefix, index) = head.split_at(split);
        let r = EntityKind::from_prefix(prefix)
            .zip(index.parse::<u32>().ok())
            .map(|(k, i)| Ref::from_parts(k, i));
        r.and_then(|r| self.origin.get(&r))
            .map_or((0, None), |(o, id)| (*o, Some(*id)))
    }

    pub(super) fn note_row(&mut self, row: Row, offset: usize, id: Option<u32>) {
        self.rows[row as usize].push((offset, id));
    }

    pub(super) fn loss(&mut self, kind: LossKind, d: &Dec<'_>, message: impl Into<String>) {
        self.diag
            .push(kind, format!("word {} (%{})", d.offset, d.id), message);
    }
}
