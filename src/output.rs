//! Writing outputs atomically: a temporary file beside the target, renamed over it only when
//! complete, so a failed run never leaves a partial file. Outputs get the mode a compiler's do:
//! 0666 less the umask for a new file, the replaced file's own mode otherwise; messages name the
//! path the user gave, never the temporary file.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::error::{Error, Result};

/// When a written file reaches the disk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Durability {
    /// Before the call returns (fsync of the file).
    #[default]
    Now,
    /// Later, by one [`sync_filesystem`] for many files (a batch): the rename is still atomic,
    /// so no reader ever sees a partial file.
    Deferred,
}

/// A file's contents as parts written one after another: a binary with its debug sections
/// replaced is mostly the input's own bytes, written from where they are (mapped) rather than
/// copied into one buffer first.
#[derive(Debug, Default)]
pub struct Parts<'a> {
    parts: Vec<std::borrow::Cow<'a, [u8]>>,
    len: usize,
}

impl<'a> Parts<'a> {
    pub fn push(&mut self, part: impl Into<std::borrow::Cow<'a, [u8]>>) {
        let part = part.into();
        self.len += part.len();
        self.parts.push(part);
    }

    /// Zero bytes up to a multiple of `align`.
    pub fn pad_to(&mut self, align: u64) {
        let align = align.max(1);
        let pad = (align - self.len as u64 % align) % align;
        if pad > 0 {
            self.push(vec![0u8; pad as usize]);
        }
    }

    /// The bytes of the whole, counted.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Part `i` as a buffer of its own, to patch.
    pub fn part_mut(&mut self, i: usize) -> Option<&mut Vec<u8>> {
        self.parts.get_mut(i).map(std::borrow::Cow::to_mut)
    }

    pub fn write_to(&self, out: &mut dyn Write) -> std::io::Result<()> {
        self.parts.iter().try_for_each(|p| out.write_all(p))
    }

    pub fn into_vec(self) -> Vec<u8> {
        match <[_; 1]>::try_from(self.parts) {
            Ok([only]) => only.into_owned(),
            Err(parts) => parts.concat(),
        }
    }
}

impl From<Vec<u8>> for Parts<'_> {
    fn from(bytes: Vec<u8>) -> Self {
        let mut p = Parts::default();
        p.push(bytes);
        p
    }
}

/// Writes `bytes` to `path` (stdout for `-`), durably.
pub fn write_atomic(path: &str, bytes: &[u8]) -> Result<()> {
    write_file(path, bytes, Durability::Now)
}

/// Writes `bytes` to `path` (stdout for `-`) through a temporary file renamed into place.
pub fn write_file(path: &str, bytes: &[u8], durability: Durability) -> Result<()> {
    write_file_with(path, durability, |out| out.write_all(bytes))
}

/// The same, with the contents written by `fill` (in parts: no need to join them first).
pub fn write_file_with(
    path: &str,
    durability: Durability,
    fill: impl Fn(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let io = |source| Error::Io {
        path: path.to_string(),
        source,
    };
    if path == "-" {
        let mut out = std::io::stdout().lock();
        return match fill(&mut out).and_then(|_| out.flush()) {
            // A reader that stopped early (`dwarv dump x | head`) is not an error.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            other => other.map_err(io),
        };
    }
    let target = Path::new(path);
    // A device or FIFO (`-o /dev/null`) is written in place: renaming a file over it would
    // replace the device for every program on the machine.
    if std::fs::metadata(target).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .open(target)
            .map_err(io)?;
        return fill(&mut f).and_then(|_| f.flush()).map_err(io);
    }
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(io(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("its directory {} does not exist", dir.display()),
        )));
    }
    // Created as open(2) with 0666 creates a compiler's output: the umask applies.
    let mut tmp = tempfile::Builder::new()
        .prefix(".dwarv-")
        .suffix(".tmp")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .map_err(|e| io(without_temporary_path(e)))?;
    // A file replaced (the input itself, too) keeps its mode.
    if let Some(meta) = std::fs::metadata(target).ok().filter(|m| m.is_file()) {
        tmp.as_file()
            .set_permissions(meta.permissions())
            .map_err(io)?;
    }
    // Large parts go straight through; small ones (patched words) are gathered.
    let mut buffered = std::io::BufWriter::with_capacity(1 << 16, tmp.as_file_mut());
    fill(&mut buffered)
        .and_then(|_| buffered.flush())
        .map_err(io)?;
    drop(buffered);
    if durability == Durability::Now {
        tmp.as_file().sync_all().map_err(io)?;
    }
    tmp.persist(target)
        .map_err(|e| io(without_temporary_path(e.error)))?;
    Ok(())
}

/// tempfile's error names the temporary file ("… at path \"dir/.dwarv-Ub1UJY.tmp\""), which the
/// user never chose: keep only the system's message, reported at the output's own path.
fn without_temporary_path(e: std::io::Error) -> std::io::Error {
    let text = e.to_string();
    match text.split_once(" at path \"") {
        Some((message, _)) => std::io::Error::new(e.kind(), message.to_string()),
        None => e,
    }
}

/// Flushes every written file of the filesystem that holds `dir` to disk (one `syncfs`, where
/// per-file fsyncs would serialise parallel writers).
pub fn sync_filesystem(dir: &Path) -> Result<()> {
    use std::os::fd::AsRawFd;
    let io = |source| Error::Io {
        path: dir.display().to_string(),
        source,
    };
    let d = std::fs::File::open(dir).map_err(io)?;
    // SAFETY: `d` is an open file descriptor for the duration of the call.
    if unsafe { libc::syncfs(d.as_raw_fd()) } != 0 {
        return Err(io(std::io::Error::last_os_error()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_is_written_in_place_not_replaced() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("out");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        write_atomic(fifo.to_str().unwrap(), b"dwarv").unwrap();
        assert_eq!(reader.join().unwrap(), b"dwarv");
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    }
}
