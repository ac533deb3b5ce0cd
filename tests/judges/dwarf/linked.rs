//! Covers src/front/dwarf/, src/back/dwarf/ (--into linked programs).
//!
//! Linked programs through DWARF: executables and shared libraries made of several
//! units — corpus/src prog.c, optimized.c and linked.c plus the sqlite amalgamation (from the
//! libsqlite3-sys crate, fetched by cargo) — built at test time by clang-14 and clang-19 (-O0
//! and -O2, DWARF 4 and 5) and gcc-12 (-O2: hot/cold splitting, location views, entry values).
//! On each: `roundtrip --via dwarf`; `convert --into` the program itself, whose output must
//! verify (llvm-dwarfdump 14 and 19), be no larger than the input with its debug sections
//! swapped, keep every other section's bytes, still run, and tell gdb the same as the input:
//! where `break F` lands for a sample of functions, and `info line` and `info scope` (at each
//! of a function's locations) for a few — at -O0 and -O2 alike, every output the same. DWARF 5
//! output is at most 1.05× the compiler's debug bytes.
//!
//! sqlite's objects are compiled once per configuration and kept in
//! target/tmp/dwarf_linked (a -O2 build takes about half a minute).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::{dwarv, run_ok, tool};

/// A compiler and its flags: one linked executable and one shared library each.
struct Config {
    cc: &'static str,
    opt: &'static str,
    /// `-gdwarf-N`; gcc-12's default (DWARF 5) when None.
    dwarf: Option<&'static str>,
}

impl Config {
    fn tag(&self) -> String {
        format!("{}{}{}", self.cc, self.opt, self.dwarf.unwrap_or("-gdwarf"))
    }
    fn flags(&self) -> Vec<&'static str> {
        let mut v = vec!["-g", self.opt, "-fPIC"];
        v.extend(self.dwarf);
        v
    }
    /// Whether the units are DWARF 5 (`-gdwarf-5`, or gcc-12's default).
    fn dwarf5(&self) -> bool {
        matches!(self.dwarf, None | Some("-gdwarf-5"))
    }
    /// gcc at -O2: `llvm-dwarfdump --verify` takes many minutes over its sqlite (input and
    /// output alike), so `into` leaves it out there.
    fn gcc_optimized(&self) -> bool {
        self.cc.starts_with("gcc") && self.opt != "-O0"
    }
}

const CONFIGS: &[Config] = &[
    Config {
        cc: "clang-14",
        opt: "-O0",
        dwarf: Some("-gdwarf-4"),
    },
    Config {
        cc: "clang-14",
        opt: "-O0",
        dwarf: Some("-gdwarf-5"),
    },
    Config {
        cc: "clang-14",
        opt: "-O2",
        dwarf: Some("-gdwarf-4"),
    },
    Config {
        cc: "clang-14",
        opt: "-O2",
        dwarf: Some("-gdwarf-5"),
    },
    Config {
        cc: "clang-19",
        opt: "-O0",
        dwarf: Some("-gdwarf-4"),
    },
    Config {
        cc: "clang-19",
        opt: "-O0",
        dwarf: Some("-gdwarf-5"),
    },
    Config {
        cc: "clang-19",
        opt: "-O2",
        dwarf: Some("-gdwarf-4"),
    },
    Config {
        cc: "clang-19",
        opt: "-O2",
        dwarf: Some("-gdwarf-5"),
    },
    Config {
        cc: "gcc-12",
        opt: "-O2",
        dwarf: None,
    },
];

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn work() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("dwarf_linked");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// sqlite3.c of the crate libsqlite3-sys 0.30.1, fetched by cargo through a throwaway
/// manifest (so a mirror or vendor directory cargo is configured for serves it too), as
/// bench/run.sh gets it.
fn sqlite_source() -> PathBuf {
    let dir = work().join("fetch-sqlite");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/lib.rs"), "").unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        "[package]\nname = \"fetch-sqlite\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
         publish = false\n\n[dependencies]\n\
         libsqlite3-sys = { version = \"=0.30.1\", features = [\"bundled\"] }\n\n[workspace]\n",
    )
    .unwrap();
    run_ok(
        Command::new(env!("CARGO"))
            .args(["fetch", "--quiet", "--manifest-path"])
            .arg(dir.join("Cargo.toml")),
    );
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cargo"));
    let in_registry = |sub: &str| -> Option<PathBuf> {
        std::fs::read_dir(home.join("registry").join(sub))
            .ok()?
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .find(|p| {
                p.join(format!("libsqlite3-sys-0.30.1{}", tail(sub)))
                    .exists()
            })
            .map(|p| p.join(format!("libsqlite3-sys-0.30.1{}", tail(sub))))
    };
    fn tail(sub: &str) -> &'static str {
        if sub == "src" {
            "/sqlite3/sqlite3.c"
        } else {
            ".crate"
        }
    }
    if let Some(src) = in_registry("src") {
        return src;
    }
    // Downloaded but not unpacked: take the file from the crate archive.
    let krate = in_registry("cache").expect("cargo fetched libsqlite3-sys 0.30.1");
    run_ok(
        Command::new("tar")
            .arg("-xzf")
            .arg(&krate)
            .arg("-C")
            .arg(&dir)
            .arg("libsqlite3-sys-0.30.1/sqlite3/sqlite3.c"),
    );
    dir.join("libsqlite3-sys-0.30.1/sqlite3/sqlite3.c")
}

/// sqlite compiled for `c`, cached across runs (written aside, then renamed).
fn sqlite_object(c: &Config) -> PathBuf {
    let obj = work().join(format!("sqlite3.{}.o", c.tag()));
    if !obj.exists() {
        let src = sqlite_source();
        let part = obj.with_extension("part.o");
        let t = std::time::Instant::now();
        run_ok(
            Command::new(tool(c.cc))
                .args(c.flags())
                .arg("-c")
                .arg(&src)
                .arg("-o")
                .arg(&part),
        );
        eprintln!("compiled sqlite3.c ({}) in {:.1?}", c.tag(), t.elapsed());
        std::fs::rename(&part, &obj).unwrap();
    }
    obj
}

/// The programs of one configuration.
struct Programs {
    dir: PathBuf,
    exe: PathBuf,
    lib: PathBuf,
    /// An executable of prog.c that loads `lib` (found through LD_LIBRARY_PATH).
    host: PathBuf,
}

fn build(c: &Config) -> Programs {
    let sqlite = sqlite_object(c);
    let dir = work().join(c.tag());
    std::fs::create_dir_all(&dir).unwrap();
    let src = crate::support::repo_root().join("corpus/src");
    let obj = |name: &str| dir.join(format!("{name}.o"));
    for name in ["prog", "optimized", "linked"] {
        run_ok(
            Command::new(tool(c.cc))
                .current_dir(&src)
                .args(c.flags())
                .args(["-c", &format!("{name}.c"), "-o"])
                .arg(obj(name)),
        );
    }
    let cc = || Command::new(tool(c.cc));
    let exe = dir.join("linked");
    run_ok(
        cc().arg("-o")
            .arg(&exe)
            .args([obj("prog"), obj("optimized"), obj("linked"), sqlite.clone()])
            .args(["-lm", "-lpthread"]),
    );
    let lib = dir.join("liblinked.so");
    run_ok(
        cc().args(["-shared", "-o"])
            .arg(&lib)
            .args([obj("optimized"), obj("linked"), sqlite])
            .args(["-lm", "-lpthread"]),
    );
    let host = dir.join("host");
    run_ok(
        cc().arg("-o")
            .arg(&host)
            .arg(obj("prog"))
            .arg(format!("-L{}", dir.display()))
            .args(["-Wl,--no-as-needed", "-llinked"]),
    );
    Programs {
        dir,
        exe,
        lib,
        host,
    }
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr)
}

/// `dwarv roundtrip P --via dwarf`: exit 0 with no ledger line, on every program. (gcc -O2
/// tested the most: its clones, location views with the empty location-list entries they pair
/// with, call sites and labels in inlined code and in blocks without code.)
fn roundtrip(p: &Path) {
    let o = dwarv(&["roundtrip", s(p), "--via", "dwarf"]);
    let out = text(&o);
    assert!(
        o.status.success() && out.trim().is_empty(),
        "{}: roundtrip: {}",
        p.display(),
        out.lines().take(40).collect::<Vec<_>>().join("\n")
    );
}

/// Every message of `llvm-dwarfdump-N --verify`, "No errors." for a clean file.
fn verify_errors(dwarfdump: &str, file: &Path) -> Vec<String> {
    let o = Command::new(tool(dwarfdump))
        .arg("--verify")
        .arg(file)
        .output()
        .unwrap();
    let t = text(&o);
    t.lines()
        .filter(|l| l.starts_with("error:"))
        .map(|l| l.replace(s(file), "FILE"))
        .collect()
}

/// Debug bytes, and every other section (index, name, address, bytes), of an ELF file.
type Section = (usize, String, u64, Vec<u8>);
fn sections(file: &Path) -> (u64, Vec<Section>) {
    use object::{Object, ObjectSection};
    let data = std::fs::read(file).unwrap();
    let f = object::File::parse(&*data).unwrap();
    let mut debug = 0;
    let mut rest = Vec::new();
    for sec in f.sections() {
        let name = sec.name().unwrap_or_default().to_string();
        if name.starts_with(".debug_") {
            debug += sec.size();
        } else if !name.is_empty() && name != ".shstrtab" {
            let bytes = sec.data().unwrap_or_default().to_vec();
            rest.push((sec.index().0, name, sec.address(), bytes));
        }
    }
    (debug, rest)
}

/// `convert P --to dwarf --into P`: verified, compact, every other section unchanged.
fn into(c: &Config, p: &Path) -> PathBuf {
    let out = p.with_extension("dwarv");
    let out = if out == p {
        p.with_file_name("dwarv.out")
    } else {
        out
    };
    let rep = crate::support::convert_report(p, &out, &["--to", "dwarf", "--into", s(p)]);
    assert!(rep["status"] == "ok", "{}: {rep}", p.display());
    let verifiers: &[&str] = match c.gcc_optimized() {
        true => &[],
        false => &["llvm-dwarfdump-14", "llvm-dwarfdump-19"],
    };
    for &dd in verifiers {
        let (before, after) = (verify_errors(dd, p), verify_errors(dd, &out));
        let new: Vec<&String> = after.iter().filter(|e| !before.contains(e)).collect();
        assert!(new.is_empty(), "{dd} --verify {}: {new:?}", out.display());
    }
    let (old_debug, old_rest) = sections(p);
    let (new_debug, new_rest) = sections(&out);
    let (old_size, new_size) = (
        std::fs::metadata(p).unwrap().len(),
        std::fs::metadata(&out).unwrap().len(),
    );
    // Alignment of the sections that moved, and the section-name table's new names.
    let slack = 512;
    assert!(
        new_size <= old_size - old_debug + new_debug + slack,
        "{}: {new_size} bytes from {old_size} with {old_debug} debug bytes replaced by {new_debug}",
        out.display()
    );
    // Compact like the compiler: DWARF 5 output — offset pairs from a base
    // address in location and range lists — is at most 1.05× the compiler's debug bytes.
    // (DWARF 4 keeps DWARF 4's forms: whole addresses in every .debug_loc entry.)
    if c.dwarf5() {
        eprintln!(
            "{}: debug bytes {new_debug}, {}'s {old_debug} ({:.3}×)",
            out.display(),
            c.cc,
            new_debug as f64 / old_debug as f64
        );
        assert!(
            new_debug * 100 <= old_debug * 105,
            "{}: {new_debug} debug bytes, over 1.05× the compiler's {old_debug}",
            out.display()
        );
    }
    assert_eq!(old_rest.len(), new_rest.len(), "{}", out.display());
    for (a, b) in old_rest.iter().zip(&new_rest) {
        assert!(a == b, "{}: section {} changed", out.display(), a.1);
    }
    out
}

/// What gdb says about a program: where `break F` lands for a sample of its functions (every
/// one of our units', every 16th of sqlite's) and `info line` for a few; or, with `scopes`,
/// what `info scope` says for those few — at each of their locations in `places` (from the
/// breakpoint view of the input) when there are several. Each command's output follows an
/// `@@` line naming it.
fn gdb_view(file: &Path, functions: &[String], places: Option<&Places>) -> String {
    let mut script = String::from("set pagination off\nset confirm off\nset width 0\n");
    let mark = |script: &mut String, what: &str| *script += &format!("echo @@ {what}\\n\n");
    match places {
        Some(places) => {
            for f in functions.iter().step_by(7) {
                match places.get(f).filter(|a| a.len() > 1) {
                    Some(addrs) => {
                        for a in addrs {
                            mark(&mut script, &format!("scope {f} {a}"));
                            script += &format!("info scope *{a}\n");
                        }
                    }
                    None => {
                        mark(&mut script, &format!("scope {f}"));
                        script += &format!("info scope {f}\n");
                    }
                }
            }
        }
        None => {
            for f in functions {
                mark(&mut script, &format!("break {f}"));
                script += &format!("break {f}\n");
            }
            mark(&mut script, "breakpoints");
            script += "info breakpoints\n";
            for f in functions.iter().step_by(7) {
                mark(&mut script, &format!("line {f}"));
                script += &format!("info line {f}\n");
            }
        }
    }
    let path = file.with_extension(if places.is_some() { "scope.gdb" } else { "gdb" });
    std::fs::write(&path, script).unwrap();
    let o = run_ok(
        Command::new(tool("gdb"))
            .args(["-batch", "-nx", "-x"])
            .arg(&path)
            .arg(file),
    );
    normalize_gdb(&text(&o).replace(s(file), "FILE"))
}

/// Where gdb put each function's breakpoint: its locations' addresses, from `info breakpoints`.
type Places = std::collections::HashMap<String, Vec<String>>;

fn places(view: &str) -> Places {
    let mut out = Places::new();
    let table = view
        .split("@@ breakpoints\n")
        .nth(1)
        .and_then(|t| t.split("@@ ").next())
        .unwrap_or_default();
    for l in table.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        let Some(at) = w.iter().position(|x| x.starts_with("0x")) else {
            continue;
        };
        if let (Some(&"in"), Some(f)) = (w.get(at + 1), w.get(at + 2)) {
            out.entry(f.to_string())
                .or_default()
                .push(w[at].to_string());
        }
    }
    out
}

/// gdb's output without what depends on the byte layout of the DWARF rather than on what it
/// says: the order in which `info line` lists the places of a function gdb found several of
/// (it sorts them by the addresses of its own symbol objects in memory), and DIE offsets and
/// operation offsets in the expressions `info scope` prints (`DW_OP_convert<int [0x45]>`:
/// which DIE the base type is, and how wide its ULEB operand, are layout; the type is not).
fn normalize_gdb(out: &str) -> String {
    let mut chunks: Vec<String> = Vec::new();
    for chunk in out.split("@@ ") {
        let mut lines: Vec<String> = chunk.lines().filter_map(layout_free).collect();
        if chunk.starts_with("line ") && lines.len() > 2 {
            lines[1..].sort();
        }
        chunks.push(lines.join("\n"));
    }
    chunks.join("\n@@ ")
}

/// One line of gdb output without DIE offsets (`[0x…]` after a typed operation), without the
/// operation's byte offset in its expression (`   13: DW_OP_…`, right-aligned by gdb), without
/// the base-address entries of a location list (`Base address 0x…  Range …`: how the list is
/// encoded), and none for a location-list entry of an empty range (it covers no address).
fn layout_free(line: &str) -> Option<String> {
    let line = match line.trim_start().strip_prefix("Base address ") {
        Some(rest) => match rest.split_once("  ") {
            Some((_, range)) => format!("  {range}"),
            None => line.to_string(),
        },
        None => line.to_string(),
    };
    let line = line.as_str();
    if let Some(r) = line.trim_start().strip_prefix("Range ") {
        let span = r.split(':').next().unwrap_or_default();
        if span.split_once('-').is_some_and(|(a, b)| a == b) {
            return None;
        }
    }
    let t = line.trim_start();
    let mut l = match t.split_once(": DW_OP_") {
        Some((n, rest)) if n.chars().all(|c| c.is_ascii_digit()) => format!("    DW_OP_{rest}"),
        _ => line.to_string(),
    };
    while let Some(at) = l.find(" [0x").filter(|_| l.contains("DW_OP_")) {
        let Some(end) = l[at..].find(']') else { break };
        if !l[at + 4..at + end].chars().all(|c| c.is_ascii_hexdigit()) {
            break;
        }
        l.replace_range(at..at + end + 1, " [die]");
    }
    Some(l)
}

fn functions(file: &Path) -> Vec<String> {
    let o = run_ok(Command::new("nm").arg("--defined-only").arg(file));
    let mut names: Vec<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace().skip(1);
            let (kind, name) = (w.next()?, w.next()?);
            (matches!(kind, "t" | "T") && !name.contains('.') && !name.starts_with('_'))
                .then(|| name.to_string())
        })
        .collect();
    names.sort();
    names.dedup();
    let ours = |n: &str| !n.starts_with("sqlite") && n.chars().any(|c| c.is_ascii_lowercase());
    names
        .iter()
        .enumerate()
        .filter(|(i, n)| i % 16 == 0 || ours(n) && n.len() < 12)
        .map(|(_, n)| n.clone())
        .collect()
}

/// gdb must say the same of the program after `--into`: breakpoints, `info line` and `info
/// scope` (see `gdb_view` and `normalize_gdb` for what counts). Among what this holds gdb to:
/// clang's block copies without an origin (gdb pairs them with the abstract blocks by their
/// place among the instance's children), gcc's blocks without an origin in inlined bodies
/// holding the copies of abstract blocks, labels' copies, and where each compiler puts a
/// call site of inlined code.
fn same_gdb_view(before: &Path, after: &Path) {
    let fs = functions(before);
    let a = gdb_view(before, &fs, None);
    let b = gdb_view(after, &fs, None);
    let at = places(&a);
    let (sa, sb) = (
        gdb_view(before, &fs, Some(&at)),
        gdb_view(after, &fs, Some(&at)),
    );
    // Kept for a look: PROG.before.view and PROG.after.view beside the program.
    std::fs::write(before.with_extension("before.view"), format!("{a}\n{sa}")).unwrap();
    std::fs::write(before.with_extension("after.view"), format!("{b}\n{sb}")).unwrap();
    let mut diff = Vec::new();
    for (x, y) in [(&a, &b), (&sa, &sb)] {
        let (xs, ys): (Vec<&str>, Vec<&str>) =
            (x.split("\n@@ ").collect(), y.split("\n@@ ").collect());
        assert_eq!(
            xs.len(),
            ys.len(),
            "{}: gdb ran other commands",
            after.display()
        );
        diff.extend(
            xs.iter()
                .zip(&ys)
                .filter(|(p, q)| p != q)
                .map(|(p, q)| format!("--- before:\n{p}\n+++ after:\n{q}")),
        );
    }
    eprintln!(
        "{}: gdb: {} of {} command outputs differ",
        after.display(),
        diff.len(),
        a.matches("\n@@ ").count() + sa.matches("\n@@ ").count()
    );
    assert!(
        diff.is_empty(),
        "gdb says otherwise after --into ({}):\n{}",
        after.display(),
        diff.iter().take(6).cloned().collect::<Vec<_>>().join("\n")
    );
}

fn run(cmd: &mut Command) -> String {
    String::from_utf8_lossy(&run_ok(cmd).stdout).into_owned()
}

fn check(c: &Config) {
    let t = std::time::Instant::now();
    let p = build(c);
    for prog in [&p.exe, &p.lib] {
        roundtrip(prog);
        let out = into(c, prog);
        same_gdb_view(prog, &out);
    }
    // Both still run, and say what they said.
    let exe_out = p.exe.with_extension("dwarv");
    assert_eq!(
        run(&mut Command::new(&p.exe)),
        run(&mut Command::new(&exe_out))
    );
    let rewritten = p.dir.join("rewritten");
    std::fs::create_dir_all(&rewritten).unwrap();
    std::fs::copy(
        p.lib.with_extension("dwarv"),
        rewritten.join("liblinked.so"),
    )
    .unwrap();
    let host = |libs: &Path| run(Command::new(&p.host).env("LD_LIBRARY_PATH", libs));
    assert_eq!(host(&p.dir), host(&rewritten));
    assert!(host(&rewritten).contains("sqlite vs=one+two+three"));
    eprintln!("{}: {:.1?}", c.tag(), t.elapsed());
}

#[test]
fn clang_14_linked_programs() {
    for c in CONFIGS.iter().filter(|c| c.cc == "clang-14") {
        check(c);
    }
}

#[test]
fn clang_19_linked_programs() {
    for c in CONFIGS.iter().filter(|c| c.cc == "clang-19") {
        check(c);
    }
}

#[test]
fn gcc_12_linked_programs() {
    for c in CONFIGS.iter().filter(|c| c.cc == "gcc-12") {
        check(c);
    }
}
