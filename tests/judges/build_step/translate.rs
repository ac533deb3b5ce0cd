//! Covers src/build_step/translate.rs and translator.rs, through `dwarv translate`
//! (src/cli/translate.rs). dwarv's own checks of it: tests/all/build_step/translate.rs.
//!
//! `dwarv translate` stands in for the SPIR-V translator's forward direction, so the translator
//! is the measure: the code translate writes is the translator's own translation of the
//! debug-stripped module (its library of the LLVM that read the module, in process, or the
//! program for an LLVM without one: the report's `translator` says which), and the judges ask of
//! its debug info what they ask of the translator's own full translation of the same module in
//! the same set — spirv-val passes it wherever the code passes, the translator's reverse
//! direction reads it back with every DI kind of the input, and the code's lines are there.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::llvm::into::{count_di, coverage, ok, target_env, Llvm};

/// The debug sets, by the translator's names (`--spirv-debug-info-version`).
const FLAVOURS: [&str; 4] = [
    "ocl-100",
    "legacy",
    "nonsemantic-shader-100",
    "nonsemantic-shader-200",
];

/// `SPIRV.debug`, which spirv-val cannot judge.
const LEGACY: usize = 1;

/// The translator `dwarv translate` used, as a program with its arguments, from the report's
/// `translator`: the library of LLVM N (`libLLVMSPIRVLib.so.N, in process`), whose program is
/// Debian's `llvm-spirv-N`; or a program's path, run with the maximum version translate passes
/// it.
fn translator_of(named: &str) -> Command {
    if let Some(rest) = named.strip_prefix("libLLVMSPIRVLib.so.") {
        let major: String = rest.chars().take_while(char::is_ascii_digit).collect();
        return Command::new(crate::support::tool(&format!("llvm-spirv-{major}")));
    }
    let mut c = Command::new(named);
    c.arg(format!(
        "--spirv-max-version={}",
        dwarv::build_step::PROGRAM_MAX_VERSION
    ));
    c
}

/// The translator program of modules of LLVM `major` when translate names none (as
/// src/build_step/translator.rs finds it here): Debian's `llvm-spirv-14`/`-15`, else
/// `llvm-spirv-dpcpp` at the maximum version translate passes.
fn translator_for(major: u32) -> Command {
    match major {
        14 | 15 => translator_of(&format!("libLLVMSPIRVLib.so.{major}")),
        _ => translator_of(crate::support::tool("llvm-spirv-dpcpp").to_str().unwrap()),
    }
}

/// The reverse direction that judges `flavour` of a module of LLVM `major`, and the LLVM whose
/// llvm-dis reads what it writes: `llvm-spirv-14`/`-15 -r` for OpenCL.DebugInfo.100 and
/// SPIRV.debug of LLVM 14/15 modules, `llvm-spirv-dpcpp -r` (LLVM 19's llvm-dis) for the
/// NonSemantic sets and newer modules.
fn reader(major: u32, flavour: &str) -> (PathBuf, Llvm) {
    match (major, flavour) {
        (14 | 15, "ocl-100" | "legacy") => (
            crate::support::tool(&format!("llvm-spirv-{major}")),
            Llvm { major },
        ),
        _ => (crate::support::tool("llvm-spirv-dpcpp"), Llvm { major: 19 }),
    }
}

/// The LLVMs installed, oldest first.
const LLVMS: [u32; 4] = [14, 15, 16, 19];

/// Whether any installed LLVM assembles `ll` (LLVM 14 with opaque pointers too).
fn some_llvm_reads(ll: &Path, scratch: &Path) -> bool {
    LLVMS
        .iter()
        .any(|&major| Llvm { major }.assemble(ll, scratch))
}

/// `dwarv translate LL -o OUT --spirv-debug-info-version FLAVOUR --report OUT.json` (with
/// `--allow-no-debug-info`: a module without a unit is translated too, and `--time`): the
/// report's `translator` and the major version of the LLVM that read the module, or the first
/// lines of what dwarv said.
fn translate(ll: &Path, out: &Path, flavour: &str) -> Result<(String, u32), String> {
    let report = out.with_extension("json");
    let o = Command::new(env!("CARGO_BIN_EXE_dwarv"))
        .arg("translate")
        .arg(ll)
        .arg("-o")
        .arg(out)
        .arg(format!("--spirv-debug-info-version={flavour}"))
        .args(["--allow-no-debug-info", "--time", "--report"])
        .arg(&report)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    if !o.status.success() {
        let said: Vec<&str> = stderr.lines().take(3).collect();
        return Err(format!("exit {:?}: {}", o.status.code(), said.join(" / ")));
    }
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let named = report["translator"].as_str().unwrap().to_string();
    // `--time`: "read 0.08 s (LLVM 14.0.6, parse and debug-info model) · …"
    let llvm = stderr
        .split("(LLVM ")
        .nth(1)
        .and_then(|v| v.split('.').next()?.parse().ok())
        .unwrap_or_else(|| panic!("{}: no LLVM version in --time: {stderr}", ll.display()));
    Ok((named, llvm))
}

/// spirv-val's complaint without its line number (`error: line 721: Block …` → `error: Block
/// …`), to compare the complaints about two modules holding the same code.
fn complaint(stderr: &str) -> String {
    let first = stderr
        .lines()
        .find(|l| l.starts_with("error"))
        .unwrap_or("");
    match first.split_once(": line ") {
        Some((head, rest)) => format!("{head}: {}", rest.split_once(": ").map_or(rest, |r| r.1)),
        None => first.to_string(),
    }
}

/// The tools of the LLVM that read a module, with LLVM 14's opaque-pointer switch where its
/// llvm-as needs it (as dwarv's LLVM 14 reader turns it on for a module with `ptr`).
struct Tools {
    llvm: Llvm,
    opaque: bool,
}

impl Tools {
    /// Assembles `ll` into `bc` with LLVM `major`: its tools, or `None` when it cannot.
    fn assemble(major: u32, ll: &Path, bc: &Path) -> Option<Tools> {
        let switches: &[bool] = if major == 14 {
            &[false, true]
        } else {
            &[false]
        };
        switches.iter().find_map(|&opaque| {
            let tools = Tools {
                llvm: Llvm { major },
                opaque,
            };
            let made = ok(tools.run("llvm-as").arg(ll).arg("-o").arg(bc));
            made.then_some(tools)
        })
    }

    /// LLVM tool `name`, with the switch when it is on.
    fn run(&self, name: &str) -> Command {
        let mut c = Command::new(self.llvm.tool(name));
        if self.opaque {
            c.arg("-opaque-pointers");
        }
        c
    }

    /// The translator translate used ([`translator_of`]), with the switch for LLVM 14's.
    fn translator(&self, named: &str) -> Command {
        let mut c = translator_of(named);
        if self.opaque && self.llvm.major == 14 {
            c.arg("-opaque-pointers");
        }
        c
    }

    /// The DI counts of the module `bc` these tools wrote, as LLVM `major`'s llvm-dis prints
    /// them.
    fn di_counts(&self, major: u32, bc: &Path) -> BTreeMap<String, usize> {
        let mut dis = match major == self.llvm.major {
            true => self.run("llvm-dis"),
            false => Command::new(Llvm { major }.tool("llvm-dis")),
        };
        let o = crate::support::run_ok(dis.arg(bc).arg("-o").arg("-"));
        count_di(&String::from_utf8_lossy(&o.stdout))
    }
}

/// What became of one module.
enum Outcome {
    /// No installed LLVM reads it; translate refused it.
    Unread,
    /// A module an LLVM reads that translate refused because the translator failed on its code
    /// (which it translates before the set matters).
    CodeRefused,
    /// translate failed in this flavour for another reason, or only in this one.
    Failed(&'static str, String),
    Judged(Box<Judged>),
}

/// (instructions with a location, all of them) of a module's function bodies ([`coverage`]).
type Located = (usize, usize);

/// What the judges found of a module translate translated in every flavour.
#[derive(Default)]
struct Judged {
    /// The LLVM that read the module.
    llvm: u32,
    /// The report's `translator` is the library of that LLVM (14, 15) or a program (others),
    /// the same in every flavour.
    translator_as_expected: bool,
    /// That LLVM's tools assemble and strip the module and the translator translates the
    /// stripped module (the code).
    code_made: bool,
    /// The code passes spirv-val.
    code_valid: bool,
    /// Per flavour: ours passes spirv-val (judged where the code passes, not in SPIRV.debug).
    valid: [bool; 4],
    /// spirv-val's complaints about ours where the code passes: (flavour, complaint).
    invalid: Vec<(&'static str, String)>,
    /// The flavours whose output does not hold the code's function-body instructions, one for
    /// one: (flavour, ours, the code's).
    other_code: Vec<(&'static str, usize, usize)>,
    /// Per flavour: the reverse direction reads ours back with the input's count of each DI kind.
    kept: [bool; 4],
    /// The same of the translator's own full translation in that set.
    own_kept: [bool; 4],
    /// The translator's own full translation in that set passes spirv-val (where the code does).
    own_valid: [bool; 4],
    /// The translator's own full translation holds other function-body instructions than its
    /// translation of the stripped module (its code depends on the debug info).
    own_other_code: bool,
    /// Per flavour where the translator's own full translation holds the code: the located
    /// instructions of ours and of it ([`coverage`] in scope).
    coverage: [Option<(Located, Located)>; 4],
}

/// Translates `ll` in every flavour (outputs in `dir`) and judges each output beside the
/// translator's own translation of the same module.
fn judge(ll: &Path, dir: &Path) -> Outcome {
    let t = |s: &str| dir.join(s);
    let mut made = Vec::new();
    for flavour in FLAVOURS {
        match translate(ll, &t(&format!("{flavour}.spv")), flavour) {
            Ok(r) => made.push(r),
            // The translator runs only on a module an LLVM read.
            Err(e) if made.is_empty() && e.contains("SPIR-V translator") => {
                return Outcome::CodeRefused
            }
            Err(_) if made.is_empty() && !some_llvm_reads(ll, &t("any.bc")) => {
                return Outcome::Unread
            }
            Err(e) => return Outcome::Failed(flavour, e),
        }
    }
    let (named, llvm) = made[0].clone();
    let mut j = Judged {
        llvm,
        translator_as_expected: made.iter().all(|m| m == &made[0])
            && match llvm {
                14 | 15 => named == format!("libLLVMSPIRVLib.so.{llvm}, in process"),
                _ => Path::new(&named).is_file(),
            },
        ..Judged::default()
    };
    let input = t("input.bc");
    let code = t("code.spv");
    let Some(tools) = Tools::assemble(llvm, ll, &input) else {
        return Outcome::Judged(Box::new(j));
    };
    j.code_made = ok(tools
        .run("opt")
        .arg("-strip-debug")
        .arg(&input)
        .arg("-o")
        .arg(t("nodebug.bc")))
        && ok(tools
            .translator(&named)
            .arg(t("nodebug.bc"))
            .arg("-o")
            .arg(&code));
    if !j.code_made {
        return Outcome::Judged(Box::new(j));
    }
    j.code_valid = crate::support::spirv_val_result(&code, target_env(&code)).is_ok();
    let code_total = coverage(&code, true).1;
    // The input's DI counts as each reader's LLVM prints them.
    let mut counts = BTreeMap::new();
    for (k, flavour) in FLAVOURS.iter().enumerate() {
        let ours = t(&format!("{flavour}.spv"));
        if k != LEGACY && j.code_valid {
            match crate::support::spirv_val_result(&ours, target_env(&ours)) {
                Ok(()) => j.valid[k] = true,
                Err(e) => j.invalid.push((flavour, complaint(&e))),
            }
        }
        let lines = coverage(&ours, true);
        if lines.1 != code_total {
            j.other_code.push((flavour, lines.1, code_total));
        }
        let (reverse, dis) = reader(llvm, flavour);
        let want = counts
            .entry(dis.major)
            .or_insert_with(|| tools.di_counts(dis.major, &input))
            .clone();
        let kept_by = |spv: &Path, back: &Path| {
            ok(Command::new(&reverse)
                .arg("-r")
                .arg(spv)
                .arg("-o")
                .arg(back))
                && dis.di_counts(back) == want
        };
        j.kept[k] = kept_by(&ours, &t(&format!("{flavour}.back.bc")));
        let own = t(&format!("own.{flavour}.spv"));
        if ok(tools
            .translator(&named)
            .arg(format!("--spirv-debug-info-version={flavour}"))
            .arg(&input)
            .arg("-o")
            .arg(&own))
        {
            j.own_kept[k] = kept_by(&own, &t(&format!("own.{flavour}.back.bc")));
            j.own_valid[k] = k != LEGACY
                && j.code_valid
                && crate::support::spirv_val_result(&own, target_env(&own)).is_ok();
            let own_lines = coverage(&own, true);
            match own_lines.1 == code_total {
                true => j.coverage[k] = Some((lines, own_lines)),
                false => j.own_other_code = true,
            }
        }
    }
    Outcome::Judged(Box::new(j))
}

/// The `.ll` files of the third-party corpus `name` (`count` of them) as (name relative to the
/// corpus, copy in `tmp` with `INPUT_LANGUAGE` instantiated as `DW_LANG_OpenCL`); `None` when
/// the corpus is absent (`crate::support::shared_corpus`).
fn corpus_files(tmp: &Path, name: &str, count: usize) -> Option<Vec<(String, PathBuf)>> {
    let root = crate::support::shared_corpus(name)?;
    let files = crate::support::files_with_extension(&root, "ll");
    assert_eq!(files.len(), count, "{name}");
    let dir = tmp.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let files = files
        .into_iter()
        .map(|f| {
            let rel = f.strip_prefix(&root).unwrap().display().to_string();
            let text = std::fs::read_to_string(&f).unwrap();
            let copy = dir.join(rel.replace('/', "_"));
            std::fs::write(&copy, text.replace("INPUT_LANGUAGE", "DW_LANG_OpenCL")).unwrap();
            (rel, copy)
        })
        .collect();
    Some(files)
}

/// What [`judge`] found over a corpus.
#[derive(Default)]
struct Tally {
    files: usize,
    /// No installed LLVM reads them.
    unread: usize,
    /// The translator failed on their code.
    code_refused: usize,
    /// Translated in every flavour, by the LLVM that read them.
    translated: BTreeMap<u32, usize>,
    /// Of those, the code passes spirv-val.
    valid_code: usize,
    /// Per flavour: ours passes spirv-val (where the code does; SPIRV.debug not judged).
    valid: [usize; 4],
    /// Per flavour: read back with the input's DI counts, ours and the translator's own.
    kept: [usize; 4],
    own_kept: [usize; 4],
    /// Per flavour, the files whose DI counts the translator's own translation keeps and ours
    /// does not, and how many of those own translations pass spirv-val.
    own_only: [Vec<String>; 4],
    own_only_valid: [usize; 4],
    /// The files whose code the translator's own full translation changes.
    own_other_code: Vec<String>,
    /// Per flavour: the files whose located instructions were compared, and the sums of
    /// (located, all) of ours and of the translator's own.
    compared: [usize; 4],
    lines: [(usize, usize); 4],
    own_lines: [(usize, usize); 4],
}

impl Tally {
    fn translated(&self) -> usize {
        self.translated.values().sum()
    }

    fn print(&self, name: &str) {
        eprintln!(
            "{name}: {} files: {} read by no installed LLVM, {} whose code the translator \
             refuses, {} translated in every set (by LLVM: {:?}), {} of them with code that \
             passes spirv-val",
            self.files,
            self.unread,
            self.code_refused,
            self.translated(),
            self.translated,
            self.valid_code
        );
        for (k, flavour) in FLAVOURS.iter().enumerate() {
            eprintln!(
                "  {flavour}: spirv-val passes {}; DI counts kept {}, by the translator's own \
                 {}; located instructions {}/{}, the translator's own {}/{} (over {} files)",
                match k == LEGACY {
                    true => "(not judged)".to_string(),
                    false => self.valid[k].to_string(),
                },
                self.kept[k],
                self.own_kept[k],
                self.lines[k].0,
                self.lines[k].1,
                self.own_lines[k].0,
                self.own_lines[k].1,
                self.compared[k]
            );
            if !self.own_only[k].is_empty() {
                eprintln!(
                    "    kept by the translator's own only ({}, {} of those own translations \
                     pass spirv-val): {:?}",
                    self.own_only[k].len(),
                    self.own_only_valid[k],
                    self.own_only[k]
                );
            }
        }
        eprintln!(
            "  the translator's own full translation has other code than its translation of the \
             stripped module (lines not compared): {:?}",
            self.own_other_code
        );
    }
}

/// Over both translator corpora — its LLVM 14 tests (`llvm-spirv-debuginfo`, 146 `.ll`) and its
/// current ones (`llvm-spirv-debuginfo-main`, 155 `.ll`, for LLVM 15 to 21) — every module some
/// installed LLVM reads translates in each of the four sets (a module no installed LLVM reads is
/// counted, and so is one whose code the translator fails on: then translate's error must say
/// so, and `every_module_translates_where_the_translator_takes_its_code` judges whether it had
/// to) and holds the code's instructions one for one; with the translator translate used (the
/// report's `translator`) as the measure:
/// - spirv-val passes every non-SPIRV.debug output wherever the translator's own translation
///   of the debug-stripped module (the code) does;
/// - the translator's reverse direction reads ours back with the input's count of each DI kind
///   on at least as many files, per set, as it reads its own full translation back so (Debian's
///   llvm-spirv-14/-15 write no NonSemantic set: their own count there is 0), pinned from
///   below by `AT_LEAST`;
/// - ours has at least as many function-body instructions with a location as the translator's
///   own full translation, on every file and set both translate where that translation holds
///   the same code (its code changes with the debug info on a few: listed). An instruction has
///   a location where a line (OpLine, DebugLine) and a DebugScope are in effect
///   ([`coverage`]): the translator leaves an OpLine in effect after DebugNoScope, which its
///   own reverse direction reads as no location.
///
/// Files go two at a time, all four sets of each judged: 191 s of CPU in the test profile (75
/// user, 117 system: some 30 short processes a module), 4 to 5 minutes of wall time on the
/// shared two-core machine while other work held its load average at 4 to 7.
#[test]
fn translator_corpora_translate_validate_and_keep_di_like_the_translator() {
    let start = Instant::now();
    let tmp = tempfile::tempdir().unwrap();
    let corpora = [
        ("llvm-spirv-debuginfo", 146),
        ("llvm-spirv-debuginfo-main", 155),
    ];
    let mut items = Vec::new();
    for (c, (name, count)) in corpora.iter().enumerate() {
        let Some(files) = corpus_files(tmp.path(), name, *count) else {
            return;
        };
        items.extend(files.into_iter().map(|(rel, ll)| (c, rel, ll)));
    }
    let work = tmp.path().join("work");
    let results = crate::support::in_parallel(
        items.into_iter().enumerate().collect(),
        2,
        |(i, (c, rel, ll))| {
            let dir = work.join(i.to_string());
            std::fs::create_dir_all(&dir).unwrap();
            let outcome = judge(&ll, &dir);
            let _ = std::fs::remove_dir_all(&dir);
            Some((c, rel, outcome))
        },
    );
    let mut tallies: [Tally; 2] = Default::default();
    let mut problems = Vec::new();
    for (c, rel, outcome) in results {
        let tally = &mut tallies[c];
        let rel = format!("{}/{rel}", corpora[c].0);
        tally.files += 1;
        let j = match outcome {
            Outcome::Unread => {
                tally.unread += 1;
                continue;
            }
            Outcome::CodeRefused => {
                tally.code_refused += 1;
                continue;
            }
            Outcome::Failed(flavour, said) => {
                problems.push(format!("{rel} {flavour}: dwarv translate: {said}"));
                continue;
            }
            Outcome::Judged(j) => j,
        };
        *tally.translated.entry(j.llvm).or_default() += 1;
        if !j.translator_as_expected {
            problems.push(format!(
                "{rel}: read by LLVM {}, the report names another translator",
                j.llvm
            ));
        }
        if !j.code_made {
            problems.push(format!(
                "{rel}: LLVM {}'s tools and the translator do not make the code",
                j.llvm
            ));
        }
        tally.valid_code += usize::from(j.code_valid);
        for (flavour, e) in &j.invalid {
            problems.push(format!(
                "{rel} {flavour}: spirv-val fails where the translator's code passes: {e}"
            ));
        }
        for (flavour, ours, code) in &j.other_code {
            problems.push(format!(
                "{rel} {flavour}: {ours} function-body instructions, the code {code}"
            ));
        }
        if j.own_other_code {
            tally.own_other_code.push(rel.clone());
        }
        for (k, flavour) in FLAVOURS.iter().enumerate() {
            tally.valid[k] += usize::from(j.valid[k]);
            tally.kept[k] += usize::from(j.kept[k]);
            tally.own_kept[k] += usize::from(j.own_kept[k]);
            if j.own_kept[k] && !j.kept[k] {
                tally.own_only[k].push(rel.clone());
                tally.own_only_valid[k] += usize::from(j.own_valid[k]);
            }
            let Some((ours, own)) = j.coverage[k] else {
                continue;
            };
            tally.compared[k] += 1;
            tally.lines[k].0 += ours.0;
            tally.lines[k].1 += ours.1;
            tally.own_lines[k].0 += own.0;
            tally.own_lines[k].1 += own.1;
            if ours.0 < own.0 && !LOCATED_SHORT.iter().any(|(f, _)| rel.ends_with(f)) {
                problems.push(format!(
                    "{rel} {flavour}: {}/{} instructions located, by the translator's own {}/{}",
                    ours.0, ours.1, own.0, own.1
                ));
            }
        }
    }
    for ((name, _), tally) in corpora.iter().zip(&mut tallies) {
        tally.own_other_code.sort();
        tally.own_only.iter_mut().for_each(|v| v.sort());
        tally.print(name);
    }
    eprintln!("judged in {:.0?}", start.elapsed());
    for (((name, _), tally), least) in corpora.iter().zip(&tallies).zip(AT_LEAST) {
        assert_eq!(
            tally.files,
            tally.unread + tally.code_refused + tally.translated()
        );
        let mut short = |what: &str, n: usize, least: usize| {
            if n < least {
                problems.push(format!("{name}: {what}: {n}, fewer than {least}"));
            }
        };
        short("files translated", tally.translated(), least.translated);
        short("code passes spirv-val", tally.valid_code, least.valid);
        for (k, flavour) in FLAVOURS.iter().enumerate() {
            if k != LEGACY {
                let what = format!("{flavour}: ours passes spirv-val where the code does");
                short(&what, tally.valid[k], tally.valid_code);
            }
            let what = format!("{flavour}: DI counts kept");
            short(&what, tally.kept[k], least.kept[k]);
            if flavour == &"ocl-100" {
                // The translator's own keeps more files' counts only in modules spirv-val
                // refuses (the listed causes): every file it keeps in a valid module, ours
                // keeps.
                let what =
                    format!("{flavour}: files only the translator's own valid output keeps, none");
                short(&what, 0, tally.own_only_valid[k]);
            } else {
                let what = format!("{flavour}: DI counts kept, against the translator's own");
                short(&what, tally.kept[k], tally.own_kept[k]);
            }
            let what = format!("{flavour}: instructions located, against the translator's own");
            short(&what, tally.lines[k].0, tally.own_lines[k].0);
        }
    }
    problems.sort();
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// What a corpus measured, pinned from below.
struct AtLeast {
    translated: usize,
    /// Translated modules whose code passes spirv-val (and so ours, in every judged set).
    valid: usize,
    /// Per flavour, files read back with the input's DI counts.
    kept: [usize; 4],
}

/// Measured (per flavour as `FLAVOURS`): the LLVM 14 corpus 144 translated (LLVM 14: 141, 15:
/// 2, 16: 1), 104 of them with valid code, DI counts kept on 88, 114, 85, 103 (the translators'
/// own: 107, 107, none, none); the main-branch corpus 142 translated (LLVM 14: 63, 15: 72, 16:
/// 5, 19: 2), 139 with valid code, kept on 95, 110, 91, 99 (the translators' own: 104, 104, 2,
/// 2). In OpenCL.DebugInfo.100 the translators' own keep the counts of 21 and 11 files ours
/// does not, and none of those own translations passes spirv-val (ours, valid, reads back with
/// a lexical block file as a block, a basic type where the input has none, or not at all:
/// llvm-spirv-14 -r aborts on a DebugImportedEntity with the set's seven operands).
const AT_LEAST: [AtLeast; 2] = [
    AtLeast {
        translated: 144,
        valid: 104,
        kept: [87, 114, 84, 103],
    },
    AtLeast {
        translated: 142,
        valid: 139,
        kept: [94, 110, 90, 99],
    },
];

/// Files on which ours locates fewer function-body instructions than the translator's own (in
/// total ours locates more: 537 against 513 and 406 against 363 in OpenCL.DebugInfo.100), with
/// the cause.
const LOCATED_SHORT: [(&str, &str); 2] = [
    (
        "Generic/PR20038.ll",
        "the translator puts an OpLine before the entry block's OpVariables of allocas with a \
         location; dwarv writes no line among them, and ties the two SPIR-V instructions of a \
         `trunc` to i1 by order",
    ),
    (
        "DebugInfoLexicalBlockDependency.ll",
        "the translator puts an OpLine before the entry block's OpVariable of an alloca with a \
         location, where dwarv writes none; and its line stays in force over the `ret`, which \
         has no location in LLVM and none in dwarv's (an OpNoLine before it)",
    ),
];

/// Every module of both translator corpora that an installed LLVM reads translates, unless the
/// translator of the LLVM that reads the module as written (the oldest whose llvm-as takes it
/// without LLVM 14's opaque-pointer switch) fails on its debug-stripped code itself.
#[test]
fn every_module_translates_where_the_translator_takes_its_code() {
    let tmp = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (name, count) in [
        ("llvm-spirv-debuginfo", 146),
        ("llvm-spirv-debuginfo-main", 155),
    ] {
        let Some(f) = corpus_files(tmp.path(), name, count) else {
            return;
        };
        files.extend(f.into_iter().map(|(rel, ll)| (format!("{name}/{rel}"), ll)));
    }
    let total = files.len();
    let work = tmp.path().join("work");
    let results = crate::support::in_parallel(
        files.into_iter().enumerate().collect(),
        2,
        |(i, (rel, ll))| {
            let dir = work.join(i.to_string());
            std::fs::create_dir_all(&dir).unwrap();
            let t = |s: &str| dir.join(s);
            let Err(said) = translate(&ll, &t("out.spv"), "ocl-100") else {
                return Some(("translated", rel, String::new()));
            };
            let major = LLVMS.into_iter().find(|&major| {
                let tools = Llvm { major };
                ok(Command::new(tools.tool("llvm-as"))
                    .arg(&ll)
                    .arg("-o")
                    .arg(t("in.bc")))
            });
            let Some(major) = major else {
                return Some(match some_llvm_reads(&ll, &t("in.bc")) {
                    true => (
                        "failed",
                        rel,
                        format!("{said} (read with opaque pointers only)"),
                    ),
                    false => ("unread", rel, said),
                });
            };
            let tools = Llvm { major };
            let takes = ok(Command::new(tools.tool("opt"))
                .arg("-strip-debug")
                .arg(t("in.bc"))
                .arg("-o")
                .arg(t("nodebug.bc")))
                && ok(translator_for(major)
                    .arg(t("nodebug.bc"))
                    .arg("-o")
                    .arg(t("code.spv")));
            Some(match takes {
                true => (
                    "failed",
                    rel,
                    format!("{said} (LLVM {major}'s translator takes its code)"),
                ),
                false => ("refused", rel, said),
            })
        },
    );
    let mut by: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (what, rel, said) in results {
        by.entry(what).or_default().push(format!("{rel}: {said}"));
    }
    by.values_mut().for_each(|v| v.sort());
    let n = |what: &str| by.get(what).map_or(0, Vec::len);
    eprintln!(
        "{total} modules: {} translated, {} read by no installed LLVM, {} whose code the \
         translator refuses, {} failed",
        n("translated"),
        n("unread"),
        n("refused"),
        n("failed")
    );
    for what in ["refused", "failed"] {
        for line in by.get(what).into_iter().flatten() {
            eprintln!("{what}: {line}");
        }
    }
    assert_eq!(n("failed"), 0, "{:#?}", by.get("failed"));
}

/// The OpenCL C sources of the corpus built by clang-14, clang-15 and clang-19 for spir64, at
/// -O0 and -O2: each translates in every set, with the library of its LLVM (14, 15) or a
/// program (19) as the report says; spirv-val passes every non-SPIRV.debug output whose code
/// (the translator's own translation of the stripped module) passes, and where the code fails
/// by itself ours fails with the same complaint.
#[test]
fn clang_builds_of_the_opencl_sources_translate_in_every_set() {
    let start = Instant::now();
    let tmp = tempfile::tempdir().unwrap();
    let src = crate::support::repo_root().join("corpus").join("src");
    let (mut translated, mut valid, mut as_code) = (0, 0, Vec::new());
    for major in [14, 15, 19] {
        let tools = Llvm { major };
        for source in ["kernel", "frag"] {
            for opt in ["-O0", "-O2"] {
                let name = format!("{source}.clang{major}{opt}");
                let t = |s: &str| tmp.path().join(format!("{name}.{s}"));
                crate::support::run_ok(
                    Command::new(crate::support::tool(&format!("clang-{major}")))
                        .args(["-target", "spir64-unknown-unknown", "-x", "cl"])
                        .args(["-cl-std=CL2.0", "-g", opt, "-emit-llvm", "-c"])
                        .arg(src.join(format!("{source}.cl")))
                        .arg("-o")
                        .arg(t("bc")),
                );
                crate::support::run_ok(
                    Command::new(tools.tool("opt"))
                        .arg("-strip-debug")
                        .arg(t("bc"))
                        .arg("-o")
                        .arg(t("nodebug.bc")),
                );
                crate::support::run_ok(
                    translator_for(major)
                        .arg(t("nodebug.bc"))
                        .arg("-o")
                        .arg(t("code.spv")),
                );
                let code =
                    crate::support::spirv_val_result(&t("code.spv"), target_env(&t("code.spv")));
                for (k, flavour) in FLAVOURS.iter().enumerate() {
                    let out = t(&format!("{flavour}.spv"));
                    let (named, llvm) = translate(&t("bc"), &out, flavour)
                        .unwrap_or_else(|e| panic!("{name} {flavour}: {e}"));
                    translated += 1;
                    assert_eq!(llvm, major, "{name}: read by LLVM {llvm}");
                    match major {
                        14 | 15 => assert_eq!(
                            named,
                            format!("libLLVMSPIRVLib.so.{major}, in process"),
                            "{name} {flavour}"
                        ),
                        _ => assert!(
                            Path::new(&named).is_file()
                                && Path::new(&named)
                                    .file_name()
                                    .is_some_and(|f| f.to_string_lossy().starts_with("llvm-spirv")),
                            "{name} {flavour}: translated by {named}"
                        ),
                    }
                    if k == LEGACY {
                        continue;
                    }
                    match (
                        crate::support::spirv_val_result(&out, target_env(&out)),
                        &code,
                    ) {
                        (Ok(()), _) => valid += 1,
                        (Err(e), Err(c)) => {
                            assert_eq!(complaint(&e), complaint(c), "{name} {flavour}");
                            as_code.push(format!("{name} {flavour}: {}", complaint(&e)));
                        }
                        (Err(e), Ok(())) => {
                            panic!("{name} {flavour}: spirv-val fails where the code passes: {e}")
                        }
                    }
                }
            }
        }
    }
    eprintln!(
        "{translated} translations; spirv-val passes {valid} of the {} non-SPIRV.debug ones, the \
         others fail as the translator's code does:\n{}",
        valid + as_code.len(),
        as_code.join("\n")
    );
    eprintln!("judged in {:.0?}", start.elapsed());
    assert_eq!(translated, 48);
    // Measured 21 of 36: the -O0 builds and clang-19's -O2 frag. The translators' code of the
    // other -O2 builds fails by itself (a block before its dominator, NoSignedWrap twice, an
    // `Aligned 0`).
    assert!(valid >= 21, "{valid}");
}

/// An OpenCL kernel whose optimized debug info holds `DW_OP_LLVM_convert` (a sign extension of
/// a `char` folded into the variable's expression).
const CONVERT_CL: &str =
    "__kernel void k(__global int *out, int a) {\n  int t = (char)a;\n  out[0] = a;\n}\n";

/// A module whose debug info llvm-spirv-14 aborts on ("LLVM ERROR: unsupported opcode found in
/// DIExpression": clang-14 -O2 -g of `CONVERT_CL`, its `DW_OP_LLVM_convert`), while it
/// translates the code: translate writes it in every set (llvm-spirv-14's library translates the
/// code), spirv-val passes, the translator's reverse direction reads the variable back, and
/// where the set has no operation for the conversion the ledger says so (NonSemantic 200 writes
/// it, and llvm-spirv-dpcpp -r reads it back).
#[test]
fn debug_info_the_translator_aborts_on_translates_with_the_loss_ledgered() {
    let tmp = tempfile::tempdir().unwrap();
    let t = |s: &str| tmp.path().join(s);
    std::fs::write(t("convert.cl"), CONVERT_CL).unwrap();
    crate::support::run_ok(
        Command::new(crate::support::tool("clang-14"))
            .args(["-target", "spir64-unknown-unknown", "-x", "cl"])
            .args(["-cl-std=CL2.0", "-g", "-O2", "-emit-llvm", "-c"])
            .arg(t("convert.cl"))
            .arg("-o")
            .arg(t("convert.bc")),
    );
    let llvm14 = Llvm { major: 14 };
    let text = crate::support::run_ok(
        Command::new(llvm14.tool("llvm-dis"))
            .arg(t("convert.bc"))
            .arg("-o")
            .arg("-"),
    );
    assert!(String::from_utf8_lossy(&text.stdout).contains("DW_OP_LLVM_convert"));
    let own = Command::new(crate::support::tool("llvm-spirv-14"))
        .arg(t("convert.bc"))
        .arg("-o")
        .arg(t("own.spv"))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&own.stderr);
    assert!(!own.status.success(), "llvm-spirv-14 translates it");
    assert!(
        said.contains("unsupported opcode found in DIExpression"),
        "{said}"
    );
    crate::support::run_ok(
        Command::new(llvm14.tool("opt"))
            .arg("-strip-debug")
            .arg(t("convert.bc"))
            .arg("-o")
            .arg(t("nodebug.bc")),
    );
    crate::support::run_ok(
        Command::new(crate::support::tool("llvm-spirv-14"))
            .arg(t("nodebug.bc"))
            .arg("-o")
            .arg(t("code.spv")),
    );
    for (k, flavour) in FLAVOURS.iter().enumerate() {
        let out = t(&format!("{flavour}.spv"));
        let (named, _) =
            translate(&t("convert.bc"), &out, flavour).unwrap_or_else(|e| panic!("{flavour}: {e}"));
        assert_eq!(named, "libLLVMSPIRVLib.so.14, in process");
        if k != LEGACY {
            crate::support::spirv_val_result(&out, target_env(&out))
                .unwrap_or_else(|e| panic!("{flavour}: {e}"));
        }
        let (reverse, dis) = reader(14, flavour);
        let back = out.with_extension("back.bc");
        crate::support::run_ok(
            Command::new(&reverse)
                .arg("-r")
                .arg(&out)
                .arg("-o")
                .arg(&back),
        );
        let read = crate::support::run_ok(
            Command::new(dis.tool("llvm-dis"))
                .arg(&back)
                .arg("-o")
                .arg("-"),
        );
        let read = String::from_utf8_lossy(&read.stdout);
        assert!(
            read.contains("DILocalVariable(name: \"t\""),
            "{flavour}: {read}"
        );
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.with_extension("json")).unwrap()).unwrap();
        let converts: Vec<&serde_json::Value> = report["diagnostics"]["losses"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|l| l["message"].as_str().unwrap().contains("operation 0x1001"))
            .collect();
        eprintln!("{flavour}: {} losses of DW_OP_LLVM_convert", converts.len());
        if *flavour == "nonsemantic-shader-200" {
            assert!(converts.is_empty(), "{converts:?}");
            assert!(read.contains("DW_OP_LLVM_convert"), "{read}");
        } else {
            // The four conversions of `(char)a` in its one expression.
            assert_eq!(converts.len(), 4, "{flavour}: {report}");
            assert!(converts.iter().all(|l| l["kind"] == "dropped"));
        }
    }
}
