//! The C++ shims (shim/bridge.cpp, built by build.rs once per LLVM, each linked to its libLLVM)
//! are embedded in the crate and each loaded the first time a module needs it: written to an
//! anonymous memory file and `dlopen`ed from there (`RTLD_LOCAL`: two LLVMs live side by side,
//! their symbols versioned apart). Linking one into the executable would load libLLVM, with its
//! relocations and static constructors (~15 ms), into every dwarv process, LLVM input or not.

use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::OnceLock;

/// One shim this build carries.
pub struct Carried {
    /// The LLVM major version it was built against.
    pub major: u32,
    /// `llvm-config --version` of that LLVM.
    pub version: &'static str,
    /// The runtime library it needs (its soname, e.g. `libLLVM.so.19.1`).
    pub library: &'static str,
    pub object: &'static [u8],
    /// The in-process SPIR-V writer built beside it (shim/spirv_writer.cpp), where the
    /// translator's library of this LLVM was found at build time.
    pub writer: Option<Writer>,
}

/// A SPIR-V writer this build carries.
pub struct Writer {
    /// The translator's library it needs (`libLLVMSPIRVLib.so.14`).
    pub library: &'static str,
    pub object: &'static [u8],
}

include!(concat!(env!("OUT_DIR"), "/carried.rs"));

/// `dwarv_llvm_load` (see bridge.cpp).
type LoadFn = unsafe extern "C" fn(
    data: *const u8,
    len: usize,
    name: *const c_char,
    exiting: i32,
    out: *mut *const u8,
    out_len: *mut usize,
    handle: *mut *mut c_void,
) -> i32;
/// `dwarv_llvm_serialise`: a module of the caller's process (an `LLVMModuleRef`).
type SerialiseFn = unsafe extern "C" fn(
    module: *mut c_void,
    out: *mut *const u8,
    out_len: *mut usize,
    handle: *mut *mut c_void,
) -> i32;
/// `dwarv_llvm_free`.
type FreeFn = unsafe extern "C" fn(handle: *mut c_void);
/// `dwarv_spirv_write` (spirv_writer.cpp).
pub type WriteFn = unsafe extern "C" fn(
    module: *mut c_void,
    options: *const c_char,
    out: *mut *const u8,
    out_len: *mut usize,
    handle: *mut *mut c_void,
) -> i32;
/// Receives each part of a split as it is ready.
pub type EmitFn = unsafe extern "C" fn(ctx: *mut c_void, status: i32, data: *const u8, len: usize);
/// `dwarv_llvm_split`.
type SplitFn = unsafe extern "C" fn(
    data: *const u8,
    len: usize,
    name: *const c_char,
    exiting: i32,
    writer: Option<WriteFn>,
    options: *const c_char,
    emit: EmitFn,
    ctx: *mut c_void,
) -> i32;
/// `dwarv_llvm_split_module`.
type SplitModuleFn = unsafe extern "C" fn(
    module: *mut c_void,
    writer: Option<WriteFn>,
    options: *const c_char,
    emit: EmitFn,
    ctx: *mut c_void,
) -> i32;

/// The shim's entry points.
pub struct Shim {
    pub load: LoadFn,
    pub serialise: SerialiseFn,
    pub free: FreeFn,
    pub split: SplitFn,
    pub split_module: SplitModuleFn,
}

/// The loaded shim of `CARRIED[index]`, or why it cannot be loaded (its libLLVM missing, no
/// memfd…).
pub fn get(index: usize) -> Result<&'static Shim, String> {
    static SHIMS: OnceLock<Vec<OnceLock<Result<Shim, String>>>> = OnceLock::new();
    let all = SHIMS.get_or_init(|| CARRIED.iter().map(|_| OnceLock::new()).collect());
    let c = &CARRIED[index];
    all[index]
        .get_or_init(|| open(c))
        .as_ref()
        .map_err(Clone::clone)
}

/// The SPIR-V writer of `CARRIED[index]`, loaded (after its reader shim, whose libLLVM it
/// shares): None when this build carries none for that LLVM, Err when it cannot be loaded (the
/// translator's library missing).
pub fn writer(index: usize) -> Option<Result<WriteFn, String>> {
    static WRITERS: OnceLock<Vec<OnceLock<Result<WriteFn, String>>>> = OnceLock::new();
    let all = WRITERS.get_or_init(|| CARRIED.iter().map(|_| OnceLock::new()).collect());
    let c = &CARRIED[index];
    let w = c.writer.as_ref()?;
    Some(all[index].get_or_init(|| open_writer(c, w)).clone())
}

fn open_writer(c: &Carried, w: &Writer) -> Result<WriteFn, String> {
    // DWARV_TRANSLATOR_SKIP=14[,15]: behave as if those translators' libraries were missing.
    if skipped("DWARV_TRANSLATOR_SKIP", c.major) {
        return Err(format!("{}: skipped (DWARV_TRANSLATOR_SKIP)", w.library));
    }
    get(CARRIED.iter().position(|x| std::ptr::eq(x, c)).unwrap_or(0))?;
    // SAFETY: the object is the writer build.rs made; its symbol has the WriteFn signature.
    unsafe {
        let lib = load_object(w.object, c"dwarv-spirv-writer", c.major)?;
        let sym = libc::dlsym(lib, c"dwarv_spirv_write".as_ptr());
        match sym.is_null() {
            true => Err("the SPIR-V writer lacks dwarv_spirv_write".into()),
            false => Ok(std::mem::transmute::<*mut c_void, WriteFn>(sym)),
        }
    }
}

/// Whether `var` (a comma-separated list of LLVM majors) names `major`.
fn skipped(var: &str, major: u32) -> bool {
    std::env::var(var).is_ok_and(|v| v.split(',').any(|m| m.trim() == major.to_string()))
}

fn open(c: &Carried) -> Result<Shim, String> {
    // DWARV_LLVM_SKIP=19[,15…]: behave as if those LLVMs' libraries were not installed (to see
    // what a machine without them does).
    if skipped("DWARV_LLVM_SKIP", c.major) {
        return Err(format!("{}: skipped (DWARV_LLVM_SKIP)", c.library));
    }
    // SAFETY: the object is the shim build.rs made; its symbols have the signatures above.
    unsafe {
        let lib = load_object(c.object, c"dwarv-llvm-shim", c.major)?;
        let sym = |name: &CStr| {
            let p = libc::dlsym(lib, name.as_ptr());
            match p.is_null() {
                true => Err(format!("the LLVM shim lacks {}", name.to_string_lossy())),
                false => Ok(p),
            }
        };
        Ok(Shim {
            load: std::mem::transmute::<*mut c_void, LoadFn>(sym(c"dwarv_llvm_load")?),
            serialise: std::mem::transmute::<*mut c_void, SerialiseFn>(sym(
                c"dwarv_llvm_serialise",
            )?),
            free: std::mem::transmute::<*mut c_void, FreeFn>(sym(c"dwarv_llvm_free")?),
            split: std::mem::transmute::<*mut c_void, SplitFn>(sym(c"dwarv_llvm_split")?),
            split_module: std::mem::transmute::<*mut c_void, SplitModuleFn>(sym(
                c"dwarv_llvm_split_module",
            )?),
        })
    }
}

/// Writes `object` to an anonymous memory file and `dlopen`s it from there: the library's handle.
///
/// # Safety
/// `object` must be a shared object whose constructors are safe to run in this process.
unsafe fn load_object(object: &[u8], label: &CStr, major: u32) -> Result<*mut c_void, String> {
    use std::io::Write;
    use std::os::fd::{AsRawFd, FromRawFd};
    let last_error = || std::io::Error::last_os_error().to_string();
    // SAFETY: plain libc calls; every pointer passed is a live NUL-terminated string.
    unsafe {
        let fd = libc::memfd_create(label.as_ptr(), libc::MFD_CLOEXEC);
        if fd < 0 {
            return Err(format!("memfd_create: {}", last_error()));
        }
        let mut file = std::fs::File::from_raw_fd(fd);
        file.write_all(object)
            .map_err(|e| format!("writing {}: {e}", label.to_string_lossy()))?;
        let path = CString::new(format!("/proc/self/fd/{}", file.as_raw_fd())).unwrap();
        let lib = libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL);
        if lib.is_null() {
            let why = libc::dlerror();
            return Err(match why.is_null() {
                true => format!("dlopen of {} failed", label.to_string_lossy()),
                false => format!(
                    "loading LLVM {major}: {}",
                    CStr::from_ptr(why).to_string_lossy()
                ),
            });
        }
        // The library stays loaded for the life of the process, and so does its file: the
        // loader knows a library by its path, and a closed descriptor's number (so its
        // /proc/self/fd path) would come back for the next shim, which dlopen would then take
        // for this one, already loaded.
        std::mem::forget(file);
        Ok(lib)
    }
}
