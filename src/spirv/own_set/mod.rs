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
//! pass 2 (`SectionWriter::order_module_section`) writes the module-level section — debug
//! instructions ordered so that none refers forward but where the set allows it (a composite's
//! Members outside NonSemantic), repaired as the IR writer repairs them, every operand checked
//! against its consumer's rules (`kinds`, `operands`) — while `Tables::check_code` (`code`)
//! checks the rest as the reader would.
//! The repairs and the reasons to decline are listed in docs/spirv-mapping.md ("In place into
//! the module's own set").
//!
//! [`convert`] runs the same passes on a module of the OpenCL.100 family converted into
//! NonSemantic.100 or `.200` (or of NonSemantic.100 into OpenCL.100 or `.200`, or of `.200`
//! into OpenCL.100 or NonSemantic.100), each debug instruction pass 2 writes then converted
//! into the other set's layout (`to_set`; docs/spirv-mapping.md, "Into another set on the
//! module's words"); into OpenCL.100 the code walk also writes the code's edits.

mod code;
mod head;
mod kinds;
mod operands;
mod order;
mod tables;
mod to_set;
mod words;

use crate::diag::Diagnostics;
use crate::spec::spirv::Flavour;
use rspirv::spirv::Op;

use head::Head;
use order::SectionWriter;
use tables::Tables;
use words::Words;
pub use words::{Declined, Edit};

/// The rewritten module: `head` (header and module-level section, rewritten; little-endian
/// words), then the input's words from `tail_at` on with `edits` applied (in input order).
pub struct Rewritten {
    pub head: Vec<u32>,
    pub tail_at: usize,
    pub edits: Vec<Edit>,
    pub diagnostics: Diagnostics,
    /// The set written, and the set the module carried.
    pub flavour: Flavour,
    pub from: Flavour,
}

impl Rewritten {
    /// Writes the whole module, taking the tail from `input` (the bytes given to [`rewrite`]).
    pub fn write_to(&self, input: &[u8], out: &mut dyn std::io::Write) -> std::io::Result<()> {
        out.write_all(bytemuck::cast_slice(&self.head))?;
        let mut at = 4 * self.tail_at;
        for e in &self.edits {
            out.write_all(&input[at..4 * e.at])?;
            for w in &e.words {
                out.write_all(&w.to_le_bytes())?;
            }
            at = 4 * (e.at + e.remove);
        }
        out.write_all(&input[at..])
    }
    /// The output's length in bytes.
    pub fn output_len(&self, input: &[u8]) -> usize {
        let edited: isize = self
            .edits
            .iter()
            .map(|e| e.words.len() as isize - e.remove as isize)
            .sum();
        (4 * self.head.len() + input.len() - 4 * self.tail_at).saturating_add_signed(4 * edited)
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
    run(bytes, flavour, flavour, None)
}

/// Converts the module's debug info in place from the set it carries (`from`) into another
/// (`to`), on its words (`to_set`); declines what it cannot vouch for, as [`rewrite`] does.
pub fn convert(bytes: &[u8], from: Flavour, to: Flavour) -> Result<Rewritten, Declined> {
    // `SPIRV.debug` is read by `OpenCL.DebugInfo.100`'s layouts and spirv-val's rules, which
    // the other set's consumer applies (llvm-spirv-14's own forms decline).
    to_set::Target::check_direction(from, to)?;
    let layouts = match from {
        Flavour::SpirvDebug => Flavour::OpenCl100,
        f => f,
    };
    run(bytes, layouts, from, Some(to))
}

/// The passes: `flavour` the layouts the module is read by, `import` its set, `to` the set to
/// convert into (none: its own).
fn run(
    bytes: &[u8],
    flavour: Flavour,
    import: Flavour,
    to: Option<Flavour>,
) -> Result<Rewritten, Declined> {
    let mut owned = Vec::new();
    let words = Words::new(bytes, &mut owned)?;
    let mut tables = Tables::index(words, flavour, import)?;
    tables.into_literals = flavour.non_semantic() && to.is_some_and(|to| !to.non_semantic());
    let target = || match to {
        Some(to) => to_set::Target::new(import, to, &tables).map(Some),
        None => Ok(None),
    };
    let first = target()?;
    let write = |taken, target| {
        let mut writer = SectionWriter::new(Head::new(&tables, taken), target);
        writer.order_module_section().map(|head| (head, writer))
    };
    // A large module's code is checked on a second core while its debug info is written, its
    // new ids taken from the bound on as if the code used none of them; written again, skipping
    // them, in the rare module where it does (a literal the grammar lets be an id).
    let mut checked;
    let (head, mut writer) = match bytes.len() >= PARALLEL_FROM {
        true => {
            let (checks, written) = std::thread::scope(|s| {
                let checks = s.spawn(|| tables.check_code());
                let written = write(&[], first);
                let checks = checks
                    .join()
                    .unwrap_or(Err(Declined("the checks of the code failed")));
                (checks, written)
            });
            checked = checks?;
            let (head, writer) = written?;
            // (Every word `taken` holds is at or above the bound.)
            match checked.taken.first() {
                Some(&t) if t < writer.head.next_id => write(&checked.taken, target()?)?,
                _ => (head, writer),
            }
        }
        false => {
            checked = tables.check_code()?;
            write(&checked.taken, first)?
        }
    };
    if !writer.redirect.is_empty() {
        writer.patch_functions(&checked.local_variables)?;
    }
    let mut edits = std::mem::take(&mut writer.edits);
    if let Some(to) = &writer.to {
        let code_edits = std::mem::take(&mut checked.edits);
        let diagnostics = &mut writer.head.diagnostics;
        code_into_other_set(to, &tables, &checked, code_edits, &mut edits, diagnostics)?;
    }
    Ok(Rewritten {
        head,
        tail_at: tables.section_end,
        edits,
        diagnostics: std::mem::take(&mut writer.head.diagnostics),
        flavour: to.unwrap_or(import),
        from: import,
    })
}

/// Into another set: what in the code declines there, then the code's edits (the definitions,
/// and into the OpenCL.100 family `code_edits`) among `edits`, in input order.
fn code_into_other_set(
    to: &to_set::Target,
    tables: &Tables<'_>,
    checked: &code::Checked,
    mut code_edits: Vec<Edit>,
    edits: &mut Vec<Edit>,
    diagnostics: &mut Diagnostics,
) -> Result<(), Declined> {
    // (Its literals would need converting in the code.)
    if !checked.local_variables.is_empty() {
        return Err(Declined("a DebugLocalVariable inside a function"));
    }
    // (Which the IR path leaves out of another set.)
    if checked.constant_values {
        return Err(Declined("a DebugValue of a constant"));
    }
    if checked.unusable_values {
        return Err(Declined(
            "a DebugDeclare or DebugValue of an id not defined before it in its function",
        ));
    }
    let definitions = to.definitions(tables)?;
    // The IR path places no line or debug instruction in a function no DebugFunction names
    // (ledgered as unmatched).
    let defined: rustc_hash::FxHashSet<u32> = to.definitions.iter().map(|d| d[0]).collect();
    if checked.outside_functions || tables.misplaced {
        return Err(Declined(
            "code between functions, a function without its end or an unknown opcode",
        ));
    }
    if checked.after_merge {
        return Err(Declined(
            "a line or debug instruction right after an OpLoopMerge or OpSelectionMerge",
        ));
    }
    if checked.before_anchor {
        return Err(Declined(
            "a line or debug instruction right before an OpLabel, OpPhi, OpVariable or OpFunctionParameter",
        ));
    }
    if checked.described.iter().any(|f| !defined.contains(f)) {
        return Err(Declined(
            "lines or debug instructions in a function no DebugFunction names",
        ));
    }
    edits.extend(definitions);
    edits.append(&mut code_edits);
    edits.sort_by_key(|e| (e.at, e.remove));
    if checked.ranged_rows != 0 {
        diagnostics.push_written(
            crate::diag::LossKind::Dropped,
            "module",
            format!(
                "end line/column of {} line rows: OpLine has only a start",
                checked.ranged_rows
            ),
        );
    }
    Ok(())
}

/// `.200` in place: the module as it is, when the reader takes it without a loss. The repairs and
/// checks above are spirv-val's rules for the sets it knows; `.200`'s judge is
/// SPIRV-LLVM-Translator, whose own forms need none. Anything else goes through the IR.
fn as_it_is(bytes: &[u8], flavour: Flavour) -> Result<Rewritten, Declined> {
    match crate::front::spirv::read(bytes, "input") {
        Ok((_, diagnostics)) if diagnostics.is_empty() => Ok(Rewritten {
            head: Vec::new(),
            tail_at: 0,
            edits: Vec::new(),
            diagnostics,
            flavour,
            from: flavour,
        }),
        Ok(_) => Err(Declined("the reader takes the .200 module with losses")),
        Err(_) => Err(Declined("the reader does not take the .200 module")),
    }
}

/// Modules from this size on are checked and written on two threads.
const PARALLEL_FROM: usize = 1 << 20;
