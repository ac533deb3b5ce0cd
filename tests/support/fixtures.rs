//! Fixtures built once per state of the tree: a folder of inputs made by a build step (the
//! corpus, the peer corpus's modules) is kept in `target/fixtures/<name>-<key>/`, where the key
//! hashes what the build reads — its sources, its build script, the environment it is given and
//! the installed tools (Debian's package database and the project-local `.tools/`). A test
//! binary, or a second one running at the same time, finds the folder made and uses it; the
//! first to need a new one builds it aside and renames it into place under a lock.

use std::fs::File;
use std::io::Write as _;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use md5::{Digest, Md5};

/// What a fixture's build depends on, hashed into its folder's name.
#[derive(Default)]
pub struct Key {
    hasher: Md5,
}

impl Key {
    /// A key over the installed tools: Debian's package database (any install or upgrade
    /// changes it) and what `.tools/bin` points at.
    pub fn with_tools() -> Key {
        let mut key = Key::default();
        // The layout of the cache itself: a change to it makes every fixture anew.
        key.text("fixtures 2");
        key.file(Path::new("/var/lib/dpkg/status"));
        let tools = super::tools_dir();
        if let Ok(entries) = std::fs::read_dir(&tools) {
            let mut names: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
            names.sort();
            for p in names {
                key.text(&p.display().to_string());
                if let Ok(m) = std::fs::metadata(&p) {
                    key.text(&format!("{} {:?}", m.len(), m.modified().ok()));
                }
            }
        }
        key
    }

    /// Adds a string (an environment setting, a name).
    pub fn text(&mut self, s: &str) -> &mut Key {
        self.hasher.update((s.len() as u64).to_le_bytes());
        self.hasher.update(s.as_bytes());
        self
    }

    /// Adds one file's path and contents (nothing when it is absent).
    pub fn file(&mut self, path: &Path) -> &mut Key {
        self.text(&path.display().to_string());
        if let Ok(bytes) = std::fs::read(path) {
            self.hasher.update((bytes.len() as u64).to_le_bytes());
            self.hasher.update(&bytes);
        }
        self
    }

    /// Adds every file under `root`, by its path relative to `root`, in sorted order.
    pub fn tree(&mut self, root: &Path) -> &mut Key {
        for p in super::files_under(root, |_| true) {
            let rel = p.strip_prefix(root).unwrap_or(&p).display().to_string();
            self.text(&rel);
            let bytes = std::fs::read(&p).unwrap_or_default();
            self.hasher.update((bytes.len() as u64).to_le_bytes());
            self.hasher.update(&bytes);
        }
        self
    }

    fn hex(&self) -> String {
        let digest = self.hasher.clone().finalize();
        digest[..8].iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// Where fixtures are kept: `target/fixtures`.
fn root() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("CARGO_TARGET_TMPDIR is target/tmp")
        .join("fixtures")
}

/// The suffix of the file beside a fixture's folder that lists what its build made.
const MADE: &str = "made";

/// The folder of fixture `name` for `key`, built by `build` (which fills the folder it is
/// given, or panics) unless a finished one is there. Folders made for earlier states stay (a
/// fixture is a megabyte or two; `cargo clean` removes them), so runs on different states can
/// share the cache at once.
///
/// Panics when the folder holds files its build did not make: a test wrote into it, which it
/// must not (the folder is shared by every test of both tiers and later runs).
pub fn cached(name: &str, key: &Key, build: impl FnOnce(&Path)) -> PathBuf {
    let root = root();
    std::fs::create_dir_all(&root).expect("create target/fixtures");
    let dir = root.join(format!("{name}-{}", key.hex()));
    if !dir.is_dir() {
        let _lock = Lock::take(&root.join(format!("{name}.lock")));
        // Another process may have built it while we waited.
        if !dir.is_dir() {
            let aside = root.join(format!("{name}.building-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&aside);
            std::fs::create_dir_all(&aside).expect("create the fixture's build folder");
            build(&aside);
            std::fs::write(dir.with_extension(MADE), listing(&aside).join("\n")).unwrap();
            std::fs::rename(&aside, &dir).expect("rename the built fixture into place");
        }
    }
    let made = std::fs::read_to_string(dir.with_extension(MADE)).unwrap_or_default();
    let now = listing(&dir);
    let extra: Vec<&String> = now
        .iter()
        .filter(|f| !made.lines().any(|m| m == f.as_str()))
        .collect();
    assert!(
        extra.is_empty(),
        "{}: files its build did not make (a test wrote them; tests write elsewhere): {extra:?}",
        dir.display()
    );
    dir
}

/// The files under `dir`, relative, sorted.
fn listing(dir: &Path) -> Vec<String> {
    super::files_under(dir, |_| true)
        .iter()
        .map(|p| p.strip_prefix(dir).unwrap().display().to_string())
        .collect()
}

/// An exclusive `flock` on a file, released when dropped (or when the process ends).
struct Lock(File);

impl Lock {
    fn take(path: &Path) -> Lock {
        let mut file = File::create(path).expect("create the fixture lock file");
        // SAFETY: flock on a descriptor this File owns for the lock's whole life.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
        assert_eq!(rc, 0, "flock {}", path.display());
        let _ = writeln!(file, "{}", std::process::id());
        Lock(file)
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // SAFETY: unlocks the descriptor locked in `take`.
        unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_UN) };
    }
}
