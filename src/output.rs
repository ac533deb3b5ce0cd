//! Writing outputs atomically: a temporary file beside the target, renamed over it only when
//! complete, so a failed run never leaves a partial file.

use std::io::Write;
use std::path::Path;

use crate::error::{Error, Result};

/// Writes `bytes` to `path` (stdout for `-`).
pub fn write_atomic(path: &str, bytes: &[u8]) -> Result<()> {
    let io = |source| Error::Io {
        path: path.to_string(),
        source,
    };
    if path == "-" {
        let mut out = std::io::stdout().lock();
        return match out.write_all(bytes).and_then(|_| out.flush()) {
            // A reader that stopped early (`dwarv dump x | head`) is not an error.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            other => other.map_err(io),
        };
    }
    let target = Path::new(path);
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".dwarv-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(io)?;
    tmp.write_all(bytes).map_err(io)?;
    tmp.as_file().sync_all().map_err(io)?;
    tmp.persist(target).map_err(|e| io(e.error))?;
    Ok(())
}
