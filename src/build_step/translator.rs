//! The SPIR-V translator as a program, for modules whose LLVM has no translator library here
//! (LLVM 19 on Debian bookworm) or when the user names one (`--translator`): the stripped
//! bitcode goes in through a pipe, the SPIR-V comes out through another. No file is written.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::error::Error;

/// The translator's options, as the flags of the same names of its command line (`llvm-spirv`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TranslatorFlags {
    /// `--spirv-ext=+SPV_X,-SPV_Y,+all…`
    pub ext: Option<String>,
    /// `--spirv-max-version=1.0…1.4`
    pub max_version: Option<String>,
    /// `--spirv-allow-unknown-intrinsics[=prefix,…]`: `Some("")` allows every unknown intrinsic.
    pub allow_unknown_intrinsics: Option<String>,
    /// `--spirv-fp-contract=on|off|fast`
    pub fp_contract: Option<String>,
}

/// The maximum version the program route passes to a translator other than the reading LLVM's
/// own (`llvm-spirv-N`) when the user names none: the PyPI `dpcpp-llvm-spirv` builds write
/// SPIR-V 1.4 entry points that do not list every global they use, which spirv-val rejects;
/// up to 1.3 that list is not required.
pub const PROGRAM_MAX_VERSION: &str = "1.3";

impl TranslatorFlags {
    /// The `key=value` lines the in-process writer reads (llvm-bridge's `Writer::Spirv`).
    pub fn library_options(&self) -> String {
        let mut out = String::new();
        for (key, value) in self.pairs() {
            out += &format!("{key}={value}\n");
        }
        out
    }

    /// The program's arguments for these options; unless `own` (the program is the reading
    /// LLVM's own translator), the maximum version defaults to [`PROGRAM_MAX_VERSION`].
    pub fn program_args(&self, own: bool) -> Vec<String> {
        let mut args: Vec<String> = (self.pairs().into_iter())
            .map(|(key, value)| match (key, value.is_empty()) {
                ("allow-unknown-intrinsics", true) => format!("--spirv-{key}"),
                _ => format!("--spirv-{key}={value}"),
            })
            .collect();
        if self.max_version.is_none() && !own {
            args.push(format!("--spirv-max-version={PROGRAM_MAX_VERSION}"));
        }
        args
    }

    fn pairs(&self) -> Vec<(&'static str, &str)> {
        [
            ("ext", &self.ext),
            ("max-version", &self.max_version),
            ("allow-unknown-intrinsics", &self.allow_unknown_intrinsics),
            ("fp-contract", &self.fp_contract),
        ]
        .into_iter()
        .filter_map(|(key, value)| Some((key, value.as_deref()?)))
        .collect()
    }
}

/// The translator program for modules of LLVM `major`: `given` (`--translator`), else the first
/// on PATH of `llvm-spirv-N` (Debian's build of that LLVM), `llvm-spirv-dpcpp` (the PyPI
/// `dpcpp-llvm-spirv` build, linked under that name by scripts/setup.sh) and `llvm-spirv`.
/// A newer translator reads an older LLVM's bitcode; an older one refuses a newer one's.
pub fn find(given: Option<&Path>, major: u32) -> Result<PathBuf, Error> {
    if let Some(path) = given {
        return match path.components().count() > 1 || path.is_file() {
            true if path.is_file() => Ok(path.to_path_buf()),
            true => Err(missing(&format!(
                "--translator {}: no such file",
                path.display()
            ))),
            false => on_path(&path.to_string_lossy())
                .ok_or_else(|| missing(&format!("--translator {}: not on PATH", path.display()))),
        };
    }
    let names = [
        format!("llvm-spirv-{major}"),
        "llvm-spirv-dpcpp".to_string(),
        "llvm-spirv".to_string(),
    ];
    names.iter().find_map(|n| on_path(n)).ok_or_else(|| {
        missing(&format!(
            "no SPIR-V translator for LLVM {major} modules: this dwarv has no translator \
             library of LLVM {major}, and none of {} is on PATH; install one (pip install \
             dpcpp-llvm-spirv, then link its dpcpp_llvm_spirv/bin/llvm-spirv as \
             llvm-spirv-dpcpp) or pass --translator PATH",
            names.join(", ")
        ))
    })
}

fn missing(message: &str) -> Error {
    Error::Usage(message.to_string())
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Whether `program` is LLVM `major`'s own translator (`llvm-spirv-N`, by its file name).
pub fn is_own(program: &Path, major: u32) -> bool {
    program
        .file_name()
        .is_some_and(|n| n.to_string_lossy() == format!("llvm-spirv-{major}"))
}

/// Runs `program` on `bitcode` (stdin) with `args`: the SPIR-V it writes to stdout.
pub fn run(program: &Path, args: &[String], bitcode: &[u8]) -> Result<Vec<u8>, Error> {
    let name = program.display().to_string();
    let failed = |message: String| Error::Translator {
        translator: name.clone(),
        message,
    };
    let mut child = Command::new(program)
        .args(args)
        .args(["-", "-o", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| failed(format!("cannot be run: {e}")))?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let (spirv, messages) = std::thread::scope(|s| {
        // The bitcode goes in while the SPIR-V and the messages come out: a translator that
        // writes before it has read everything must not block on a full pipe.
        let feeder = s.spawn(move || {
            // A translator that stops reading (it refused the input, or died) closes the pipe:
            // its exit status says why. The write must then fail with EPIPE rather than raise
            // SIGPIPE, which ends a process that keeps the default action (the CLI does).
            block_sigpipe_in_this_thread();
            let _ = stdin.write_all(bitcode);
        });
        let messages = s.spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        let mut spirv = Vec::new();
        let read = child
            .stdout
            .take()
            .expect("piped stdout")
            .read_to_end(&mut spirv);
        let _ = feeder.join();
        let messages = messages.join().unwrap_or_default();
        (read.map(|_| spirv), messages)
    });
    let status = child
        .wait()
        .map_err(|e| failed(format!("cannot be waited for: {e}")))?;
    let said = messages.lines().take(3).collect::<Vec<_>>().join(" / ");
    if !status.success() {
        let how = match status.code() {
            Some(code) => format!("exit status {code}"),
            None => {
                use std::os::unix::process::ExitStatusExt;
                format!("signal {}", status.signal().unwrap_or(0))
            }
        };
        return Err(failed(match said.is_empty() {
            true => format!("failed ({how})"),
            false => format!("failed ({how}): {said}"),
        }));
    }
    let spirv = spirv.map_err(|e| failed(format!("reading its output: {e}")))?;
    if spirv.len() < 20 || spirv[..4] != [0x03, 0x02, 0x23, 0x07] {
        return Err(failed(format!(
            "wrote no SPIR-V module ({} bytes){}",
            spirv.len(),
            match said.is_empty() {
                true => String::new(),
                false => format!(": {said}"),
            }
        )));
    }
    Ok(spirv)
}

/// Blocks SIGPIPE for the calling thread: a write to a closed pipe then fails with EPIPE. The
/// signal such a write raises is directed at the writing thread, so the rest of the process is
/// untouched.
fn block_sigpipe_in_this_thread() {
    // SAFETY: a signal mask of the calling thread, built from an emptied set.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGPIPE);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}
