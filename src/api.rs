//! The library's entries, re-exported at the crate root: read any input into a [`Module`] with
//! what the reader lost, check it ([`Verified`]), write it as SPIR-V in any debug set, as DWARF
//! or as IR text, and compare two modules. `dwarv`'s command line is built on these.

use std::path::Path;

use crate::diag::Diagnostics;
use crate::error::{Error, Result};
use crate::input::{self, Format};
use crate::ir::diff::{Diff, DiffOptions};
use crate::ir::verify::Verified;
use crate::ir::Module;

/// An input read into the IR.
#[derive(Debug)]
pub struct Read {
    /// The debug information, not yet checked against the IR rules (see [`Verified::new`]).
    pub module: Module,
    /// What the reader skipped or approximated, each with its place in the input.
    pub losses: Diagnostics,
    /// The format the input was in, detected from its content.
    pub format: Format,
}

/// Reads an input of any format dwarv knows — IR text, SPIR-V, ELF with DWARF, LLVM IR or
/// bitcode (with the `llvm` feature), vISA debug tables — detected from its content. `name`
/// is used in error messages.
///
/// ```
/// let text = "; dwarv-ir 1 source=ir\nt0 = base \"int\" enc=signed bits=32\n";
/// let read = dwarv::read(text.as_bytes(), "int.dwir")?;
/// assert_eq!(read.module.types.len(), 1);
/// assert!(read.losses.is_empty());
/// # Ok::<(), dwarv::Error>(())
/// ```
pub fn read(bytes: &[u8], name: &str) -> Result<Read> {
    let format = input::detect(bytes).ok_or_else(|| Error::UnknownFormat {
        path: name.to_string(),
    })?;
    let (module, losses) = input::lower_bytes(bytes, name)?;
    Ok(Read {
        module,
        losses,
        format,
    })
}

/// [`read`] of a file (mapped, not read whole into memory first; `-` is standard input).
///
/// ```no_run
/// let read = dwarv::read_file("kernel.spv")?;
/// println!("{} functions", read.module.scopes.len());
/// # Ok::<(), dwarv::Error>(())
/// ```
pub fn read_file(path: impl AsRef<Path>) -> Result<Read> {
    let input = input::read(&path.as_ref().to_string_lossy())?;
    read(&input.bytes, &input.name)
}

/// What a writer made: the output's bytes and what the target could not hold.
#[derive(Debug)]
pub struct Written {
    pub bytes: Vec<u8>,
    pub losses: Diagnostics,
}

/// Writes the module's debug info as SPIR-V in `options.flavour`'s set: a module of its own, or
/// woven into a given module (`options.base`).
///
/// ```
/// use dwarv::{Flavour, SpirvBase, SpirvOptions, Verified};
/// let text = "; dwarv-ir 1 source=ir\nf0 = file \"k.cl\"\nu0 = unit opencl file=f0\n";
/// let module = Verified::new(dwarv::read(text.as_bytes(), "k.dwir")?.module)?;
/// let options = SpirvOptions {
///     flavour: Flavour::OpenCl100,
///     base: SpirvBase::Standalone,
///     forward_refs: false,
/// };
/// let written = dwarv::write_spirv(&module, &options)?;
/// assert_eq!(&written.bytes[..4], &0x0723_0203u32.to_le_bytes()); // SPIR-V's magic
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_spirv(
    module: &Verified,
    options: &crate::back::spirv::WriteOptions,
) -> Result<Written> {
    let (bytes, losses) = crate::back::spirv::write(module, options)?;
    Ok(Written { bytes, losses })
}

/// Writes the module's debug info as DWARF in an ELF object (or into a copy of a given binary,
/// `options.into`).
///
/// ```
/// use dwarv::{DwarfOptions, Verified};
/// let text = "; dwarv-ir 1 source=ir\nf0 = file \"p.c\"\nu0 = unit c99 file=f0\n";
/// let module = Verified::new(dwarv::read(text.as_bytes(), "p.dwir")?.module)?;
/// let written = dwarv::write_dwarf(&module, &DwarfOptions::default())?;
/// assert_eq!(&written.bytes[..4], b"\x7fELF");
/// // It reads back: one unit, of file p.c.
/// let back = dwarv::read(&written.bytes, "p.o")?.module;
/// assert_eq!(back.units.len(), 1);
/// assert!(dwarv::write_text(&back).contains("\"p.c\""));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_dwarf(
    module: &Verified,
    options: &crate::back::dwarf::WriteOptions,
) -> Result<Written> {
    let (bytes, losses) = crate::back::dwarf::write(module, options)?;
    Ok(Written { bytes, losses })
}

/// The module as IR text (`.dwir`), which [`read`] parses back to the same module.
///
/// ```
/// let text = "; dwarv-ir 1 source=ir\nt0 = base \"int\" enc=signed bits=32\n";
/// let module = dwarv::read(text.as_bytes(), "int.dwir")?.module;
/// assert_eq!(dwarv::write_text(&module), text);
/// # Ok::<(), dwarv::Error>(())
/// ```
pub fn write_text(module: &Module) -> String {
    crate::ir::text::print(module)
}

/// Compares two modules by content (entities matched by what they are, never by index).
///
/// ```
/// let a = dwarv::read(b"; dwarv-ir 1 source=ir\nt0 = base \"int\" enc=signed bits=32\n", "a")?;
/// let b = dwarv::read(b"; dwarv-ir 1 source=ir\nt0 = base \"int\" enc=signed bits=64\n", "b")?;
/// let diff = dwarv::diff(&a.module, &b.module, Default::default());
/// assert_eq!(diff.differences.len(), 1);
/// println!("{}", diff.render(10));
/// # Ok::<(), dwarv::Error>(())
/// ```
pub fn diff(a: &Module, b: &Module, options: DiffOptions) -> Diff {
    crate::ir::diff::diff(a, b, options)
}
