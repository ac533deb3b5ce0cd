//! The in-place rewrite of a module's debug info into the set it already carries, done on the
//! words without the IR. What such a module needs to pass its consumer is an order in which
//! nothing refers forward and a few repairs of llvm-spirv-14's forms; re-encoding every entity
//! through the IR costs some 15× more (bench/README.md). Everything else keeps its words, its
//! ids and its place, so the code positions (the normal form) do not move and the module reads
//! back as the same IR, but for the ledgered repairs; a module already valid comes back byte for
//! byte.
//!
//! [`rewrite`] takes a module only when it can vouch for the result, and declines otherwise (with
//! the reason): the caller then re-encodes through the IR, whose reader also gives damaged input
//! its error. Pass 1 (`Tables::index`) indexes every id; then, side by side for a large module,
//! pass 2 (`Cx::order_module_section`) writes the module-level section — debug instructions
//! ordered so that none refers forward but where the set allows it (a composite's Members outside
//! NonSemantic), repaired as the IR writer repairs them, every operand checked against its
//! consumer's rules (`kinds`) — while `Tables::check_code` checks the rest as the reader would.
//! The repairs and the reasons to decline are listed in docs/spirv-mapping.md ("In place into
//! the module's own set").

use rustc_hash::FxHashMap as HashMap;

use crate::diag::{Diagnostics, LossKind};
use crate::spec::dwarf::{row, ArgKind, OPS};
use crate::spec::spirv::{
    from_set, Flavour, Layout, Operand, LAST_SOURCE_LANGUAGE, LLVM_SPIRV14_LAYOUTS, Q, W,
};
use crate::spirv::binary::{op, Insn, MAGIC};
use crate::spirv::grammar::{id_layout, id_words, result_id, result_word, IdLayout, IdWord, Rest};

/// Why the module was left to the IR path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Declined(pub &'static str);

/// The rewritten module: `head` (header and module-level section, rewritten; little-endian
/// words), then the input's words from `tail_at` on with `patches` applied (word offset in the
/// input, new word).
pub struct Rewritten {
    pub head: Vec<u32>,
    pub tail_at: usize,
    pub patches: Vec<(usize, u32)>,
    pub diagnostics: Diagnostics,
    pub flavour: Flavour,
}

impl Rewritten {
    /// Writes the whole module, taking the tail from `input` (the bytes given to [`rewrite`]).
    pub fn write_to(&self, input: &[u8], out: &mut dyn std::io::Write) -> std::io::Result<()> {
        out.write_all(bytemuck::cast_slice(&self.head))?;
        let mut at = 4 * self.tail_at;
        for &(word, value) in &self.patches {
            out.write_all(&input[at..4 * word])?;
            out.write_all(&value.to_le_bytes())?;
            at = 4 * word + 4;
        }
        out.write_all(&input[at..])
    }
    /// The output's length in bytes.
    pub fn output_len(&self, input: &[u8]) -> usize {
        4 * self.head.len() + input.len() - 4 * self.tail_at
    }
}

/// The flavour of the one debug set a little-endian module imports, if it imports exactly one.
pub fn own_flavour(bytes: &[u8]) -> Option<Flavour> {
    let mut owned = Vec::new();
    let words = Words::new(bytes, &mut owned).ok()?;
    let mut found = None;
    let mut i = 5;
    while i < words.len {
        let (count, opcode) = words.head(i);
        if count == 0 || i + count > words.len {
            return None;
        }
        match opcode {
            op::EXT_INST_IMPORT => {
                if let Some(f) = words
                    .string(i + 2, i + count)
                    .and_then(Flavour::from_import_name)
                {
                    if found.replace(f).is_some() {
                        return None;
                    }
                }
            }
            // Imports precede every type, constant and function.
            op::TYPE_VOID..=op::FUNCTION => break,
            _ => {}
        }
        i += count;
    }
    found
}

/// Rewrites the module's debug info in place into `flavour`, which must be the set it carries.
pub fn rewrite(bytes: &[u8], flavour: Flavour) -> Result<Rewritten, Declined> {
    let mut owned = Vec::new();
    let words = Words::new(bytes, &mut owned)?;
    let tables = Tables::index(words, flavour)?;
    let write = || {
        let mut cx = Cx {
            t: &tables,
            written: vec![0; tables.def.len().div_ceil(64)],
            empty_string: tables.empty_string,
            new_string: false,
            redirect: Vec::new(),
            patches: Vec::new(),
            diagnostics: Diagnostics::default(),
        };
        cx.order_module_section().map(|head| (head, cx))
    };
    // A large module's code is checked on a second core while its debug info is written.
    let (checked, written) = match bytes.len() >= PARALLEL_FROM {
        true => std::thread::scope(|s| {
            let checks = s.spawn(|| tables.check_code());
            let written = write();
            let checked = checks
                .join()
                .unwrap_or(Err(Declined("the checks of the code failed")));
            (checked, written)
        }),
        false => (tables.check_code(), write()),
    };
    let checked = checked?;
    let (head, mut cx) = written?;
    if cx.new_string && checked.bound_taken {
        return Err(Declined("no id free for an OpString"));
    }
    if !cx.redirect.is_empty() {
        cx.patch_functions(&checked.local_variables)?;
    }
    Ok(Rewritten {
        head,
        tail_at: tables.section_end,
        patches: std::mem::take(&mut cx.patches),
        diagnostics: std::mem::take(&mut cx.diagnostics),
        flavour,
    })
}

/// Modules from this size on are checked and written on two threads.
const PARALLEL_FROM: usize = 1 << 20;

/// The module's words: a view of the input's bytes where they are aligned and the host is
/// little-endian (no copy), else a copy.
#[derive(Clone, Copy)]
struct Words<'a> {
    bytes: &'a [u8],
    words: &'a [u32],
    len: usize,
}

impl<'a> Words<'a> {
    fn new(bytes: &'a [u8], owned: &'a mut Vec<u32>) -> Result<Self, Declined> {
        if bytes.len() % 4 != 0 || bytes.len() < 20 {
            return Err(Declined("not a whole SPIR-V module"));
        }
        let words: &[u32] = match bytemuck::try_cast_slice(bytes) {
            Ok(w) if cfg!(target_endian = "little") => w,
            _ => {
                *owned = bytes
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                owned
            }
        };
        if words[0] != MAGIC {
            return Err(Declined("not a little-endian SPIR-V module"));
        }
        Ok(Words {
            bytes,
            words,
            len: words.len(),
        })
    }
    #[inline]
    fn at(&self, i: usize) -> u32 {
        self.words[i]
    }
    /// (word count, opcode) of the instruction at `i`.
    #[inline]
    fn head(&self, i: usize) -> (usize, u16) {
        let w = self.at(i);
        ((w >> 16) as usize, w as u16)
    }
    /// Whether words `from..to` hold a NUL byte.
    fn terminated(&self, from: usize, to: usize) -> bool {
        self.bytes
            .get(4 * from..4 * to)
            .is_some_and(|raw| raw.contains(&0))
    }
    /// The NUL-terminated string in words `from..to`, if it is UTF-8 and terminated.
    fn string(&self, from: usize, to: usize) -> Option<&'a str> {
        let raw = self.bytes.get(4 * from..4 * to)?;
        let end = raw.iter().position(|&b| b == 0)?;
        std::str::from_utf8(&raw[..end]).ok()
    }
}

const DEBUG_INFO_NONE: u32 = 0;
const TYPE_BASIC: u32 = 2;
const TYPE_POINTER: u32 = 3;
const TYPE_ARRAY: u32 = 5;
const TYPE_VECTOR: u32 = 6;
const TYPEDEF: u32 = 7;
const TYPE_COMPOSITE: u32 = 10;
const SOURCE: u32 = 35;
const COMPILATION_UNIT: u32 = 1;
const IMPORTED_ENTITY: u32 = 34;
const OPERATION: u32 = 30;
const LOCAL_VARIABLE: u32 = 26;
const EXPRESSION: u32 = 31;
/// Debug instructions a function body may hold (the rest are module-level entities).
const IN_FUNCTION: [u32; 9] = [23, 24, 26, 28, 29, 101, 103, 104, 31];
/// Opcodes of the layout's sections up to the strings and sources (an OpString goes after them).
const BEFORE_NAMES: [u16; 13] = [
    op::NOP,
    op::SOURCE_CONTINUED,
    op::SOURCE,
    op::SOURCE_EXTENSION,
    op::STRING,
    op::EXTENSION,
    op::EXT_INST_IMPORT,
    op::MEMORY_MODEL,
    op::ENTRY_POINT,
    op::EXECUTION_MODE,
    op::CAPABILITY,
    331, // OpExecutionModeId
    op::LINE,
];
/// What `Cx::emit` did.
enum Emitted {
    Written(u32),
    /// Nothing: the instruction waits for this id.
    Waits(u32),
}

/// `Cx::kind` values.
const K_UNDEFINED: u8 = 0;
const K_CODE: u8 = 1;
const K_STRING: u8 = 2;
/// An OpConstant of a 32-bit unsigned integer type (what NonSemantic numbers must be).
const K_CONSTANT_U32: u8 = 3;
/// Any other integer or boolean constant (OpConstant of an integer or boolean type,
/// OpConstantTrue/False/Null): what the reader takes for a number.
const K_CONSTANT: u8 = 4;
const K_VOID: u8 = 5;
const K_VARIABLE: u8 = 6;
const K_PARAMETER: u8 = 7;
const K_FUNCTION: u8 = 8;
const K_DEBUG: u8 = 16;
/// Bit of `Cx::kind`: the id is written (pass 2), or defined where nothing waits for it (in a
/// function).
const DONE: u8 = 0x80;
/// The operand index `Tables::ids` gives the name of an enumerator pair (the value has the
/// pair's own index).
const PAIR_NAME: usize = usize::MAX;
/// `Khronos LLVM/SPIR-V Translator` in the header's generator word (high half).
const LLVM_SPIRV_GENERATOR: u32 = 6;

/// Pass 1's index of the module, read only from then on (pass 2 and the checks of the code run
/// side by side on it).
struct Tables<'a> {
    w: Words<'a>,
    flavour: Flavour,
    /// The debug set's import id.
    set: u32,
    generator: u32,
    /// Per id: the word offset of the instruction defining it (0: none).
    def: Vec<u32>,
    /// Per id: what defines it (`K_*`, or `K_DEBUG` + the debug opcode; `DONE` if in a
    /// function): one byte, so that the checks of every operand stay in cache.
    kind: Vec<u8>,
    /// Where the first function starts (the end of the module-level section).
    section_end: usize,
    /// Layouts by opcode (dense).
    layouts: Vec<Option<&'static Layout>>,
    /// Per opcode, per operand: the kinds of id it may be (`kinds::allowed`).
    allowed: Vec<Vec<kinds::Mask>>,
    /// The module's OpTypeVoid (0: none).
    void: u32,
    /// The module's OpString "" (0: none).
    empty_string: u32,
    /// Where the module's OpStrings and OpSources end (word offset).
    strings_end: usize,
}

/// What the checks of the code found (besides a refusal).
struct Checked {
    /// A word that may be an id equals the bound: no new id can be allocated.
    bound_taken: bool,
    /// DebugLocalVariables in functions (word offsets): where references to dropped typedefs
    /// may be (NonSemantic declares local variables in the function).
    local_variables: Vec<u32>,
}

/// Pass 2's state: the module-level section being written.
struct Cx<'t> {
    t: &'t Tables<'t>,
    /// Module-level ids written (a bit per id).
    written: Vec<u64>,
    /// The OpString "" references use: the module's, or a new one (`new_string`) that goes at
    /// `strings_end`, the bound growing by one.
    empty_string: u32,
    new_string: bool,
    /// A dropped typedef's id → its base (0: not redirected); empty until one is dropped.
    redirect: Vec<u32>,
    patches: Vec<(usize, u32)>,
    diagnostics: Diagnostics,
}

impl<'t> std::ops::Deref for Cx<'t> {
    type Target = Tables<'t>;
    fn deref(&self) -> &Tables<'t> {
        self.t
    }
}

impl<'a> Tables<'a> {
    /// Pass 1: every instruction's counts and result id, the debug import, the sections.
    fn index(w: Words<'a>, flavour: Flavour) -> Result<Self, Declined> {
        let bound = w.at(3) as usize;
        if bound > w.len + 1 {
            return Err(Declined("id bound beyond the module's length"));
        }
        let mut layouts = vec![None; 128];
        let own_variants: &[Layout] = match flavour {
            // llvm-spirv-14's own variants, where it departs from the grammar.
            Flavour::SpirvDebug => &LLVM_SPIRV14_LAYOUTS,
            _ => &[],
        };
        for l in flavour.layouts().iter().chain(own_variants) {
            if let Some(slot) = layouts.get_mut(l.opcode as usize) {
                *slot = Some(l);
            }
        }
        let allowed = layouts
            .iter()
            .map(|l| match l {
                Some(l) => l
                    .operands
                    .iter()
                    .map(|o| kinds::allowed(flavour, l, o))
                    .collect(),
                None => Vec::new(),
            })
            .collect();
        let mut cx = Tables {
            w,
            flavour,
            allowed,
            set: 0,
            generator: w.at(2),
            def: vec![0; bound],
            kind: vec![K_UNDEFINED; bound],
            section_end: w.len,
            layouts,
            void: 0,
            empty_string: 0,
            strings_end: 0,
        };
        let mut seen_ext_inst = false;
        let mut i = 5;
        while i < w.len {
            let (count, opcode) = w.head(i);
            if count == 0 || i + count > w.len {
                return Err(Declined("damaged word count"));
            }
            if cx.strings_end == 0 && !BEFORE_NAMES.contains(&opcode) {
                cx.strings_end = i;
            }
            // The reader decodes these instructions' operands: too few of them, or a string that
            // runs past its instruction, is damage.
            let least = match opcode {
                op::EXT_INST_IMPORT | op::STRING => 3,
                op::CONSTANT | op::CONSTANT_TRUE | op::CONSTANT_FALSE | op::CONSTANT_NULL => 3,
                op::TYPE_INT | op::EXT_INST => 4,
                op::TYPE_VOID | op::TYPE_BOOL | op::SOURCE => 2,
                _ => 1,
            };
            if count < least {
                return Err(Declined("an instruction without the operands it needs"));
            }
            if matches!(opcode, op::STRING | op::EXT_INST_IMPORT) && !w.terminated(i + 2, i + count)
            {
                return Err(Declined("a string without its NUL"));
            }
            if opcode == op::EXT_INST && cx.set != 0 && w.at(i + 3) == cx.set && count < 5 {
                return Err(Declined("a debug instruction without its opcode"));
            }
            match opcode {
                op::EXT_INST_IMPORT if count >= 3 => {
                    if let Some(f) = w
                        .string(i + 2, i + count)
                        .and_then(Flavour::from_import_name)
                    {
                        if cx.set != 0 {
                            return Err(Declined("more than one debug set"));
                        }
                        // (The reader would take the set's instructions before it too.)
                        if seen_ext_inst {
                            return Err(Declined("an OpExtInst before the debug import"));
                        }
                        if f != flavour {
                            return Err(Declined("another debug set than the one asked for"));
                        }
                        cx.set = w.at(i + 1);
                    }
                }
                op::EXT_INST => seen_ext_inst = true,
                op::FUNCTION if cx.section_end == w.len => cx.section_end = i,
                op::TYPE_VOID if count == 2 && cx.void == 0 => cx.void = w.at(i + 1),
                op::STRING if count == 3 && w.at(i + 2) == 0 && cx.empty_string == 0 => {
                    cx.empty_string = w.at(i + 1);
                }
                _ => {}
            }
            let at = result_word(opcode);
            if at != 0 {
                let id = if at < count { w.at(i + at) } else { 0 };
                match cx.def.get_mut(id as usize) {
                    Some(d) if *d == 0 && id != 0 => *d = i as u32,
                    _ => return Err(Declined("an id out of bound or defined twice")),
                }
                cx.kind[id as usize] = match opcode {
                    op::STRING => K_STRING,
                    op::EXT_INST if count >= 5 && w.at(i + 3) == cx.set => {
                        K_DEBUG.saturating_add(w.at(i + 4).min(255) as u8)
                    }
                    op::CONSTANT => match cx.int_type(w.at(i + 1)) {
                        Some((32, 0)) if count == 4 => K_CONSTANT_U32,
                        Some((width, _)) if count < 4 || (width > 32 && count < 5) => {
                            return Err(Declined("an integer constant without its value"))
                        }
                        Some(_) => K_CONSTANT,
                        None => K_CODE,
                    },
                    op::CONSTANT_TRUE | op::CONSTANT_FALSE | op::CONSTANT_NULL => K_CONSTANT,
                    op::TYPE_VOID => K_VOID,
                    op::VARIABLE => K_VARIABLE,
                    op::FUNCTION_PARAMETER => K_PARAMETER,
                    op::FUNCTION => K_FUNCTION,
                    _ => K_CODE,
                };
                if i >= cx.section_end {
                    cx.kind[id as usize] |= DONE;
                }
            }
            i += count;
        }
        if cx.set == 0 {
            return Err(Declined("no debug set"));
        }
        Ok(cx)
    }

    /// The checks of everything but the module-level debug instructions (which pass 2 checks
    /// as it writes them): the ids every code instruction uses, the result type of every debug
    /// instruction, every OpLine's file, the debug instructions in functions.
    fn check_code(&self) -> Result<Checked, Declined> {
        let mut checked = Checked {
            bound_taken: false,
            local_variables: Vec::new(),
        };
        let w = &self.w;
        let bound = w.at(3);
        let mut i = 5;
        while i < w.len {
            let (count, opcode) = w.head(i);
            let debug = opcode == op::EXT_INST && count >= 5 && w.at(i + 3) == self.set;
            if debug {
                // Its operands are checked by the set's layout; its result type here.
                if !(1..bound).contains(&w.at(i + 1)) {
                    return Err(Declined("an id out of bound in the code"));
                }
                if i >= self.section_end {
                    // The one in-function instruction that may name a (dropped) typedef.
                    if w.at(i + 4) == LOCAL_VARIABLE {
                        checked.local_variables.push(i as u32);
                    }
                    self.check_in_function(i)?;
                }
            } else {
                self.check_code_ids(i, count, opcode, &mut checked.bound_taken)?;
                if opcode == op::LINE && (count != 4 || self.kind_of(w.at(i + 1)) != K_STRING) {
                    return Err(Declined("an OpLine without an OpString file"));
                }
            }
            i += count;
        }
        Ok(checked)
    }

    /// The ids a code instruction uses are below the bound (as the reader checks, by the
    /// grammar: `spirv::grammar::id_words`); a word that may be an id and equals the bound keeps
    /// the bound from being allocated.
    fn check_code_ids(
        &self,
        at: usize,
        count: usize,
        opcode: u16,
        bound_taken: &mut bool,
    ) -> Result<(), Declined> {
        let bound = self.def.len() as u32;
        let out_of_bound = |id: u32| id == 0 || id >= bound;
        let operands = &self.w.words[at + 1..at + count];
        let mut walk = false;
        match id_layout(opcode) {
            IdLayout::Simple { uses, fixed, rest } => {
                let fixed = usize::from(fixed).min(operands.len());
                let mut bits = if fixed >= 32 {
                    uses
                } else {
                    uses & ((1 << fixed) - 1)
                };
                while bits != 0 {
                    if out_of_bound(operands[bits.trailing_zeros() as usize]) {
                        return Err(Declined("an id out of bound in the code"));
                    }
                    bits &= bits - 1;
                }
                let tail = &operands[fixed..];
                match rest {
                    Rest::Ids if tail.iter().any(|&id| out_of_bound(id)) => {
                        return Err(Declined("an id out of bound in the code"));
                    }
                    Rest::Ids | Rest::Literals => {}
                    Rest::Beyond => *bound_taken |= tail.contains(&bound),
                    // Volatile, Aligned (a literal), Nontemporal, NonPrivatePointer: no id.
                    Rest::MemoryAccess => {
                        walk = tail.first().is_some_and(|m| m & !0x27 != 0);
                        // (Literals after it count as possible ids, as `id_words` has it.)
                        *bound_taken |= tail.contains(&bound);
                    }
                    // UniformId, AlignmentId, MaxByteOffsetId, CounterBuffer take ids; a
                    // decoration beyond those `id_words` knows may.
                    Rest::Decoration => {
                        walk = tail
                            .first()
                            .is_some_and(|&d| matches!(d, 27 | 46 | 47 | 5634) || d >= 5000);
                        *bound_taken |= tail.contains(&bound);
                    }
                }
            }
            IdLayout::Complex => walk = true,
        }
        if walk {
            let mut bad = false;
            let insn = Insn {
                offset: at,
                words: &self.w.words[at..at + count],
            };
            id_words(&insn, |id, role| match role {
                IdWord::Use => bad |= out_of_bound(id),
                IdWord::Maybe => *bound_taken |= id == bound,
                IdWord::Result => {}
            });
            if bad {
                return Err(Declined("an id out of bound in the code"));
            }
        }
        Ok(())
    }

    /// (width, signedness) of an OpTypeInt, (1, 0) of an OpTypeBool; `None` for other ids.
    fn int_type(&self, id: u32) -> Option<(u32, u32)> {
        let at = *self.def.get(id as usize).filter(|&&at| at != 0)? as usize;
        match self.w.head(at) {
            (4, op::TYPE_INT) => Some((self.w.at(at + 2), self.w.at(at + 3))),
            (2, op::TYPE_BOOL) => Some((1, 0)),
            _ => None,
        }
    }

    fn kind_of(&self, id: u32) -> u8 {
        self.kind
            .get(id as usize)
            .map_or(K_UNDEFINED, |k| k & !DONE)
    }

    /// A debug instruction in a function: one the set allows there, its operand counts and
    /// kinds.
    fn check_in_function(&self, at: usize) -> Result<(), Declined> {
        if !IN_FUNCTION.contains(&self.w.at(at + 4)) {
            return Err(Declined("a debug entity inside a function"));
        }
        let opcode = self.w.at(at + 4);
        let mut wrong = false;
        self.ids(at, |k, _, i| {
            let id = self.w.at(i);
            wrong |= !self.allows(opcode, k, self.kind_of(id));
        })?;
        match wrong {
            true => Err(Declined("an operand of a kind its consumer rejects")),
            false => Ok(()),
        }
    }

    /// Whether operand `k` of debug instruction `opcode` may be an id of `kind`
    /// (`kinds::allowed`, the consumers' rules).
    fn allows(&self, opcode: u32, k: usize, kind: u8) -> bool {
        if k == PAIR_NAME {
            return kind == K_STRING;
        }
        match self.allowed.get(opcode as usize).and_then(|ops| ops.get(k)) {
            Some(mask) => mask[usize::from(kind >> 6)] >> (kind & 63) & 1 == 1,
            None => true,
        }
    }

    /// The debug opcode of the instruction defining `id`, if it is one of the set.
    fn debug_opcode(&self, id: u32) -> Option<u32> {
        let k = self.kind_of(id);
        (k >= K_DEBUG).then(|| u32::from(k - K_DEBUG))
    }

    /// The value of an integer OpConstant of at most 64 bits, if `id` is one.
    fn constant(&self, id: u32) -> Option<u64> {
        let at = *self.def.get(id as usize).filter(|&&at| at != 0)? as usize;
        let (count, opcode) = self.w.head(at);
        match (opcode, count) {
            (op::CONSTANT, 4) => Some(u64::from(self.w.at(at + 3))),
            (op::CONSTANT, 5) => {
                Some(u64::from(self.w.at(at + 3)) | u64::from(self.w.at(at + 4)) << 32)
            }
            _ => None,
        }
    }

    /// Calls `f(operand index, operand, word offset)` for every id word of the debug
    /// instruction at `at` (an enumerator pair's name with index `PAIR_NAME`); declines when its
    /// operand count does not fit its layout.
    fn ids(&self, at: usize, mut f: impl FnMut(usize, &Operand, usize)) -> Result<(), Declined> {
        let (count, _) = self.w.head(at);
        let layout = self
            .layouts
            .get(self.w.at(at + 4) as usize)
            .copied()
            .flatten()
            .ok_or(Declined("a debug opcode the set does not define"))?;
        let (mut i, end) = (at + 5, at + count);
        let literal_numbers = self.flavour.literal_numbers();
        for (k, o) in layout.operands.iter().enumerate() {
            let width = if o.w == W::Pair { 2 } else { 1 };
            let times = match o.q {
                Q::One => 1,
                Q::Opt => usize::from(i < end),
                Q::Many => (end - i) / width,
            };
            if i + times * width > end {
                return Err(Declined("fewer operands than the layout has"));
            }
            for _ in 0..times {
                match o.w {
                    W::Id => f(k, o, i),
                    W::Lit => {}
                    W::Pair => {
                        if !literal_numbers {
                            f(k, o, i);
                        }
                        f(PAIR_NAME, o, i + 1);
                    }
                }
                i += width;
            }
        }
        if i != end {
            return Err(Declined("more operands than the layout has"));
        }
        Ok(())
    }

    /// An OpString's text, for the ledger.
    fn name(&self, id: u32) -> String {
        match self.def.get(id as usize) {
            Some(&at) if at != 0 && self.w.head(at as usize).1 == op::STRING => {
                let at = at as usize;
                let count = self.w.head(at).0;
                self.w.string(at + 2, at + count).unwrap_or("").to_string()
            }
            _ => String::new(),
        }
    }
}

impl<'t> Cx<'t> {
    /// Written, or defined in a function (where nothing waits for it).
    fn done(&self, id: u32) -> bool {
        let written = self
            .written
            .get(id as usize / 64)
            .is_some_and(|w| w >> (id % 64) & 1 == 1);
        written || self.t.kind.get(id as usize).is_some_and(|k| k & DONE != 0)
    }

    fn mark_written(&mut self, id: u32) {
        self.written[id as usize / 64] |= 1 << (id % 64);
    }

    /// `Tables::kind_of`, knowing the OpString this pass adds.
    fn kind_of(&self, id: u32) -> u8 {
        match self.new_string && id == self.empty_string {
            true => K_STRING,
            false => self.t.kind_of(id),
        }
    }

    fn followed(&self, id: u32) -> u32 {
        match self.redirect.get(id as usize) {
            Some(&to) if to != 0 => to,
            _ => id,
        }
    }

    /// Pass 2: the module-level section, its debug instructions ordered and repaired; the header
    /// in front. Fills `patches` for in-function references to dropped typedefs.
    fn order_module_section(&mut self) -> Result<Vec<u32>, Declined> {
        let end = self.section_end;
        let mut out: Vec<u32> = Vec::with_capacity(end);
        extend_words(&mut out, &self.w, 0, 5);
        // Instructions waiting for an id, by that id.
        let mut waiting: HashMap<u32, Vec<u32>> = HashMap::default();
        let mut waiters = 0usize;
        let mut ready: Vec<u32> = Vec::new();
        let mut i = 5;
        while i < end {
            let (count, opcode) = self.w.head(i);
            let debug = opcode == op::EXT_INST && count >= 5 && self.w.at(i + 3) == self.set;
            if !debug {
                extend_words(&mut out, &self.w, i, count);
                if let Some(id) = result_id(&self.w.words[i..i + count]) {
                    self.mark_written(id);
                    if waiters != 0 {
                        if let Some(w) = waiting.remove(&id) {
                            waiters -= w.len();
                            ready.extend(w);
                        }
                    }
                }
            } else {
                ready.push(i as u32);
            }
            while let Some(at) = ready.pop() {
                match self.emit(at as usize, &mut out)? {
                    Emitted::Waits(id) => {
                        waiting.entry(id).or_default().push(at);
                        waiters += 1;
                    }
                    Emitted::Written(id) => {
                        self.mark_written(id);
                        if waiters != 0 {
                            if let Some(w) = waiting.remove(&id) {
                                waiters -= w.len();
                                // In input order: the last pushed is taken first.
                                ready.extend(w.into_iter().rev());
                            }
                        }
                    }
                }
            }
            i += count;
        }
        if waiters != 0 {
            return Err(Declined("a reference cycle among debug instructions"));
        }
        if self.new_string {
            // Everything before `strings_end` was copied as it is.
            let at = match self.strings_end {
                0 => out.len(),
                at => at,
            };
            let string = [3 << 16 | u32::from(op::STRING), self.empty_string, 0];
            out.splice(at..at, string);
            out[3] = self.empty_string + 1;
        }
        if cfg!(target_endian = "big") {
            out.iter_mut().for_each(|w| *w = w.to_le());
        }
        Ok(out)
    }

    /// Writes the debug instruction at `at` (repaired, references redirected, every operand of
    /// a kind its consumer takes), or nothing when it must wait for an id: defined later in the
    /// section and not yet written, on an operand that may not refer forward.
    fn emit(&mut self, at: usize, out: &mut Vec<u32>) -> Result<Emitted, Declined> {
        let (count, _) = self.w.head(at);
        let id = self.w.at(at + 2);
        let opcode = self.w.at(at + 4);
        if IN_FUNCTION.contains(&opcode) && opcode != EXPRESSION && opcode != LOCAL_VARIABLE {
            return Err(Declined(
                "an in-function debug instruction outside functions",
            ));
        }
        let members_forward = opcode == TYPE_COMPOSITE && self.flavour != Flavour::Shader100;
        let start = out.len();
        extend_words(out, &self.w, at, count);
        let (mut unnamed, mut void_parameter, mut absent) = (None, false, false);
        let (mut waits, mut undefined, mut wrong) = (None, false, false);
        self.ids(at, |n, o, i| {
            if waits.is_some() {
                return;
            }
            let k = start + (i - at);
            let target = self.followed(out[k]);
            out[k] = target;
            // (The input's words: an id at the bound is none, even once a string takes it.)
            let kind = self.t.kind_of(target);
            if kind == K_UNDEFINED {
                undefined = true;
                return;
            }
            let may_refer_forward = members_forward && o.name == "Members";
            if !(self.done(target) || may_refer_forward) {
                waits = Some(target);
                return;
            }
            // llvm-spirv-14 reads its own forms of `SPIRV.debug` as they are.
            if self.flavour == Flavour::SpirvDebug || kind != K_DEBUG + DEBUG_INFO_NONE as u8 {
                wrong |= !self.allows(opcode, n, kind);
                return;
            }
            match o.name {
                // spirv-val wants an OpString; the reader takes "" as none. (DebugSource keeps
                // its Text: llvm-spirv-14 asserts on a DebugSource without.)
                "Linkage Name" | "Text" => unnamed = Some(k),
                // An optional operand (always the last) that says "none" is left out, as the
                // IR writer does (spirv-val wants e.g. a DebugFunctionDeclaration there).
                _ if o.q == Q::Opt => absent = true,
                // llvm-spirv's void: the reader takes DebugInfoNone and OpTypeVoid alike.
                "Return Type" if self.void != 0 => out[k] = self.void,
                "Return Type" | "Parameter Types" => void_parameter = true,
                _ => wrong |= !self.allows(opcode, n, kind),
            }
        })?;
        if undefined {
            return Err(Declined("a debug instruction refers to an undefined id"));
        }
        if let Some(waits) = waits {
            out.truncate(start);
            return Ok(Emitted::Waits(waits));
        }
        if wrong {
            return Err(Declined("an operand of a kind its consumer rejects"));
        }
        if let Some(k) = unnamed {
            out[k] = self.empty_string()?;
        }
        if void_parameter {
            return Err(Declined("a function type with a DebugInfoNone parameter"));
        }
        if absent {
            out.pop();
            out[start] = ((out.len() - start) as u32) << 16 | u32::from(op::EXT_INST);
        }
        let words = &out[start..];
        match opcode {
            TYPEDEF if self.flavour != Flavour::SpirvDebug => {
                let base = words[6];
                match self.debug_opcode(base) {
                    Some(TYPE_BASIC) => {}
                    None | Some(DEBUG_INFO_NONE) => {
                        return Err(Declined("a typedef of no debug type"))
                    }
                    Some(_) => {
                        let name = self.name(words[5]);
                        self.diagnostics.push(
                            LossKind::Approximated,
                            format!("%{id} (DebugTypedef {name:?})"),
                            "typedef of a non-basic type: references go to its base (spirv-val takes only DebugTypeBasic bases)",
                        );
                        if self.redirect.is_empty() {
                            self.redirect = vec![0; self.def.len()];
                        }
                        self.redirect[id as usize] = base;
                        out.truncate(start);
                    }
                }
            }
            TYPE_ARRAY => {
                let keep = self.array_counts(id, &words[6..])?;
                out.truncate(start + 6 + keep);
                out[start] = ((6 + keep) as u32) << 16 | u32::from(op::EXT_INST);
            }
            TYPE_VECTOR => {
                let n = match self.flavour.literal_numbers() {
                    true => Some(u64::from(words[6])),
                    false => self.constant(words[6]),
                };
                if !n.is_some_and(|n| (2..=4).contains(&n))
                    || self.debug_opcode(words[5]) != Some(TYPE_BASIC)
                {
                    return Err(Declined("a vector the IR writer re-encodes"));
                }
            }
            TYPE_POINTER if self.flavour.literal_numbers() && words[6] == u32::MAX => {
                return Err(Declined("llvm-spirv's storage class 0xFFFFFFFF"));
            }
            SOURCE => {
                // llvm-spirv-14 writes (and reads) a missing text as DebugInfoNone.
                let none_ok = |s: &Self, x: u32| {
                    s.flavour == Flavour::SpirvDebug && s.debug_opcode(x) == Some(DEBUG_INFO_NONE)
                };
                if words[5..]
                    .iter()
                    .any(|&x| self.kind_of(x) != K_STRING && !none_ok(self, x))
                {
                    return Err(Declined("a DebugSource text that is not an OpString"));
                }
            }
            // The reader maps the operation to DWARF's (one it cannot map is a loss in its
            // report) and holds it to the operands DWARF gives it.
            OPERATION => {
                let code = match self.flavour.literal_numbers() {
                    true => Some(words[5]),
                    false => self.constant(words[5]).map(|v| v as u32),
                };
                let Some(code) = code.and_then(|n| from_set(self.flavour.operations(), n)) else {
                    return Err(Declined("a DebugOperation with no DWARF meaning in dwarv"));
                };
                let numbers = |kinds: &[ArgKind]| {
                    kinds.len() == words.len() - 6
                        && kinds
                            .iter()
                            .all(|k| matches!(k, ArgKind::U | ArgKind::S | ArgKind::Addr))
                };
                if row(OPS, code).is_some_and(|(_, _, kinds)| !numbers(kinds)) {
                    return Err(Declined(
                        "a DebugOperation with other operands than it takes",
                    ));
                }
            }
            // llvm-spirv-14 fails to read back the imported entities it wrote; the IR path
            // leaves them out (ledgered).
            IMPORTED_ENTITY if self.flavour == Flavour::SpirvDebug => {
                return Err(Declined("an imported entity in SPIRV.debug"));
            }
            COMPILATION_UNIT => {
                let language = match self.flavour {
                    Flavour::OpenCl100 | Flavour::SpirvDebug => words.get(8).copied(),
                    Flavour::Shader100 => words
                        .get(8)
                        .and_then(|&c| self.constant(c))
                        .map(|v| v as u32),
                    Flavour::DebugInfo => None,
                };
                if language.is_some_and(|l| l > LAST_SOURCE_LANGUAGE) {
                    return Err(Declined("a source language spirv-val does not know"));
                }
            }
            _ => {}
        }
        Ok(Emitted::Written(id))
    }

    /// How many of an array's Component Counts to keep: llvm-spirv's lower bounds (the second
    /// half, as the reader takes them) go in OpenCL.100, ledgered unless DebugInfoNone; every
    /// count must be a positive constant (or, in NonSemantic, 0: runtime-sized), as the IR
    /// writer writes it. `SPIRV.debug` keeps llvm-spirv-14's own form, counts then bounds.
    fn array_counts(&mut self, id: u32, ids: &[u32]) -> Result<usize, Declined> {
        if self.flavour == Flavour::SpirvDebug {
            return Ok(ids.len());
        }
        let none = |s: &Self, x: u32| s.debug_opcode(x) == Some(DEBUG_INFO_NONE);
        let mut keep = ids.len();
        if self.flavour == Flavour::OpenCl100 && keep >= 2 && keep % 2 == 0 {
            let half = keep / 2;
            let lowers = &ids[half..];
            if self.generator >> 16 == LLVM_SPIRV_GENERATOR || lowers.iter().all(|&x| none(self, x))
            {
                keep = half;
                if lowers.iter().any(|&x| !none(self, x)) {
                    self.diagnostics.push(
                        LossKind::Dropped,
                        format!("%{id} (DebugTypeArray)"),
                        "a dimension's lower/upper bound or stride: only counts are written",
                    );
                }
                // Counts alone of an even number would read back as counts and bounds.
                if keep % 2 == 0 && self.generator >> 16 == LLVM_SPIRV_GENERATOR {
                    return Err(Declined("an array of an even number of dimensions"));
                }
            }
        }
        let zero_ok = self.flavour == Flavour::Shader100;
        for &c in &ids[..keep] {
            match self.constant(c) {
                Some(n) if n > 0 && n <= i64::MAX as u64 => {}
                Some(0) if zero_ok => {}
                _ => return Err(Declined("an array count that is not a positive constant")),
            }
        }
        Ok(keep)
    }

    /// The id of an OpString "": the module's own, else one added (`new_string`).
    /// (Whether the bound is free is known once the code is checked: `rewrite` sees to it.)
    fn empty_string(&mut self) -> Result<u32, Declined> {
        if self.empty_string == 0 {
            if self.def.len() >= u32::MAX as usize {
                return Err(Declined("no id free for an OpString"));
            }
            self.empty_string = self.def.len() as u32;
            self.new_string = true;
        }
        Ok(self.empty_string)
    }

    /// In-function references to dropped typedefs, redirected to their bases.
    fn patch_functions(&mut self, local_variables: &[u32]) -> Result<(), Declined> {
        let mut patches = Vec::new();
        for &at in local_variables {
            self.ids(at as usize, |_, _, i| {
                let id = self.w.at(i);
                let to = self.followed(id);
                if to != id {
                    patches.push((i, to));
                }
            })?;
        }
        self.patches = patches;
        Ok(())
    }
}

#[inline]
fn extend_words(out: &mut Vec<u32>, w: &Words<'_>, at: usize, count: usize) {
    out.extend_from_slice(&w.words[at..at + count]);
}

/// Which kinds of id each debug operand may be: the consumers' rules (spirv-val's for the
/// standard sets, which llvm-spirv-14's reader of `SPIRV.debug` shares in substance). A module
/// that breaks one is left to the IR path, which writes it anew.
mod kinds {
    use super::*;

    /// A set of `Cx::kind` values (bit `kind`).
    pub type Mask = [u64; 4];

    const fn of(kinds: &[u8]) -> Mask {
        let mut m = [0u64; 4];
        let mut i = 0;
        while i < kinds.len() {
            m[(kinds[i] >> 6) as usize] |= 1 << (kinds[i] & 63);
            i += 1;
        }
        m
    }
    const fn debug(opcodes: &[u32]) -> Mask {
        let mut m = [0u64; 4];
        let mut i = 0;
        while i < opcodes.len() {
            let k = K_DEBUG as u32 + opcodes[i];
            m[(k >> 6) as usize] |= 1 << (k & 63);
            i += 1;
        }
        m
    }
    fn union(a: Mask, b: Mask) -> Mask {
        [a[0] | b[0], a[1] | b[1], a[2] | b[2], a[3] | b[3]]
    }

    const ANY: Mask = [!1, !0, !0, !0];
    const STRING: Mask = of(&[K_STRING]);
    const NONE: Mask = debug(&[0]);
    /// Debug types: basic, pointer, qualifier, array, vector, typedef, function, enum,
    /// composite, pointer to member, template and its parameters, matrix.
    const TYPE: Mask = debug(&[2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 14, 15, 16, 17, 108]);
    /// Ids of the code (what the reader takes for a variable or value): no string, no void.
    const CODE: Mask = of(&[
        K_CODE,
        K_CONSTANT,
        K_CONSTANT_U32,
        K_VARIABLE,
        K_PARAMETER,
        K_FUNCTION,
    ]);
    /// Debug instructions that are IR entities: all but DebugInfoNone, the in-function ones,
    /// DebugOperation, DebugSourceContinued, DebugBuildIdentifier and DebugStoragePath.
    const ENTITY: Mask = debug(&[
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 25, 26, 27,
        31, 32, 33, 34, 35, 36, 107, 108,
    ]);
    /// Lexical scopes: unit, function, lexical block, composite (and in `SPIRV.debug`,
    /// llvm-spirv's DebugModuleINTEL). Not a DebugLexicalBlockDiscriminator: spirv-val rejects it.
    const SCOPE: Mask = debug(&[1, 20, 21, 10]);

    /// The kinds operand `o` of layout `l` may be. llvm-spirv-14 reads DebugInfoNone as "none"
    /// in any operand of its `SPIRV.debug`.
    pub fn allowed(f: Flavour, l: &Layout, o: &Operand) -> Mask {
        match f {
            Flavour::SpirvDebug => union(by_consumer(f, l, o), NONE),
            _ => by_consumer(f, l, o),
        }
    }

    fn by_consumer(f: Flavour, l: &Layout, o: &Operand) -> Mask {
        let numbers = match f {
            Flavour::Shader100 => of(&[K_CONSTANT_U32]),
            _ => union(of(&[K_CONSTANT_U32, K_CONSTANT]), NONE),
        };
        match (l.name, o.name) {
            ("DebugSource", "Text") if f == Flavour::SpirvDebug => union(STRING, NONE),
            (_, "Name" | "Linkage Name" | "File" | "Text" | "Template Name") => STRING,
            ("DebugMacroDef", "Value") => STRING,
            // DebugInfo 0.99 names a source by its OpString; the later sets have DebugSource.
            (_, "Source") if f == Flavour::DebugInfo => STRING,
            (_, "Source") => debug(&[35]),
            ("DebugTypeMember" | "DebugTypeInheritance" | "DebugTypePtrToMember", "Parent") => {
                debug(&[10])
            }
            ("DebugTypeInheritance", "Child") => debug(&[10]),
            // The reader takes only a function or block there; a scope run's scope is a unit
            // or scope by the IR's rules (no composite).
            ("DebugInlinedAt", "Scope") => debug(&[20, 21]),
            ("DebugScope", "Scope") => debug(&[1, 20, 21]),
            (_, "Parent" | "Scope") if f == Flavour::SpirvDebug => union(SCOPE, debug(&[36])),
            (_, "Parent" | "Scope") => SCOPE,
            ("DebugFunction" | "DebugFunctionDeclaration", "Type") => debug(&[8]),
            ("DebugFunction", "Function") => union(of(&[K_FUNCTION]), NONE),
            ("DebugFunction", "Declaration") => debug(&[19]),
            ("DebugFunctionDefinition", "Function") => debug(&[20]),
            ("DebugFunctionDefinition", "Definition") => of(&[K_FUNCTION]),
            ("DebugGlobalVariable", "Static Member Declaration") => debug(&[11]),
            ("DebugGlobalVariable", "Variable") => union(union(CODE, NONE), debug(&[31])),
            ("DebugValue", "Value") => union(CODE, NONE),
            ("DebugDeclare", "Variable") => of(&[K_VARIABLE, K_PARAMETER]),
            ("DebugInlinedVariable", "Variable") | (_, "Local Variable") => debug(&[26]),
            (_, "Type" | "Base Type" | "Underlying Type" | "Member Type" | "Actual Type") => TYPE,
            (_, "Parameter Types" | "Paramter Types") => TYPE,
            (_, "Return Type") => union(TYPE, of(&[K_VOID])),
            (_, "Members") => debug(&[11, 12, 20]),
            ("DebugTypeComposite", "Size") => union(numbers, NONE),
            (_, "Size" | "Offset") => numbers,
            (_, "Inlined At" | "Inlined") => debug(&[25]),
            (_, "Expression") => debug(&[31]),
            ("DebugExpression", _) => debug(&[30]),
            (_, "Macro") => debug(&[32]),
            (_, "Target") => debug(&[10, 20]),
            (_, "Parameters" | "Template Parameters") => debug(&[15, 16, 17]),
            ("DebugTypeMatrix", "Vector Type") => debug(&[6]),
            // A boolean constant.
            ("DebugTypeMatrix", "Column Major") => of(&[K_CONSTANT, K_CONSTANT_U32]),
            ("DebugEntryPoint", "Entry Point") => debug(&[20]),
            ("DebugEntryPoint", "Compilation Unit") => debug(&[1]),
            ("DebugEntryPoint", _) => STRING,
            ("DebugBuildIdentifier", "Identifier") | ("DebugStoragePath", "Path") => STRING,
            // What the reader takes for them (front/spirv/resolve.rs).
            (_, "Component Counts") => union(
                union(of(&[K_CONSTANT_U32, K_CONSTANT]), NONE),
                union(TYPE, debug(&[18, 26, 31])),
            ),
            (_, "Value") => union(union(CODE, of(&[K_STRING, K_VOID])), union(ENTITY, NONE)),
            (_, "Entity") => union(ENTITY, union(NONE, of(&[K_VOID]))),
            (_, "Indexes") => of(&[K_CONSTANT_U32]),
            (_, "Value, Name") => of(&[K_CONSTANT_U32, K_CONSTANT]),
            // What is left are numbers: literals outside NonSemantic, never ids.
            _ if f == Flavour::Shader100 => of(&[K_CONSTANT_U32]),
            _ => ANY,
        }
    }
}
