//! llvm-bridge: the only dwarv crate that touches LLVM.
//!
//! [`load`] parses an LLVM 14 module (`.ll` or `.bc`; retried with opaque pointers when typed
//! parsing fails), runs LLVM's verifier and returns a plain [`Model`] of its debug metadata: every
//! DI node with all its fields, `!llvm.dbg.cu`, the `!dbg` of globals, functions and every
//! instruction, and the llvm.dbg.* intrinsics. LLVM aborts or crashes on some corrupt bitcode
//! before any verifier runs, so [`load`] does the LLVM work in a forked child process and reads the
//! model back through a pipe: a crash becomes an [`Error::Crashed`], never the caller's death.
//! [`load_in_process`] skips the child (for trusted input).

mod contain;
pub mod model;
mod shim;
pub mod wire;

pub use model::*;
pub use wire::{decode, WireError};

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
        }
    }
}

impl std::error::Error for Error {}

/// Runs the shim in this process: Ok(model buffer) or Err(LLVM's message).
pub fn load_raw(bytes: &[u8], name: &str) -> Result<Vec<u8>, String> {
    let shim = shim::get()?;
    run_shim(shim, bytes, name, false, |ok, buf| match ok {
        true => Ok(buf.to_vec()),
        false => Err(String::from_utf8_lossy(buf).into_owned()),
    })
}

/// Runs the shim and hands `f` whether it succeeded and its buffer (the model, or LLVM's
/// message), borrowed from the shim. `exiting`: this process ends right after (the
/// crash-containment child): LLVM's module is not torn down.
fn run_shim<R>(
    shim: &shim::Shim,
    bytes: &[u8],
    name: &str,
    exiting: bool,
    f: impl FnOnce(bool, &[u8]) -> R,
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
        let r = f(status == 0, buf);
        (shim.free)(handle);
        r
    }
}

/// Loads a module in this process. LLVM may abort the process on corrupt bitcode: use [`load`]
/// for untrusted input.
pub fn load_in_process(bytes: &[u8], name: &str) -> Result<Model, Error> {
    // A shim that cannot be loaded is the system's failure, not the input's.
    shim::get().map_err(Error::System)?;
    let buf = load_raw(bytes, name).map_err(Error::Rejected)?;
    decode(&buf).map_err(Error::Wire)
}

/// Loads a module with LLVM running in a child process (see the crate docs).
pub fn load(bytes: &[u8], name: &str) -> Result<Model, Error> {
    // Loaded here, before the fork: the child then only runs it.
    let shim = shim::get().map_err(Error::System)?;
    let buf = contain::run(|reply| run_shim(shim, bytes, name, true, |ok, buf| reply(ok, buf)))?;
    decode(&buf).map_err(Error::Wire)
}
