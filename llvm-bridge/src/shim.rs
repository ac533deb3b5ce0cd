//! The C++ shim (shim/bridge.cpp, linked to libLLVM by build.rs) is embedded in the crate and
//! loaded the first time a module is read: written to an anonymous memory file and `dlopen`ed
//! from there. Linking it into the executable would load libLLVM, with its relocations and static
//! constructors (~15 ms), into every dwarv process, LLVM input or not.

use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::OnceLock;

static OBJECT: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libdwarv_llvm_shim.so"));

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
/// `dwarv_llvm_free`.
type FreeFn = unsafe extern "C" fn(handle: *mut c_void);

/// The shim's entry points.
pub struct Shim {
    pub load: LoadFn,
    pub free: FreeFn,
}

/// The loaded shim, or why it cannot be loaded (libLLVM 14 missing, no memfd…).
pub fn get() -> Result<&'static Shim, String> {
    static SHIM: OnceLock<Result<Shim, String>> = OnceLock::new();
    SHIM.get_or_init(open).as_ref().map_err(Clone::clone)
}

fn open() -> Result<Shim, String> {
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
        file.write_all(OBJECT)
            .map_err(|e| format!("writing the LLVM shim: {e}"))?;
        let path = CString::new(format!("/proc/self/fd/{}", file.as_raw_fd())).unwrap();
        let lib = libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL);
        if lib.is_null() {
            let why = libc::dlerror();
            return Err(match why.is_null() {
                true => "dlopen of the LLVM shim failed".into(),
                false => format!("loading LLVM 14: {}", CStr::from_ptr(why).to_string_lossy()),
            });
        }
        // The library stays loaded for the life of the process; its file may go.
        drop(file);
        let sym = |name: &CStr| {
            let p = libc::dlsym(lib, name.as_ptr());
            match p.is_null() {
                true => Err(format!("the LLVM shim lacks {}", name.to_string_lossy())),
                false => Ok(p),
            }
        };
        let load = sym(c"dwarv_llvm_load")?;
        let free = sym(c"dwarv_llvm_free")?;
        Ok(Shim {
            load: std::mem::transmute::<*mut c_void, LoadFn>(load),
            free: std::mem::transmute::<*mut c_void, FreeFn>(free),
        })
    }
}
