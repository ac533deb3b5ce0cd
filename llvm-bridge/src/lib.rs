//! llvm-bridge: the only dwarv crate that touches LLVM.
//!
//! [`load`] parses an LLVM module (`.ll` or `.bc`), runs LLVM's verifier and returns a plain
//! [`Model`] of its debug metadata: every DI node with all its fields, `!llvm.dbg.cu`, the `!dbg`
//! of globals, functions and every instruction, and the llvm.dbg.* intrinsics (debug records
//! become the intrinsics they stand for). The crate carries one reader per LLVM it was built
//! against ([`readers`]) and picks the one that reads the input ([`pick`]): bitcode by the LLVM
//! its IDENTIFICATION block names, text by the oldest installed LLVM that accepts it.
//!
//! LLVM aborts or crashes on some corrupt bitcode before any verifier runs, so [`load`] does the
//! LLVM work in a forked child process and reads the model back through a pipe: a crash becomes
//! an [`Error::Crashed`], never the caller's death. [`load_in_process`] skips the child (for
//! trusted input).

mod contain;
pub mod ident;
pub mod model;
mod shim;
mod split;
pub mod wire;

pub use split::{split, split_module, Code, ModelOrRejection, Split, Writer};

pub use model::*;
pub use wire::{decode, WireError, MAGIC as MODEL_MAGIC};

use std::fmt;

/// Why a module could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// LLVM rejected the input: it does not parse, or it fails the verifier. The message is LLVM's.
    Rejected(String),
    /// LLVM crashed or aborted on the input (in the child process).
    Crashed(String),
    /// The model buffer is malformed (a bridge bug, or a child that died mid-write).
    Wire(WireError),
    /// The child process could not be run.
    System(String),
    /// The input needs an LLVM whose reader this build carries but whose runtime library is not
    /// installed.
    NotInstalled {
        major: u32,
        library: &'static str,
        detail: String,
    },
    /// No LLVM this build carries reads the input's version.
    NoReader(String),
    /// The bitcode's IDENTIFICATION block names an LLVM that cannot read it.
    Misidentified(String),
    /// The SPIR-V translator refused or crashed on the module (its debug info already
    /// stripped): the message names the translator.
    Translator(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Rejected(m) => write!(f, "{}", m.trim_end()),
            Error::Crashed(m) => write!(f, "LLVM crashed while reading it ({})", m.trim_end()),
            Error::Wire(e) => write!(
                f,
                "malformed model from the LLVM shim at byte {}: expected {}",
                e.offset, e.what
            ),
            Error::System(m) => write!(f, "cannot run the LLVM reader: {m}"),
            Error::NotInstalled {
                major,
                library,
                detail,
            } => write!(
                f,
                "reading it needs LLVM {major}, whose library {library} is not installed \
                 (Debian package libllvm{major}): {detail}"
            ),
            Error::NoReader(m) | Error::Misidentified(m) | Error::Translator(m) => {
                write!(f, "{m}")
            }
        }
    }
}

impl std::error::Error for Error {}

/// An LLVM reader this build carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reader {
    pub major: u32,
    /// `llvm-config --version` of the LLVM its shim was built against.
    pub version: &'static str,
    /// Its runtime library (soname).
    pub library: &'static str,
}

/// The readers this build carries, oldest first.
pub fn readers() -> Vec<Reader> {
    shim::CARRIED
        .iter()
        .map(|c| Reader {
            major: c.major,
            version: c.version,
            library: c.library,
        })
        .collect()
}

/// Loads the shim of reader `index` (its libLLVM): Ok, or why it cannot be loaded.
pub fn available(index: usize) -> Result<(), Error> {
    shim::get(index)
        .map(|_| ())
        .map_err(|m| shim_error(index, m))
}

fn shim_error(index: usize, message: String) -> Error {
    let c = &shim::CARRIED[index];
    match message.contains(c.library) {
        true => Error::NotInstalled {
            major: c.major,
            library: c.library,
            detail: message,
        },
        false => Error::System(message),
    }
}

/// The readers to try on `bytes`, in order (indexes into [`readers`]), and the bitcode's
/// IDENTIFICATION block when there is one. Bitcode: the reader of the LLVM that wrote it, else
/// the nearest newer one (bitcode is read by its own LLVM and later ones, never earlier), then
/// the newer ones (only to tell a lying IDENTIFICATION block from a corrupt file). Text, and
/// bitcode without an LLVM producer: every reader, oldest first, until one accepts it (parses
/// and verifies: LLVM 15 and later allow what LLVM 14's verifier rejects, e.g. imported
/// entities among a subprogram's retained nodes) — text does not say who wrote it, the oldest
/// that accepts it reads it as its writer meant (newer parsers upgrade: LLVM 17 turns
/// llvm.dbg.addr into dbg.value, 17 and later make every pointer opaque), and an LLVM 14
/// module gives the same result whatever else is installed.
pub fn pick(bytes: &[u8]) -> Result<(Vec<usize>, Option<ident::Identification>), Error> {
    let all: Vec<usize> = (0..shim::CARRIED.len()).collect();
    if !ident::is_bitcode(bytes) {
        return Ok((all, None));
    }
    let id = ident::identify(bytes);
    let Some(major) = id.as_ref().and_then(|i| i.llvm_major()) else {
        return Ok((all, id));
    };
    let newer: Vec<usize> = all
        .into_iter()
        .filter(|&i| shim::CARRIED[i].major >= major)
        .collect();
    if newer.is_empty() {
        let producer = id.as_ref().map_or("", |i| i.producer.as_str());
        return Err(Error::NoReader(format!(
            "written by {producer} (its IDENTIFICATION block): bitcode is read only by the LLVM \
             that wrote it or a newer one, and this dwarv reads LLVM {}",
            carried_list()
        )));
    }
    Ok((newer, id))
}

fn carried_list() -> String {
    let v: Vec<String> = shim::CARRIED.iter().map(|c| c.major.to_string()).collect();
    v.join(", ")
}

/// The shim's statuses (bridge.cpp): 0 read, 1 does not parse, 2 parses but is rejected.
const NOT_PARSED: u8 = 1;

/// Tries the readers [`pick`] gives until one parses the input; `run` runs one reader (in this
/// process or a child) and gives its status and buffer. The model buffer and the version of the
/// LLVM that read it.
fn with_readers(
    bytes: &[u8],
    mut run: impl FnMut(usize, &'static shim::Shim) -> Result<(u8, Vec<u8>), Error>,
) -> Result<(Vec<u8>, &'static str), Error> {
    let (order, id) = pick(bytes)?;
    // Whether the input names the LLVM that wrote it: then the first reader that parses it has
    // the last word; else each reader that rejects it hands it to the next.
    let named = id.as_ref().and_then(|i| i.llvm_major()).is_some();
    let mut failures: Vec<(u32, String)> = Vec::new();
    let mut missing = None;
    for &index in &order {
        let c = &shim::CARRIED[index];
        let shim = match shim::get(index) {
            Ok(s) => s,
            Err(m) => {
                missing.get_or_insert(shim_error(index, m));
                continue;
            }
        };
        let (status, buf) = run(index, shim)?;
        if status == NOT_PARSED || (status != 0 && !named) {
            failures.push((c.major, String::from_utf8_lossy(&buf).into_owned()));
            continue;
        }
        if status != 0 {
            return Err(Error::Rejected(String::from_utf8_lossy(&buf).into_owned()));
        }
        if let (Some(id), Some((first, _))) = (&id, failures.first()) {
            if id.llvm_major().is_some() {
                return Err(Error::Misidentified(format!(
                    "its IDENTIFICATION block says {} wrote it, but LLVM {first} cannot read it \
                     and LLVM {} can: the block does not tell the truth",
                    id.producer, c.major
                )));
            }
        }
        return Ok((buf, c.version));
    }
    let Some((_, message)) = failures.first() else {
        // No reader could even be loaded.
        return Err(missing.unwrap_or_else(|| Error::System("no LLVM reader".into())));
    };
    if failures.len() == 1 && missing.is_none() {
        return Err(Error::Rejected(message.clone()));
    }
    // Every reader failed: the first one's message, then what each other said where it differs.
    let mut text = message.trim_end().to_string();
    for (major, m) in &failures[1..] {
        if m.trim_end() != message.trim_end() {
            // The first line, and the one after it when the first only introduces it.
            let mut lines = m.lines().map(str::trim).filter(|l| !l.is_empty());
            let mut line = lines.next().unwrap_or("").to_string();
            if line.ends_with(':') {
                line = format!("{line} {}", lines.next().unwrap_or(""));
            }
            text += &format!("\n(LLVM {major}: {line})");
        }
    }
    if let Some(Error::NotInstalled { major, library, .. }) = &missing {
        text += &format!(
            "\n(LLVM {major} was not tried: {library} is not installed, Debian package \
             libllvm{major})"
        );
    }
    Err(Error::Rejected(text))
}

/// Runs a shim in this process and hands `f` its status and buffer (the model, or LLVM's
/// message), borrowed from the shim. `exiting`: this process ends right after (the
/// crash-containment child): LLVM's module is not torn down.
fn run_shim<R>(
    shim: &shim::Shim,
    bytes: &[u8],
    name: &str,
    exiting: bool,
    f: impl FnOnce(u8, &[u8]) -> R,
) -> R {
    let cname = std::ffi::CString::new(name.replace('\0', "?")).unwrap_or_default();
    let mut out: *const u8 = std::ptr::null();
    let mut len = 0usize;
    let mut handle: *mut std::ffi::c_void = std::ptr::null_mut();
    // SAFETY: the shim reads `len` bytes of `bytes` and returns a buffer of `len` bytes that
    // stays valid until `handle` is freed, after `f` is done with it.
    unsafe {
        let status = (shim.load)(
            bytes.as_ptr(),
            bytes.len(),
            cname.as_ptr(),
            i32::from(exiting),
            &mut out,
            &mut len,
            &mut handle,
        );
        let buf = match out.is_null() {
            true => &[][..],
            false => std::slice::from_raw_parts(out, len),
        };
        let r = f(u8::try_from(status).unwrap_or(u8::MAX), buf);
        (shim.free)(handle);
        r
    }
}

/// Runs the reader that reads `bytes` in this process: Ok(model buffer) or Err(the message).
pub fn load_raw(bytes: &[u8], name: &str) -> Result<Vec<u8>, String> {
    with_readers(bytes, |_, shim| {
        run_shim(shim, bytes, name, false, |status, b| {
            Ok((status, b.to_vec()))
        })
    })
    .map(|(buf, _)| buf)
    .map_err(|e| e.to_string())
}

fn model(buf: &[u8], llvm: &'static str) -> Result<Model, Error> {
    let mut m = decode(buf).map_err(Error::Wire)?;
    m.llvm = llvm;
    Ok(m)
}

/// Loads a module in this process. LLVM may abort the process on corrupt bitcode: use [`load`]
/// for untrusted input.
pub fn load_in_process(bytes: &[u8], name: &str) -> Result<Model, Error> {
    let (buf, llvm) = with_readers(bytes, |_, shim| {
        run_shim(shim, bytes, name, false, |status, b| {
            Ok((status, b.to_vec()))
        })
    })?;
    model(&buf, llvm)
}

/// The index of the reader of LLVM `major`.
fn carried_index(major: u32) -> Result<usize, Error> {
    shim::CARRIED
        .iter()
        .position(|c| c.major == major)
        .ok_or_else(|| {
            Error::Rejected(format!(
                "this build carries no reader for LLVM {major} (it carries {})",
                carried_list()
            ))
        })
}

/// The in-process SPIR-V writer beside reader `index`: None when this build carries none, else
/// the translator library it runs, or why it cannot be loaded.
pub fn writer_available(index: usize) -> Option<Result<&'static str, String>> {
    let library = shim::CARRIED[index].writer.as_ref()?.library;
    Some(shim::writer(index)?.map(|_| library))
}

/// The model of a module that lives in this process, built by LLVM `major` (an `LLVMModuleRef`:
/// what inkwell's `Module::as_mut_ptr` gives). Nothing is parsed or copied; LLVM's verifier
/// runs first, and a module whose debug info it rejects is an error.
///
/// # Safety
/// `module` must point to a live `llvm::Module` of LLVM `major`, linked from the same
/// `libLLVM` the shim of that version loads (the one the system's loader finds by its soname),
/// and nothing may change it during the call.
pub unsafe fn model_of_module(module: *mut std::ffi::c_void, major: u32) -> Result<Model, Error> {
    let index = carried_index(major)?;
    let shim = shim::get(index).map_err(|m| shim_error(index, m))?;
    let mut out: *const u8 = std::ptr::null();
    let mut len = 0usize;
    let mut handle: *mut std::ffi::c_void = std::ptr::null_mut();
    let status = (shim.serialise)(module, &mut out, &mut len, &mut handle);
    let buf = match out.is_null() {
        true => Vec::new(),
        false => std::slice::from_raw_parts(out, len).to_vec(),
    };
    (shim.free)(handle);
    if status != 0 {
        return Err(Error::Rejected(String::from_utf8_lossy(&buf).into_owned()));
    }
    model(&buf, shim::CARRIED[index].version)
}

/// Loads a module with LLVM running in a child process (see the crate docs).
pub fn load(bytes: &[u8], name: &str) -> Result<Model, Error> {
    load_beside(bytes, name, || ()).0
}

/// [`load`], running `beside` in this process while LLVM reads the module in the child: work
/// that does not need the model then shares the machine with LLVM's. `beside` runs once, while
/// the first reader tried runs (or at the end, if no reader could be started).
pub fn load_beside<T>(
    bytes: &[u8],
    name: &str,
    beside: impl FnOnce() -> T,
) -> (Result<Model, Error>, T) {
    let mut beside = Some(beside);
    let mut done = None;
    // Each shim is loaded here, before the fork: the child only runs it.
    let read = with_readers(bytes, |_, shim| {
        let mut now = || {
            if let Some(f) = beside.take() {
                done = Some(f());
            }
        };
        contain::run(
            |reply| run_shim(shim, bytes, name, true, |status, buf| reply(status, buf)),
            &mut now,
        )
    });
    let done = match (done, beside) {
        (Some(t), _) => t,
        (None, Some(f)) => f(),
        (None, None) => unreachable!("`beside` is taken only when it runs"),
    };
    (read.and_then(|(buf, llvm)| model(&buf, llvm)), done)
}
