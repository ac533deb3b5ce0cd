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

/// The shim's entry points.
pub struct Shim {
    pub load: LoadFn,
    pub serialise: SerialiseFn,
    pub free: FreeFn,
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

fn open(c: &Carried) -> Result<Shim, String> {
    // DWARV_LLVM_SKIP=19[,15…]: behave as if those LLVMs' libraries were not installed (to see
    // what a machine without them does).
    if std::env::var("DWARV_LLVM_SKIP")
        .is_ok_and(|v| v.split(',').any(|m| m.trim() == c.major.to_string()))
    {
        return Err(format!("{}: skipped (DWARV_LLVM_SKIP)", c.library));
    }
    use std::io::Write;
    use std::os::fd::{AsRawFd, FromRawFd};
    let last_error = || std::io::Error::last_os_error().to_string();
    // SAFETY: plain libc calls; every pointer passed is a live NUL-terminated string, and the
    // symbols are cast to the signatures bridge.cpp defines them with.
    unsafe {
        let fd = libc::memfd_create(c"dwarv-llvm-shim".as_ptr(), libc::MFD_CLOEXEC);
        if fd < 0 {
            return Err(format!("memfd_create: {}", last_error()));
        }
        let mut file = std::fs::File::from_raw_fd(fd);
        file.write_all(c.object)
            .map_err(|e| format!("writing the LLVM shim: {e}"))?;
        let path = CString::new(format!("/proc/self/fd/{}", file.as_raw_fd())).unwrap();
        let lib = libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL);
        if lib.is_null() {
            let why = libc::dlerror();
            return Err(match why.is_null() {
                true => "dlopen of the LLVM shim failed".into(),
                false => format!(
                    "loading LLVM {}: {}",
                    c.major,
                    CStr::from_ptr(why).to_string_lossy()
                ),
            });
        }
        // The library stays loaded for the life of the process, and so does its file: the
        // loader knows a library by its path, and a closed descriptor's number (so its
        // /proc/self/fd path) would come back for the next shim, which dlopen would then take
        // for this one, already loaded.
        std::mem::forget(file);
        let sym = |name: &CStr| {
            let p = libc::dlsym(lib, name.as_ptr());
            match p.is_null() {
                true => Err(format!("the LLVM shim lacks {}", name.to_string_lossy())),
                false => Ok(p),
            }
        };
        let load = sym(c"dwarv_llvm_load")?;
        let serialise = sym(c"dwarv_llvm_serialise")?;
        let free = sym(c"dwarv_llvm_free")?;
        Ok(Shim {
            load: std::mem::transmute::<*mut c_void, LoadFn>(load),
            serialise: std::mem::transmute::<*mut c_void, SerialiseFn>(serialise),
            free: std::mem::transmute::<*mut c_void, FreeFn>(free),
        })
    }
}
