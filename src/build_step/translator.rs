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

/// What the program route passes for SPIR-V 1.4 when the user names no maximum version: the
/// translator builds of the PyPI `dpcpp-llvm-spirv` write SPIR-V 1.4 entry points that do not
/// list every global they use, which spirv-val rejects; up to 1.3 that list is not required.
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

    /// The program's arguments for these options; the maximum version defaults to
    /// [`PROGRAM_MAX_VERSION`].
    pub fn program_args(&self) -> Vec<String> {
        let mut args: Vec<String> = (self.pairs().into_iter())
            .map(|(key, value)| match (key, value.is_empty()) {
                ("allow-unknown-intrinsics", true) => format!("--spirv-{key}"),
                _ => format!("--spirv-{key}={value}"),
            })
            .collect();
        if self.max_version.is_none() {
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
            // A translator that stops reading (it refused the input) closes the pipe: its exit
            // status says why.
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
