//! Split debug info for SPIR-V: `dwarv strip` and `dwarv attach`.
//!
//! `strip` writes the module's debug-stripped normal form plus dwarv's link records (a
//! NonSemantic DebugBuildIdentifier, the hash of the normal form, and a DebugStoragePath naming
//! the sidecar; `crate::spirv`, "Link records"), and the sidecar: the module's debug info as
//! DWARF (SPIR-V ⇄ DWARF convention of docs/dwarf.md), which records the debug set the module had
//! and the same link records. `attach` checks that a sidecar belongs to a stripped module (same
//! build identifier) and writes the module's debug info back into it, in the recorded set unless
//! told otherwise.

use crate::diag::Diagnostics;
use crate::error::{Error, Result};
use crate::ir::{Link, Module, Source, SourceFormat};
use crate::output::{write_file, Durability};
use crate::spec::spirv::Flavour;

/// A SPIR-V input parsed, with its IR and the build identifier of its normal form.
struct Code {
    module: Module,
    build_id: String,
    diags: Diagnostics,
}

fn read_code(path: &str, part: Option<&str>) -> Result<(Vec<u32>, String)> {
    let inp = crate::input::one(crate::input::read(path)?, part)?;
    if crate::input::detect(&inp.bytes) != Some(crate::input::Format::Spirv) {
        return Err(Error::Usage(format!("{}: not a SPIR-V module", inp.name)));
    }
    Ok((crate::front::spirv::words(&inp.bytes, &inp.name)?, inp.name))
}

/// Parses the module and reads its debug info, then writes what `make` gives (an IR and a set)
/// into the module's normal form.
fn with_code(
    words: &[u32],
    name: &str,
    make: impl FnOnce(&mut Code) -> Result<(Module, Flavour)>,
) -> Result<(Code, Vec<u8>, Diagnostics)> {
    let p = crate::front::spirv::parse(words, name)?;
    let build_id = crate::spirv::build_id(&p.nf.words(&p.bin));
    let (module, diags) = crate::front::spirv::read_parsed(&p, name)?;
    let mut code = Code {
        module: module.into_inner(),
        build_id,
        diags,
    };
    let (m, flavour) = make(&mut code)?;
    let m = crate::input::verified(m, name)?;
    let view = p.nf.into_view(p.bin);
    let (bytes, losses) = crate::back::spirv::write_into_view(&m, flavour, &view)?;
    Ok((code, bytes, losses))
}

/// `dwarv strip INPUT -o CODE --debug-out SIDECAR`: the losses of writing the sidecar.
pub fn strip(
    input: &str,
    part: Option<&str>,
    code_out: &str,
    debug_out: &str,
) -> Result<Diagnostics> {
    let (words, name) = read_code(input, part)?;
    // The link records alone, written into the normal form: the stripped module.
    let (code, stripped, _) = with_code(&words, &name, |code| {
        if code.module.info.link.is_some() {
            return Err(Error::Usage(format!(
                "{name}: already stripped (it holds dwarv's link records)"
            )));
        }
        if code.module.units.is_empty() && code.module.lines.is_empty() {
            return Err(Error::Usage(format!(
                "{name}: no debug info to strip (no compile unit)"
            )));
        }
        code.module.info.link = Some(Link {
            build_id: code.build_id.clone(),
            storage_path: Some(debug_out.to_string()),
        });
        let mut link_only = Module {
            source: Source {
                format: SourceFormat::Spirv,
                flavour: Some(Flavour::Shader100.import_name().to_string()),
            },
            ..Default::default()
        };
        link_only.info.link = code.module.info.link.clone();
        Ok((link_only, Flavour::Shader100))
    })?;
    let linked = crate::input::verified(code.module, &name)?;
    let (sidecar, mut losses) =
        crate::back::dwarf::write(&linked, &crate::back::dwarf::WriteOptions::default())?;
    losses.losses.splice(0..0, code.diags.losses);
    // Both outputs or neither: the sidecar first, the code once the sidecar is there.
    write_file(debug_out, &sidecar, Durability::Now)?;
    if let Err(e) = write_file(code_out, &stripped, Durability::Now) {
        let _ = std::fs::remove_file(debug_out);
        return Err(e);
    }
    Ok(losses)
}

#[derive(Clone, Debug, Default)]
pub struct AttachOptions {
    /// The set to write; default: the one the sidecar records.
    pub flavour: Option<Flavour>,
    /// Keep the link records in the output.
    pub keep_link: bool,
}

/// `dwarv attach CODE SIDECAR -o OUTPUT`: the losses of writing the debug info back.
pub fn attach(
    code: &str,
    sidecar: &str,
    output: &str,
    opts: &AttachOptions,
) -> Result<Diagnostics> {
    let (words, name) = read_code(code, None)?;
    let side_bytes = std::fs::read(sidecar).map_err(|source| Error::Io {
        path: sidecar.to_string(),
        source,
    })?;
    if crate::input::detect(&side_bytes) != Some(crate::input::Format::Elf) {
        return Err(Error::Usage(format!(
            "{sidecar}: not a DWARF sidecar (an ELF object)"
        )));
    }
    let (side, mut diags) = crate::front::dwarf::read(&side_bytes, sidecar)?;
    let mut side = side.into_inner();
    let Some(side_link) = side.info.link.clone() else {
        return Err(Error::Usage(format!(
            "{sidecar}: no dwarv link record: not a sidecar written by `dwarv strip`"
        )));
    };
    if side.source.format != SourceFormat::Spirv {
        return Err(Error::Usage(format!(
            "{sidecar}: its DWARF was not written from SPIR-V"
        )));
    }
    if !opts.keep_link {
        side.info.link = None;
    }
    // The set the module was stripped from; a module stripped of OpLines alone had none, and a
    // Vulkan shader gets the one set Vulkan drivers load.
    let recorded = side
        .source
        .flavour
        .as_deref()
        .and_then(Flavour::from_import_name);
    let flavour = opts.flavour.or(recorded).unwrap_or_else(|| {
        match crate::spirv::vulkan_shader_words(|i| words.get(i).copied()) {
            true => Flavour::Shader100,
            false => crate::convert::default_flavour(&side),
        }
    });
    // The module's own build id (of its normal form) must be the sidecar's.
    let (_, bytes, losses) = with_code(&words, &name, |code| {
        if code.build_id != side_link.build_id {
            return Err(Error::Usage(format!(
                "{sidecar} does not belong to {name}: its build id is {}, the module's is {}",
                side_link.build_id, code.build_id
            )));
        }
        Ok((side, flavour))
    })?;
    diags.losses.extend(losses.losses);
    write_file(output, &bytes, Durability::Now)?;
    Ok(diags)
}
