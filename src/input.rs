//! Reading inputs: files or stdin, format detected from content (never from the extension), and
//! lowering to a validated IR module.

use std::io::Read;

use crate::diag::Diagnostics;
use crate::error::{Error, Result};
use crate::ir::verify::Verified;
use crate::ir::{self, Module};

/// Input formats dwarv recognises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `.dwir` IR text.
    Ir,
    Spirv,
    /// ELF with DWARF.
    Elf,
    LlvmBitcode,
    LlvmText,
    /// Intel vISA debug information (magic 0xdeadd010).
    Visa,
    /// A clang offload bundle (plain or compressed) or an LLVM offloading binary: device images
    /// (`container`). A host ELF that holds them detects as `Elf`; [`parts`] splits both.
    Offload,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Ir => "IR text",
            Format::Spirv => "SPIR-V",
            Format::Elf => "ELF/DWARF",
            Format::LlvmBitcode => "LLVM bitcode",
            Format::LlvmText => "LLVM IR text",
            Format::Visa => "vISA debug tables",
            Format::Offload => "offload container",
        }
    }
}

/// SPIR-V magic, in either byte order.
const SPIRV_MAGIC: u32 = 0x0723_0203;
const VISA_MAGIC: u32 = 0xdead_d010;

/// Detects the format of an input from its first bytes.
pub fn detect(bytes: &[u8]) -> Option<Format> {
    if crate::container::is_container_magic(bytes) {
        return Some(Format::Offload);
    }
    let word = bytes.get(..4).map(|b| [b[0], b[1], b[2], b[3]]);
    if let Some(w) = word {
        if u32::from_le_bytes(w) == SPIRV_MAGIC || u32::from_be_bytes(w) == SPIRV_MAGIC {
            return Some(Format::Spirv);
        }
        if u32::from_le_bytes(w) == VISA_MAGIC {
            return Some(Format::Visa);
        }
        if w == *b"\x7fELF" {
            return Some(Format::Elf);
        }
    }
    if ir::text::looks_like_ir(bytes) {
        return Some(Format::Ir);
    }
    match llvm_detect(bytes) {
        Some(true) => Some(Format::LlvmBitcode),
        Some(false) => Some(Format::LlvmText),
        None => None,
    }
}

/// Some(true) for LLVM bitcode (raw `BC\xC0\xDE` or in the `0x0B17C0DE` wrapper), Some(false)
/// for textual LLVM IR, recognised by the lines only LLVM's printer starts with.
fn llvm_detect(bytes: &[u8]) -> Option<bool> {
    if bytes.starts_with(b"BC\xC0\xDE") || bytes.starts_with(&[0xDE, 0xC0, 0x17, 0x0B]) {
        return Some(true);
    }
    // 64 KiB: test files open with long comment blocks before the first IR line.
    let head = &bytes[..bytes.len().min(1 << 16)];
    // A head cut inside a multi-byte character is still text.
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) if e.valid_up_to() + 4 > head.len() => {
            std::str::from_utf8(&head[..e.valid_up_to()]).ok()?
        }
        Err(_) => return None,
    };
    let is_ir = text.lines().map(str::trim_start).any(|l| {
        l.starts_with("; ModuleID")
            || l.starts_with("source_filename =")
            || l.starts_with("target triple =")
            || l.starts_with("target datalayout =")
            || l.starts_with("define ")
            || l.starts_with("declare ")
            || (l.starts_with('!') && l.contains("= !DI"))
    });
    is_ir.then_some(false)
}

/// An input's name (for messages) and bytes.
pub struct Input {
    pub name: String,
    pub bytes: Bytes,
}

/// An input's bytes: a file mapped into memory, whose pages are read only as a reader reaches
/// them (a 1 GB input that is bad in its first bytes costs nothing, and no buffer of the file's
/// size is allocated up front), or bytes read (stdin, a file that cannot be mapped).
pub enum Bytes {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        }
    }
}

impl Default for Bytes {
    fn default() -> Self {
        Bytes::Owned(Vec::new())
    }
}

impl From<Vec<u8>> for Bytes {
    fn from(v: Vec<u8>) -> Self {
        Bytes::Owned(v)
    }
}

/// Reads a file (mapped when it is a regular, non-empty file), or stdin for `-`.
pub fn read(path: &str) -> Result<Input> {
    let io = |source| Error::Io {
        path: path.to_string(),
        source,
    };
    if path == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .map_err(io)?;
        return Ok(Input {
            name: "<stdin>".into(),
            bytes: bytes.into(),
        });
    }
    let file = std::fs::File::open(path).map_err(io)?;
    let regular = file.metadata().is_ok_and(|m| m.is_file() && m.len() > 0);
    // SAFETY: the map is read-only and private to this process. Another process that shrinks
    // the file while dwarv reads it would make the reader fault (as for any tool that maps its
    // input); the readers otherwise treat these bytes as untrusted and bound every access.
    let mapped = regular
        .then(|| unsafe { memmap2::Mmap::map(&file) }.ok())
        .flatten();
    let bytes = match mapped {
        Some(m) => Bytes::Mapped(m),
        None => {
            let mut v = Vec::new();
            (&file).read_to_end(&mut v).map_err(io)?;
            Bytes::Owned(v)
        }
    };
    Ok(Input {
        name: path.to_string(),
        bytes,
    })
}

/// Lowers an input to IR without validating it.
pub fn lower(input: &Input) -> Result<Module> {
    lower_with_diagnostics(input).map(|(m, _)| m)
}

/// Lowers an input to IR without validating it, with the reader's diagnostics (what it skipped
/// or approximated).
pub fn lower_with_diagnostics(input: &Input) -> Result<(Module, Diagnostics)> {
    lower_bytes(&input.bytes, &input.name)
}

/// [`lower_with_diagnostics`] of bytes named `name` (for messages).
pub fn lower_bytes(bytes: &[u8], name: &str) -> Result<(Module, Diagnostics)> {
    let format = detect(bytes).ok_or_else(|| Error::UnknownFormat {
        path: name.to_string(),
    })?;
    #[cfg(not(feature = "llvm"))]
    let unsupported = |reason| Error::UnsupportedInput {
        path: name.to_string(),
        format: format.name(),
        reason,
    };
    match format {
        Format::Ir => {
            let text = std::str::from_utf8(bytes).map_err(|e| {
                Error::Parse(ir::text::ParseError {
                    file: name.to_string(),
                    line: 1 + bytes[..e.valid_up_to()]
                        .iter()
                        .filter(|b| **b == b'\n')
                        .count() as u32,
                    column: 1,
                    message: format!("invalid UTF-8 at byte offset {}", e.valid_up_to()),
                })
            })?;
            Ok((ir::text::parse(text, name)?, Diagnostics::default()))
        }
        Format::Spirv => unverified(crate::front::spirv::read(bytes, name)),
        Format::Elf => unverified(crate::front::dwarf::read(bytes, name)),
        #[cfg(feature = "llvm")]
        Format::LlvmBitcode | Format::LlvmText => crate::front::llvm::read(bytes, name),
        #[cfg(not(feature = "llvm"))]
        Format::LlvmBitcode | Format::LlvmText => {
            Err(unsupported("dwarv was built without the `llvm` feature"))
        }
        Format::Visa => crate::front::visa::read(bytes, name),
        Format::Offload => {
            let parts = crate::container::open(bytes, name)?.unwrap_or_default();
            match &parts[..] {
                [one] => lower_bytes(&one.bytes, &format!("{name} [{}]", one.name)),
                _ => Err(several(name, &parts)),
            }
        }
    }
}

/// The error for a container of several parts where one is needed.
fn several(name: &str, parts: &[crate::container::Part]) -> Error {
    Error::Usage(format!(
        "{name} holds {} parts ({}): pick one with --part",
        parts.len(),
        crate::container::list(parts)
    ))
}

/// An input split into the parts it holds: itself alone, or a container's host and device
/// images (`container`), each named `FILE [PART]`; `want` keeps only the part it names
/// (`container::select`). The host part is the input itself, not a copy.
pub fn parts(inp: Input, want: Option<&str>) -> Result<Vec<Input>> {
    let (host, devices) = {
        let Some(parts) = crate::container::open(&inp.bytes, &inp.name)? else {
            if let Some(w) = want {
                return Err(Error::Usage(format!(
                    "--part {w}: {} is not a container of device code (an offload bundle, an \
                     offloading binary or a host object holding one)",
                    inp.name
                )));
            }
            return Ok(vec![inp]);
        };
        let chosen = match want {
            Some(w) => {
                let i = crate::container::select(&parts, w)
                    .map_err(|m| Error::Usage(format!("{}: --part {w}: {m}", inp.name)))?;
                i..i + 1
            }
            None => 0..parts.len(),
        };
        let is_host = |p: &crate::container::Part| {
            p.name == "host" && p.origin == crate::container::HOST_ORIGIN
        };
        let host = parts[chosen.clone()].iter().any(is_host);
        let devices: Vec<(String, Vec<u8>)> = parts[chosen]
            .iter()
            .filter(|p| !is_host(p))
            .map(|p| (p.name.clone(), p.bytes.to_vec()))
            .collect();
        if !host && devices.is_empty() {
            return Err(Error::Usage(format!(
                "{}: the container holds no device image (only empty entries)",
                inp.name
            )));
        }
        (host, devices)
    };
    let mut out = Vec::new();
    let name = inp.name.clone();
    if host {
        out.push(Input {
            name: format!("{name} [host]"),
            bytes: inp.bytes,
        });
    }
    out.extend(devices.into_iter().map(|(part, bytes)| Input {
        name: format!("{name} [{part}]"),
        bytes: bytes.into(),
    }));
    Ok(out)
}

/// The one part of an input a verb works on: the input itself, the container's only part, or
/// the one `want` names; a container of several parts and no `want` is a usage error listing
/// them.
pub fn one(inp: Input, want: Option<&str>) -> Result<Input> {
    let name = inp.name.clone();
    let mut parts = parts(inp, want)?;
    if parts.len() == 1 {
        return Ok(parts.remove(0));
    }
    let names: Vec<&str> = parts
        .iter()
        .map(|p| p.name[name.len()..].trim_matches(|c| c == ' ' || c == '[' || c == ']'))
        .collect();
    Err(Error::Usage(format!(
        "{name} holds {} parts ({}): pick one with --part",
        parts.len(),
        names.join(", ")
    )))
}

fn unverified(read: Result<(Verified, Diagnostics)>) -> Result<(Module, Diagnostics)> {
    read.map(|(m, d)| (m.into_inner(), d))
}

/// Lowers an input and checks it against the IR rules: what the writers take. The SPIR-V and
/// DWARF readers check what they make themselves (a module that breaks a rule is damaged input,
/// said at its place); the others are checked here.
pub fn lower_verified(input: &Input) -> Result<(Verified, Diagnostics)> {
    match detect(&input.bytes) {
        Some(Format::Spirv) => crate::front::spirv::read(&input.bytes, &input.name),
        Some(Format::Elf) => crate::front::dwarf::read(&input.bytes, &input.name),
        _ => {
            let (module, diagnostics) = lower_with_diagnostics(input)?;
            Ok((verified(module, &input.name)?, diagnostics))
        }
    }
}

/// `Verified::new` with the error every verb gives for a module that breaks IR rules.
pub fn verified(module: Module, name: &str) -> Result<Verified> {
    Verified::new(module).map_err(|findings| Error::Invalid {
        path: name.to_string(),
        findings,
    })
}

/// Reads, lowers and checks: what every verb but `validate` works on.
pub fn load(path: &str) -> Result<Verified> {
    lower_verified(&read(path)?).map(|(m, _)| m)
}
