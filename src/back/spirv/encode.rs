//! Operands by name → words, per the target set's [`Layout`]: numbers as literal words or interned
//! `OpConstant`s, strings as interned `OpString`s, absent references as one `DebugInfoNone`.

use rspirv::spirv::Op;

use crate::spirv::binary::{first_word, insn, string_words};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::spec::spirv::{Flavour, Layout, OperandWords, Q};
use crate::spec::spirv_names::{instruction, InsnName, OperandName};

/// The most words one instruction may have.
pub const MAX_WORDS: usize = 0xffff;
/// The most bytes (NUL excluded) a string operand may have in an instruction of `fixed` other words.
pub fn max_string_bytes(fixed: usize) -> usize {
    (MAX_WORDS - fixed) * 4 - 1
}

/// An operand value, before the set decides how to encode it.
#[derive(Clone, Debug)]
pub enum V {
    Str(String),
    Num(u32),
    Bool(bool),
    Id(u32),
    None,
    /// An optional operand left out.
    Absent,
    List(Vec<V>),
    /// Enumerator (value, name) pairs.
    Pairs(Vec<(u32, String)>),
}

/// Ids of core types and constants the debug instructions need, interned.
#[derive(Default)]
pub struct Interned {
    pub void: Option<u32>,
    pub uint: Option<u32>,
    pub ulong: Option<u32>,
    /// Whether an `OpTypeInt 64 0` may be added (Int64 is declared, or will be: standalone).
    pub int64: bool,
    /// An `OpTypeInt 64 0` was added (a standalone module then declares Int64).
    pub ulong_added: bool,
    pub consts64: HashMap<u64, u32>,
    pub bool_: Option<u32>,
    pub strings: HashMap<String, u32>,
    pub consts: HashMap<u32, u32>,
    pub bools: [Option<u32>; 2],
    pub undef: Option<u32>,
}

/// The module being written: id allocation and the sections debug info adds.
pub struct Emitter {
    pub flavour: Flavour,
    pub bound: u32,
    pub import: u32,
    pub interned: Interned,
    /// OpStrings (debug section 7a).
    pub strings: Vec<u32>,
    /// Types and constants debug info needs.
    pub types: Vec<u32>,
    /// Module-level debug instructions.
    pub debug: Vec<u32>,
    /// The result id the next debug instruction takes (reserved earlier), if any.
    pub preset: Option<u32>,
    /// Instructions whose operand list had to be cut to the word-count limit.
    pub cut: u32,
    /// Strings cut at an embedded NUL.
    pub nul_cut: u32,
    /// A DebugModuleINTEL was written: the module needs SPV_INTEL_debug_module.
    pub intel_module: bool,
    /// Instructions may refer forward (`Encoding::forward_refs`), and one did: the module needs
    /// SPV_KHR_relaxed_extended_instruction.
    pub forward_refs: bool,
    pub forward_refs_used: bool,
    /// Ids given out for instructions not written yet (`forward_refs`): an instruction that
    /// names one is an `OpExtInstWithForwardRefsKHR`.
    pub pending: HashSet<u32>,
    none: Option<u32>,
    /// Ids at or above the bound the base module may use: never allocated.
    taken: Vec<u32>,
    taken_at: usize,
    /// Keys of argument names met so far (`arg_key`).
    arg_keys: HashMap<(usize, usize), Option<Key>>,
}

/// Operand names compared without case, spaces, punctuation and the grammars' spelling slips.
#[cfg(test)]
fn norm(name: &str) -> String {
    let s: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase();
    match s.as_str() {
        "paramtertypes" => "parametertypes".into(),
        "literalflags" => "flags".into(),
        _ => s,
    }
}

/// The bytes of a name `norm` keeps (ASCII letters and digits, lowercased), without allocating.
fn folded(name: &str) -> impl Iterator<Item = u8> + '_ {
    name.bytes()
        .filter(u8::is_ascii_alphanumeric)
        .map(|b| b.to_ascii_lowercase())
}

/// The spelling slip a name folds to, as `norm` corrects it.
fn slip(name: &str) -> Option<&'static str> {
    if folded(name).eq("paramtertypes".bytes()) {
        Some("parametertypes")
    } else if folded(name).eq("literalflags".bytes()) {
        Some("flags")
    } else {
        None
    }
}

/// `norm(name)` in a fixed buffer, for names that fit (operand names do: the longest is about 30
/// bytes); `None` for longer ones, which are compared with [`same_name`].
#[derive(Clone, Copy)]
struct Key {
    bytes: [u8; 48],
    len: u8,
}

impl Key {
    fn of(name: &str) -> Option<Key> {
        let mut k = Key {
            bytes: [0; 48],
            len: 0,
        };
        for b in folded(name) {
            *k.bytes.get_mut(usize::from(k.len))? = b;
            k.len += 1;
        }
        let fixed: Option<&[u8]> = match k.as_bytes() {
            b"paramtertypes" => Some(b"parametertypes"),
            b"literalflags" => Some(b"flags"),
            _ => None,
        };
        if let Some(f) = fixed {
            k.bytes[..f.len()].copy_from_slice(f);
            k.len = f.len() as u8;
        }
        Some(k)
    }

    fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

/// The layout a set writes an instruction with (`Flavour::layout_by_name`) and the keys of its
/// operand names, found by set and instruction name in one table built once. (The grammar's
/// layouts are constants, whose addresses differ from one use to the next: they cannot key it.)
fn layout_keys(
    flavour: Flavour,
    name: &'static str,
) -> Option<&'static (&'static Layout, Vec<Option<Key>>)> {
    use std::sync::OnceLock;
    type Table = HashMap<(Flavour, &'static str), (&'static Layout, Vec<Option<Key>>)>;
    static TABLE: OnceLock<Table> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = Table::default();
        for (f, _, _) in crate::spec::spirv::FLAVOURS {
            for l in f.layouts().iter().filter_map(|l| f.layout_by_name(l.name)) {
                let keys = || (l, l.operands.iter().map(|o| Key::of(o.name)).collect());
                t.entry((f, l.name)).or_insert_with(keys);
            }
        }
        t
    });
    table.get(&(flavour, name))
}

/// `norm(a) == norm(b)` for names whose keys are known (`None`: too long for a [`Key`]).
fn same_key(a: &str, ka: Option<&Key>, b: &str, kb: Option<&Key>) -> bool {
    match (ka, kb) {
        (Some(x), Some(y)) => x.as_bytes() == y.as_bytes(),
        _ => same_name(a, b),
    }
}

/// `norm(a) == norm(b)`, without allocating.
fn same_name(a: &str, b: &str) -> bool {
    match (slip(a), slip(b)) {
        (Some(x), Some(y)) => x == y,
        (Some(x), None) => x.bytes().eq(folded(b)),
        (None, Some(y)) => folded(a).eq(y.bytes()),
        (None, None) => folded(a).eq(folded(b)),
    }
}

impl Emitter {
    pub fn new(flavour: Flavour, bound: u32, interned: Interned, taken: Vec<u32>) -> Emitter {
        let mut e = Emitter {
            flavour,
            bound,
            import: 0,
            interned,
            strings: Vec::new(),
            types: Vec::new(),
            debug: Vec::new(),
            preset: None,
            cut: 0,
            nul_cut: 0,
            intel_module: false,
            forward_refs: false,
            forward_refs_used: false,
            pending: HashSet::default(),
            none: None,
            taken,
            taken_at: 0,
            arg_keys: HashMap::default(),
        };
        e.import = e.id();
        e
    }

    /// A fresh id. At the end of the id space it keeps returning the last one; the writer
    /// refuses such a module (see `exhausted`).
    pub fn id(&mut self) -> u32 {
        // Skip the ids the base module may already use (`NormalForm::taken`; sorted, and the
        // bound only grows, so a cursor suffices).
        while let Some(&t) = self.taken.get(self.taken_at) {
            if t > self.bound {
                break;
            }
            if t == self.bound {
                self.bound = self.bound.saturating_add(1);
            }
            self.taken_at += 1;
        }
        let id = self.bound;
        self.bound = self.bound.saturating_add(1);
        id
    }

    /// Whether the module ran out of ids (the bound must stay below 2^32).
    pub fn exhausted(&self) -> bool {
        self.bound == u32::MAX
    }

    pub fn void(&mut self) -> u32 {
        if let Some(v) = self.interned.void {
            return v;
        }
        let id = self.id();
        self.types.extend(insn(Op::TypeVoid, &[id]));
        self.interned.void = Some(id);
        id
    }

    fn uint(&mut self) -> u32 {
        if let Some(v) = self.interned.uint {
            return v;
        }
        let id = self.id();
        self.types.extend(insn(Op::TypeInt, &[id, 32, 0]));
        self.interned.uint = Some(id);
        id
    }

    pub fn constant(&mut self, n: u32) -> u32 {
        if let Some(id) = self.interned.consts.get(&n) {
            return *id;
        }
        let ty = self.uint();
        let id = self.id();
        self.types.extend(insn(Op::Constant, &[ty, id, n]));
        self.interned.consts.insert(n, id);
        id
    }

    /// A 64-bit unsigned OpConstant of `v` (a 32-bit one when it fits); `None` when the module
    /// may have no 64-bit integer type.
    pub fn constant64(&mut self, v: u64) -> Option<u32> {
        if let Ok(n) = u32::try_from(v) {
            return Some(self.constant(n));
        }
        if let Some(id) = self.interned.consts64.get(&v) {
            return Some(*id);
        }
        let ty = match self.interned.ulong {
            Some(t) => t,
            None if self.interned.int64 => {
                let t = self.id();
                self.types.extend(insn(Op::TypeInt, &[t, 64, 0]));
                self.interned.ulong = Some(t);
                self.interned.ulong_added = true;
                t
            }
            None => return None,
        };
        let id = self.id();
        self.types
            .extend(insn(Op::Constant, &[ty, id, v as u32, (v >> 32) as u32]));
        self.interned.consts64.insert(v, id);
        Some(id)
    }

    /// An OpUndef of the 32-bit integer type: the value of a DebugValue whose value is undefined.
    pub fn undef(&mut self) -> u32 {
        if let Some(id) = self.interned.undef {
            return id;
        }
        let ty = self.uint();
        let id = self.id();
        self.types.extend(insn(Op::Undef, &[ty, id]));
        self.interned.undef = Some(id);
        id
    }

    fn boolean(&mut self, b: bool) -> u32 {
        if let Some(id) = self.interned.bools[usize::from(b)] {
            return id;
        }
        let ty = match self.interned.bool_ {
            Some(t) => t,
            None => {
                let t = self.id();
                self.types.extend(insn(Op::TypeBool, &[t]));
                self.interned.bool_ = Some(t);
                t
            }
        };
        let id = self.id();
        let opcode = if b {
            Op::ConstantTrue
        } else {
            Op::ConstantFalse
        };
        self.types.extend(insn(opcode, &[ty, id]));
        self.interned.bools[usize::from(b)] = Some(id);
        id
    }

    /// The OpString of `s` (callers keep `s` within [`max_string_bytes`]).
    pub fn string(&mut self, s: &str) -> u32 {
        // A literal string ends at its first NUL.
        let s = match s.find('\0') {
            Some(n) => {
                self.nul_cut += 1;
                &s[..n]
            }
            None => s,
        };
        if let Some(id) = self.interned.strings.get(s) {
            return *id;
        }
        let id = self.id();
        let mut ops = vec![id];
        ops.extend(string_words(s));
        self.strings.extend(insn(Op::String, &ops));
        self.interned.strings.insert(s.to_string(), id);
        id
    }

    /// The module's one DebugInfoNone.
    pub fn none(&mut self) -> u32 {
        if let Some(n) = self.none {
            return n;
        }
        let id = self
            .ext_words(instruction::DEBUG_INFO_NONE, &[])
            .map(|(id, w)| {
                self.debug.extend(w);
                id
            });
        let id = id.unwrap_or(0);
        self.none = Some(id);
        id
    }

    /// Appends the words of an operand value to `out`.
    fn word(&mut self, w: OperandWords, v: &V, out: &mut Vec<u32>) {
        match (w, v) {
            (_, V::Absent) => {}
            (_, V::List(vs)) => {
                for v in vs {
                    self.word(w, v, out);
                }
            }
            (OperandWords::Lit, V::Num(n)) => out.push(*n),
            (OperandWords::Lit, V::Bool(b)) => out.push(u32::from(*b)),
            (OperandWords::Lit, _) => out.push(0),
            (_, V::Str(s)) => out.push(self.string(s)),
            (_, V::Num(n)) => out.push(self.constant(*n)),
            (_, V::Bool(b)) => out.push(self.boolean(*b)),
            (_, V::Id(id)) => out.push(*id),
            (_, V::None) => out.push(self.none()),
            (_, V::Pairs(ps)) => {
                // Every grammar says PairIdRefIdRef: the value is an OpConstant in every set
                // (spirv-val checks it; llvm-spirv writes and reads it so).
                for (n, name) in ps {
                    out.push(self.constant(*n));
                    out.push(self.string(name));
                }
            }
        }
    }

    /// Encodes a debug instruction from named operands; `None` if the set has no such instruction.
    /// Missing operands are DebugInfoNone (ids) or 0 (literals); optional ones are left out.
    pub fn ext_words(
        &mut self,
        name: InsnName,
        args: &[(OperandName, V)],
    ) -> Option<(u32, Vec<u32>)> {
        let (layout, keys) = layout_keys(self.flavour, name.0)?;
        let id = match self.preset.take() {
            Some(id) => {
                self.pending.remove(&id);
                id
            }
            None => self.id(),
        };
        let void = self.void();
        // Word 0 (count and opcode) is filled in once the operands are known.
        let mut words = Vec::with_capacity(5 + layout.operands.len());
        words.extend_from_slice(&[0, void, id, self.import, layout.opcode]);
        // The arguments' keys, once per instruction (on the stack for the usual few arguments).
        const FEW: usize = 16;
        let mut few = [None; FEW];
        let mut many = Vec::new();
        let arg_keys: &[Option<Key>] = if args.len() <= FEW {
            for (k, (n, _)) in few.iter_mut().zip(args) {
                *k = self.arg_key(n.0);
            }
            &few[..args.len()]
        } else {
            many.extend(args.iter().map(|(n, _)| self.arg_key(n.0)));
            &many
        };
        for (o, &key) in layout.operands.iter().zip(keys) {
            let v = args
                .iter()
                .zip(arg_keys)
                .find(|((n, _), k)| same_key(n.0, k.as_ref(), o.name, key.as_ref()))
                .map(|((_, v), _)| v);
            let v = match (v, o.q) {
                (Some(v), _) => v,
                (None, Q::One)
                    if key.map_or_else(
                        || same_name(o.name, "flags"),
                        |k| k.as_bytes() == b"flags",
                    ) =>
                {
                    &V::Num(0)
                }
                (None, Q::One) => &V::None,
                (None, _) => &V::Absent,
            };
            self.word(o.w, v, &mut words);
        }
        if words.len() > MAX_WORDS {
            // At most MAX_WORDS - 1 operand words after word 0.
            words.truncate(MAX_WORDS);
            self.cut += 1;
        }
        let forward = !self.pending.is_empty() && args.iter().any(|(_, v)| self.names_pending(v));
        self.forward_refs_used |= forward;
        let opcode = match forward {
            true => Op::ExtInstWithForwardRefsKHR,
            false => Op::ExtInst,
        };
        words[0] = first_word(words.len(), opcode);
        Some((id, words))
    }

    /// Whether an operand names an instruction not written yet.
    fn names_pending(&self, v: &V) -> bool {
        match v {
            V::Id(id) => self.pending.contains(id),
            V::List(l) => l.iter().any(|v| self.names_pending(v)),
            _ => false,
        }
    }

    /// The key of an argument's name, computed once per name: argument names are the
    /// `'static` constants of `spec::spirv_names` (their address and length identify them).
    fn arg_key(&mut self, name: &'static str) -> Option<Key> {
        *self
            .arg_keys
            .entry((name.as_ptr() as usize, name.len()))
            .or_insert_with(|| Key::of(name))
    }

    /// Encodes a module-level debug instruction into the debug section.
    pub fn ext(&mut self, name: InsnName, args: &[(OperandName, V)]) -> Option<u32> {
        let (id, w) = self.ext_words(name, args)?;
        self.debug.extend(w);
        Some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::spirv_names::operand;

    fn ops_of(words: &[u32]) -> &[u32] {
        // OpExtInst: word 0, result type, result id, set, opcode, operands…
        &words[5..]
    }

    #[test]
    fn numbers_are_literals_or_interned_constants_per_set() {
        let args = [
            (operand::NAME, V::Str("int".into())),
            (operand::SIZE, V::Num(32)),
            (operand::ENCODING, V::Num(4)),
        ];
        let mut ocl = Emitter::new(Flavour::OpenCl100, 1, Interned::default(), Vec::new());
        let (_, w) = ocl.ext_words(instruction::DEBUG_TYPE_BASIC, &args).unwrap();
        let ops = ops_of(&w);
        assert_eq!(ops.len(), 3);
        assert_eq!(ops[2], 4, "Encoding is a literal in OpenCL.100");
        assert_eq!(
            Some(&ops[1]),
            ocl.interned.consts.get(&32),
            "Size is an OpConstant"
        );

        let mut ns = Emitter::new(Flavour::Shader100, 1, Interned::default(), Vec::new());
        let (_, w) = ns.ext_words(instruction::DEBUG_TYPE_BASIC, &args).unwrap();
        let ops = ops_of(&w).to_vec();
        assert_eq!(ops.len(), 4, "NonSemantic adds Flags (0 when not given)");
        assert_eq!(Some(&ops[2]), ns.interned.consts.get(&4));
        assert_eq!(Some(&ops[3]), ns.interned.consts.get(&0));
        // Interned: the same value is the same id.
        let (_, again) = ns.ext_words(instruction::DEBUG_TYPE_BASIC, &args).unwrap();
        assert_eq!(ops_of(&again), &ops[..]);
        assert_eq!(ns.interned.strings.len(), 1);
    }

    #[test]
    fn absent_operands_are_one_debug_info_none_and_optional_ones_are_left_out() {
        let mut e = Emitter::new(Flavour::OpenCl100, 1, Interned::default(), Vec::new());
        let (_, w) = e
            .ext_words(
                instruction::DEBUG_LEXICAL_BLOCK,
                &[(operand::LINE, V::Num(3))],
            )
            .unwrap();
        let ops = ops_of(&w).to_vec();
        assert_eq!(ops.len(), 4, "Name is optional and left out");
        assert_eq!(
            ops[0], ops[3],
            "Source and Parent share the one DebugInfoNone"
        );
        assert_eq!(ops[1], 3);
        assert!(
            e.ext_words(instruction::DEBUG_TYPE_MATRIX, &[]).is_none(),
            "not in OpenCL.100"
        );
    }

    #[test]
    fn same_name_is_norm_equality() {
        let names = [
            "Paramter Types",
            "Parameter Types",
            "parameter-types",
            "Literal Flags",
            "Flags",
            "flags",
            "Local Variable",
            "LocalVariable",
            "Inlined At",
            "Name",
            "Größe",
            "",
            "An Operand Name Far Longer Than Any Key Holds, Really",
            "an operand name far longer than any key holds really",
        ];
        for a in names {
            for b in names {
                assert_eq!(same_name(a, b), norm(a) == norm(b), "{a:?} vs {b:?}");
                let (ka, kb) = (Key::of(a), Key::of(b));
                assert_eq!(
                    same_key(a, ka.as_ref(), b, kb.as_ref()),
                    norm(a) == norm(b),
                    "{a:?} vs {b:?}"
                );
            }
        }
    }

    #[test]
    fn strings_end_at_nul() {
        let mut e = Emitter::new(Flavour::Shader100, 1, Interned::default(), Vec::new());
        let a = e.string("ab\0cd");
        assert_eq!(e.string("ab"), a);
        assert_eq!(e.nul_cut, 1);
    }

    #[test]
    fn new_ids_skip_the_taken_ones() {
        let mut e = Emitter::new(
            Flavour::OpenCl100,
            10,
            Interned::default(),
            vec![11, 12, 14, 40],
        );
        // The import took 10.
        let ids: Vec<u32> = (0..4).map(|_| e.id()).collect();
        assert_eq!(ids, vec![13, 15, 16, 17]);
    }
}
