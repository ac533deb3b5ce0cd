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

mod kinds;
mod order;
mod tables;
mod words;

use crate::diag::Diagnostics;
use crate::spec::spirv::Flavour;
use rspirv::spirv::Op;

use order::Cx;
use tables::Tables;
pub use words::Declined;
use words::Words;

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
            o if o == Op::ExtInstImport as u16 => {
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
            o if (Op::TypeVoid as u16..=Op::Function as u16).contains(&o) => break,
            _ => {}
        }
        i += count;
    }
    found
}

/// Rewrites the module's debug info in place into `flavour`, which must be the set it carries.
pub fn rewrite(bytes: &[u8], flavour: Flavour) -> Result<Rewritten, Declined> {
    if flavour == Flavour::Shader200 {
        return as_it_is(bytes, flavour);
    }
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

/// `.200` in place: the module as it is, when the reader takes it without a loss. The repairs and
/// checks above are spirv-val's rules for the sets it knows; `.200`'s judge is
/// SPIRV-LLVM-Translator, whose own forms need none. Anything else goes through the IR.
fn as_it_is(bytes: &[u8], flavour: Flavour) -> Result<Rewritten, Declined> {
    match crate::front::spirv::read(bytes, "input") {
        Ok((_, diagnostics)) if diagnostics.is_empty() => Ok(Rewritten {
            head: Vec::new(),
            tail_at: 0,
            patches: Vec::new(),
            diagnostics,
            flavour,
        }),
        Ok(_) => Err(Declined("the reader takes the .200 module with losses")),
        Err(_) => Err(Declined("the reader does not take the .200 module")),
    }
}

/// Modules from this size on are checked and written on two threads.
const PARALLEL_FROM: usize = 1 << 20;
