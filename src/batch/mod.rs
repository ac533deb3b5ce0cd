//! `dwarv batch`: convert whole corpora in parallel, one bad input never stopping the rest.
//!
//! Inputs are expanded and named (`inputs`), optionally cut to a shard, then converted on a
//! rayon pool of `--jobs` threads with the same driver as `dwarv convert`; each job holds one
//! module at a time, so memory is bounded by the largest inputs in flight, not by the corpus.
//! Every input gets a record in the report (`report`).

pub mod inputs;
pub mod report;

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use rayon::prelude::*;

use crate::convert::{self, Target};
use crate::error::{Error, Result};
use crate::input;
use crate::spec::spirv::Flavour;

pub use inputs::Shard;
pub use report::{Record, Report, Status};

#[derive(Clone, Debug)]
pub struct Options {
    /// Files, directories (walked recursively) and `@LIST` files.
    pub inputs: Vec<String>,
    pub out_dir: PathBuf,
    pub to: Target,
    pub flavour: Option<Flavour>,
    /// Worker threads; default: the machine's cores.
    pub jobs: Option<usize>,
    /// Convert even inputs whose output is newer.
    pub force: bool,
    /// No progress bar, plain lines (also when stderr is not a terminal).
    pub quiet: bool,
    pub shard: Option<Shard>,
    /// Refuse (fail) conversions that lose anything.
    pub strict: bool,
    /// Read each output back for its coverage figures (the report's `stats`).
    pub stats: bool,
    /// Convert inputs without debug info (into nothing) rather than fail them.
    pub allow_no_debug_info: bool,
}

/// The file in the output directory that records the settings its outputs were written with.
pub const SETTINGS_FILE: &str = ".dwarv-batch";

/// What makes an output's bytes: dwarv's version, the target and the flavour.
fn settings_line(opts: &Options) -> String {
    format!(
        "dwarv {} to={} flavour={}\n",
        env!("CARGO_PKG_VERSION"),
        opts.to.name(),
        opts.flavour.map_or("default", Flavour::cli_name)
    )
}

/// The file extension outputs of a target get.
pub fn extension(t: Target) -> &'static str {
    match t {
        Target::Ir => "dwir",
        Target::Spirv => "spv",
        Target::Dwarf => "o",
        Target::Visa => "visa",
    }
}

/// Runs a batch; the report holds one record per input (of the shard). Errors only for what
/// stops the whole batch (an unreadable `@LIST`, a bad output directory, a thread pool that
/// cannot start).
pub fn run(opts: &Options) -> Result<Report> {
    let start = Instant::now();
    if opts.flavour.is_some() && opts.to != Target::Spirv {
        return Err(Error::Usage(format!(
            "--flavour applies to SPIR-V output, not {}",
            opts.to.name()
        )));
    }
    std::fs::create_dir_all(&opts.out_dir).map_err(|source| Error::Io {
        path: opts.out_dir.display().to_string(),
        source,
    })?;
    let mut items = inputs::expand(&opts.inputs)?;
    if let Some(shard) = opts.shard {
        items.retain(|i| shard.takes(&i.rel));
    }
    let ext = extension(opts.to);
    // Inputs with a problem have no output name.
    let outputs: Vec<Option<PathBuf>> = items
        .iter()
        .map(|i| {
            i.problem
                .is_none()
                .then(|| inputs::output_path(&opts.out_dir, &i.rel, ext))
        })
        .collect();
    let lost = inputs::collisions(&outputs);
    // Outputs written with other settings, or by another dwarv, are not up to date.
    let settings_path = opts.out_dir.join(SETTINGS_FILE);
    let settings = settings_line(opts);
    let written_with = std::fs::read_to_string(&settings_path).unwrap_or_default();
    let opts = &Options {
        force: opts.force || written_with != settings,
        ..opts.clone()
    };

    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs.unwrap_or(0))
        .build()
        .map_err(|e| Error::Usage(format!("cannot start {:?} worker(s): {e}", opts.jobs)))?;
    let progress = Progress::new(items.len() as u64, opts.quiet);
    let records: Vec<Record> = pool.install(|| {
        items
            .par_iter()
            .zip(outputs.par_iter())
            .enumerate()
            .map(|(i, (item, output))| {
                let recs = match (output, lost.get(&i)) {
                    (None, _) => vec![failed(item, item.problem.clone())],
                    (Some(output), Some(&j)) => vec![failed(
                        item,
                        Some(format!(
                            "its output {} is also the output of {}",
                            output.display(),
                            items[j].path.display()
                        )),
                    )],
                    (Some(output), None) => one(opts, item, output),
                };
                recs.iter().for_each(|r| progress.done(r));
                recs
            })
            .flatten()
            .collect()
    });
    progress.finish();
    crate::output::write_atomic(&settings_path.display().to_string(), settings.as_bytes())?;
    crate::output::sync_filesystem(&opts.out_dir)?;

    let mut rep = Report::new(
        opts.to.name(),
        opts.flavour.map(Flavour::cli_name),
        opts.shard.map(|s| format!("{}/{}", s.index, s.count)),
    );
    rep.records = records;
    rep.totals.seconds = start.elapsed().as_secs_f64();
    rep.total();
    Ok(rep)
}

/// Converts one input: a container part by part (one record each, outputs named
/// `NAME.PART.EXT`), anything else whole.
fn one(opts: &Options, item: &inputs::Item, output: &Path) -> Vec<Record> {
    match container_parts(&item.path) {
        Some(names) => names
            .iter()
            .map(|n| one_part(opts, item, &part_output(output, n), Some(n)))
            .collect(),
        None => vec![one_part(opts, item, output, None)],
    }
}

/// The parts' names when `path` is a container (a damaged one is converted whole, so that its
/// record carries the error).
fn container_parts(path: &Path) -> Option<Vec<String>> {
    let inp = input::read(&path.display().to_string()).ok()?;
    let parts = crate::container::open(&inp.bytes, &inp.name).ok()??;
    Some(parts.into_iter().map(|p| p.name).collect())
}

/// `out/k.dwir` for part `hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+` →
/// `out/k.hipv4-amdgcn-amd-amdhsa--gfx90a_xnack_.dwir`.
fn part_output(output: &Path, part: &str) -> PathBuf {
    let safe: String = part
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '-' | '_' | '.' => c,
            _ => '_',
        })
        .collect();
    let ext = output.extension().and_then(|e| e.to_str()).unwrap_or("");
    output.with_extension(format!("{safe}.{ext}"))
}

/// Converts one input, or one part of a container input.
fn one_part(opts: &Options, item: &inputs::Item, output: &Path, part: Option<&str>) -> Record {
    let start = Instant::now();
    let path = item.path.display().to_string();
    let out_name = output.display().to_string();
    let mut rec = failed(item, None);
    rec.part = part.map(str::to_string);
    let finish = |mut rec: Record| {
        rec.millis = start.elapsed().as_millis() as u64;
        rec
    };
    let format = match head(&item.path) {
        Ok(h) => input::detect(&h),
        Err(e) => {
            rec.error = Some(Error::Io { path, source: e }.to_string());
            return finish(rec);
        }
    };
    rec.format = format.map(|f| f.name().to_string());
    if format.is_none() {
        if item.walked {
            rec.status = Status::NotDebugInfo;
        } else {
            rec.error = Some(Error::UnknownFormat { path }.to_string());
        }
        return finish(rec);
    }
    if !opts.force && newer(output, &item.path) {
        rec.status = Status::UpToDate;
        rec.bytes_in = size(&item.path);
        rec.bytes_out = size(output);
        rec.output = Some(out_name);
        return finish(rec);
    }
    if let Err(e) = inputs::prepare_output(&opts.out_dir, output) {
        rec.error = Some(e.to_string());
        return finish(rec);
    }
    let copts = convert::Options {
        to: Some(opts.to),
        flavour: opts.flavour,
        into: None,
        part: part.map(str::to_string),
        with: None,
        strict: opts.strict,
        through_ir: false,
        forward_refs: false,
        dwarf: Default::default(),
        // One sync of the output filesystem at the end of the batch instead of a serialising
        // fsync per file.
        durability: crate::output::Durability::Deferred,
        allow_no_debug_info: opts.allow_no_debug_info,
        allow_unmatched: false,
    };
    let mut crep = convert::Report::new(&path, &out_name);
    let result = convert::convert(&path, &out_name, &copts, &mut crep);
    rec.bytes_in = crep.bytes_in;
    rec.losses = crep.diagnostics.losses;
    rec.kept = crep.kept;
    match result {
        Ok(()) => {
            rec.status = Status::Converted;
            rec.bytes_out = crep.bytes_out;
            rec.output = Some(out_name.clone());
            if opts.stats {
                rec.stats = input::read(&out_name)
                    .and_then(|inp| crate::stats::of_input(&inp))
                    .ok();
            }
        }
        Err(e) => rec.error = Some(e.to_string()),
    }
    finish(rec)
}

/// A failed record: the start of every record, until the conversion succeeds.
fn failed(item: &inputs::Item, error: Option<String>) -> Record {
    Record {
        input: item.path.display().to_string(),
        part: None,
        output: None,
        format: None,
        status: Status::Failed,
        error,
        bytes_in: 0,
        bytes_out: 0,
        millis: 0,
        losses: Vec::new(),
        kept: None,
        stats: None,
    }
}

/// The first bytes of a file: enough for format detection.
fn head(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(4096);
    std::fs::File::open(path)?
        .take(4096)
        .read_to_end(&mut buf)?;
    Ok(buf)
}

fn mtime(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Whether `output` exists and is newer than `input`.
fn newer(output: &Path, input: &Path) -> bool {
    matches!((mtime(output), mtime(input)), (Some(o), Some(i)) if o > i)
}

fn size(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// A progress bar on a terminal, otherwise one plain line per input; with `--quiet` only the
/// failures.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    quiet: bool,
}

impl Progress {
    fn new(len: u64, quiet: bool) -> Progress {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::new(len);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "{elapsed_precise} [{bar:40}] {pos}/{len} {wide_msg}",
            ) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar
        });
        Progress { bar, quiet }
    }

    fn done(&self, rec: &Record) {
        let line = match (rec.status, &rec.output, &rec.error) {
            (Status::Failed, _, e) => {
                // The error names the input already when it is about the input.
                let e = e.as_deref().unwrap_or("");
                let e = e.strip_prefix(&format!("{}: ", rec.input)).unwrap_or(e);
                format!("failed {}: {e}", rec.input)
            }
            (Status::NotDebugInfo, ..) => format!("passed over {} (not debug info)", rec.input),
            (Status::UpToDate, Some(o), _) => format!("up to date {} → {o}", rec.input),
            (_, Some(o), _) => format!("converted {} → {o}", rec.input),
            (_, None, _) => format!("converted {}", rec.input),
        };
        match &self.bar {
            Some(bar) => {
                if rec.status == Status::Failed {
                    bar.println(&line);
                }
                bar.set_message(rec.input.clone());
                bar.inc(1);
            }
            None if self.quiet && rec.status != Status::Failed => {}
            None => eprintln!("{line}"),
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
