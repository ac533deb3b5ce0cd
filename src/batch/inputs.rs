//! The inputs of a batch: expanding the arguments (files, directories, `@LIST` files), naming
//! each input's output under the output directory so that it can never land outside it, and
//! picking a shard.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};

/// One input of a batch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    /// The path as named (an argument, a line of a list, or found under a directory argument).
    pub path: PathBuf,
    /// The mirrored path under the output directory, before the target's extension: only
    /// normal components, never `..` or a root.
    pub rel: PathBuf,
    /// Found by walking a directory: a file of no known format is passed over, not a failure.
    pub walked: bool,
    /// Why the input cannot be converted before it is even read (no output name for it).
    pub problem: Option<String>,
}

/// Expands the batch arguments, in order, without duplicates (the first naming of a path wins).
/// A directory is walked recursively (symbolic links to directories are not followed; links to
/// files are inputs like any file), its entries sorted by name so every run sees the same order.
pub fn expand(args: &[String]) -> Result<Vec<Item>> {
    let mut items = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut push = |path: PathBuf, walked: bool, items: &mut Vec<Item>| -> Result<()> {
        let (rel, problem) = match mirror(&path) {
            Ok(rel) => (rel, None),
            Err(e) => (path.clone(), Some(e.to_string())),
        };
        if seen.insert(rel.clone()) {
            items.push(Item {
                path,
                rel,
                walked,
                problem,
            });
        }
        Ok(())
    };
    for arg in args {
        if let Some(list) = arg.strip_prefix('@') {
            for path in read_list(list)? {
                push(path, false, &mut items)?;
            }
            continue;
        }
        let path = PathBuf::from(arg);
        // A path that cannot be examined is still an input: its record says why it failed.
        if !std::fs::metadata(&path).is_ok_and(|m| m.is_dir()) {
            push(path, false, &mut items)?;
            continue;
        }
        let walk = walkdir::WalkDir::new(&path)
            .follow_links(false)
            .sort_by_file_name();
        for entry in walk {
            match entry {
                Ok(e) if e.file_type().is_file() || (e.path_is_symlink() && e.path().is_file()) => {
                    push(e.into_path(), true, &mut items)?
                }
                Ok(_) => {}
                // An unreadable directory entry fails as an input of its own.
                Err(e) => match e.path() {
                    Some(p) => push(p.to_path_buf(), false, &mut items)?,
                    None => {
                        return Err(Error::Io {
                            path: arg.clone(),
                            source: e.into(),
                        })
                    }
                },
            }
        }
    }
    Ok(items)
}

/// The paths of a list file: one a line; blank lines and lines starting with `#` are skipped.
/// Relative paths are relative to the current directory, as on the command line.
fn read_list(list: &str) -> Result<Vec<PathBuf>> {
    let text = std::fs::read_to_string(list).map_err(|source| Error::Io {
        path: list.to_string(),
        source,
    })?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(PathBuf::from)
        .collect())
}

/// The path an input's output mirrors under the output directory: the input path with `.`
/// removed and `a/..` folded; an absolute path loses its root, and a path that climbs above the
/// current directory is made absolute (resolving links) first, so `..` never remains.
pub fn mirror(path: &Path) -> Result<PathBuf> {
    let lexical = fold(path);
    let climbs = matches!(lexical.components().next(), Some(Component::ParentDir));
    let full = if climbs {
        fold(&std::fs::canonicalize(path).map_err(|source| Error::Io {
            path: path.display().to_string(),
            source,
        })?)
    } else {
        lexical
    };
    let rel: PathBuf = full
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n),
            _ => None,
        })
        .collect();
    if rel.as_os_str().is_empty() {
        return Err(Error::Usage(format!(
            "{}: not a file name that can be mirrored under the output directory",
            path.display()
        )));
    }
    Ok(rel)
}

/// Lexical normalisation: drops `.` and folds `name/..`; leading `..` are kept.
fn fold(path: &Path) -> PathBuf {
    let mut out: Vec<Component> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            _ => out.push(c),
        }
    }
    out.iter().collect()
}

/// The output file of `rel` under `out_dir`, with the target's extension replacing the input's.
pub fn output_path(out_dir: &Path, rel: &Path, extension: &str) -> PathBuf {
    out_dir.join(rel).with_extension(extension)
}

/// Refuses an output path that would leave `out_dir` through a symbolic link: no existing
/// component below `out_dir` may be a link (the file itself is replaced by a rename, which
/// replaces a link rather than following it). Missing directories are created.
pub fn prepare_output(out_dir: &Path, output: &Path) -> Result<()> {
    let rel = output.strip_prefix(out_dir).map_err(|_| {
        Error::Usage(format!(
            "{} is not under {}",
            output.display(),
            out_dir.display()
        ))
    })?;
    let mut at = out_dir.to_path_buf();
    let parts: Vec<_> = rel.components().collect();
    for (i, c) in parts.iter().enumerate() {
        let Component::Normal(name) = c else {
            return Err(Error::Usage(format!(
                "{}: output path component `{}` is not a plain name",
                output.display(),
                c.as_os_str().to_string_lossy()
            )));
        };
        at.push(name);
        let last = i + 1 == parts.len();
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() && !last => {
                return Err(Error::Usage(format!(
                    "{}: refusing to write through the symbolic link {}",
                    output.display(),
                    at.display()
                )))
            }
            Ok(m) if !last && !m.is_dir() => {
                return Err(Error::Usage(format!(
                    "{}: {} exists and is not a directory",
                    output.display(),
                    at.display()
                )))
            }
            Ok(_) => {}
            Err(_) if !last => std::fs::create_dir(&at)
                .or_else(|e| match at.is_dir() {
                    // Another job created it meanwhile.
                    true => Ok(()),
                    false => Err(e),
                })
                .map_err(|source| Error::Io {
                    path: at.display().to_string(),
                    source,
                })?,
            Err(_) => {}
        }
    }
    Ok(())
}

/// A shard `K/N`: this run takes the inputs whose mirrored path hashes to K modulo N.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Shard, String> {
        let bad = || format!("`{s}`: expected K/N with 0 <= K < N, e.g. 0/4");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// Whether the input with this mirrored path belongs to the shard. The hash (FNV-1a, 64 bits)
    /// is of the mirrored path's bytes with `/` separators, so it does not depend on the input
    /// order, on the machine or on the Rust version.
    pub fn takes(&self, rel: &Path) -> bool {
        let parts: Vec<_> = rel.iter().map(|p| p.to_string_lossy()).collect();
        let h = crate::hash::fnv1a(crate::hash::FNV_OFFSET_BASIS, parts.join("/").bytes());
        h % u64::from(self.count) == u64::from(self.index)
    }
}

/// Outputs two inputs would both write: later inputs (in argument order) lose. Returns, per
/// index of a losing item, the index of the item that keeps the output.
pub fn collisions(outputs: &[Option<PathBuf>]) -> BTreeMap<usize, usize> {
    let mut first: std::collections::HashMap<&PathBuf, usize> = Default::default();
    let mut lost = BTreeMap::new();
    for (i, o) in outputs.iter().enumerate() {
        let Some(o) = o else { continue };
        match first.get(o) {
            Some(&j) => {
                lost.insert(i, j);
            }
            None => {
                first.insert(o, i);
            }
        }
    }
    lost
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirror_never_climbs_or_roots() {
        assert_eq!(
            mirror(Path::new("a/./b/../c.spv")).unwrap(),
            Path::new("a/c.spv")
        );
        assert_eq!(mirror(Path::new("/x/y.spv")).unwrap(), Path::new("x/y.spv"));
        assert_eq!(
            mirror(Path::new("/../../y.spv")).unwrap(),
            Path::new("y.spv")
        );
        // Climbing paths become absolute (this one exists: the crate's directory).
        let up = mirror(Path::new("../main/Cargo.toml"));
        if let Ok(p) = up {
            assert!(p.components().all(|c| matches!(c, Component::Normal(_))));
        }
        assert!(mirror(Path::new("/")).is_err());
        assert!(mirror(Path::new(".")).is_err());
    }

    #[test]
    fn shards_partition() {
        let s: Vec<Shard> = (0..3).map(|k| format!("{k}/3").parse().unwrap()).collect();
        for i in 0..500 {
            let p = PathBuf::from(format!("dir{}/shader{i}.spv", i % 7));
            assert_eq!(s.iter().filter(|sh| sh.takes(&p)).count(), 1);
        }
        assert!("3/3".parse::<Shard>().is_err());
        assert!("1/0".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().is_err());
    }

    #[test]
    fn later_collisions_lose() {
        let o: Vec<Option<PathBuf>> = ["a.spv", "b.spv", "a.spv"]
            .iter()
            .map(|p| Some(PathBuf::from(p)))
            .collect();
        assert_eq!(collisions(&o).into_iter().collect::<Vec<_>>(), vec![(2, 0)]);
    }
}
