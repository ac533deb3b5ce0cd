//! The batch report: one record per input, totals, the summary table, and the merge of shard
//! reports.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::diag::{Kept, Loss, LossKind};
use crate::error::{Error, Result};
use crate::stats::Stats;

/// What happened to one input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Converted,
    /// The output was newer than the input (re-run without `--force`).
    UpToDate,
    /// Found under a directory but in no format dwarv reads.
    NotDebugInfo,
    Failed,
}

/// One input's record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub input: String,
    /// The container part this record converted (`host`, a device target id): a container
    /// input gets one record per part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<String>,
    /// The output written (or kept, when up to date); none when the input failed.
    pub output: Option<String>,
    /// The detected input format.
    pub format: Option<String>,
    pub status: Status,
    pub error: Option<String>,
    pub bytes_in: u64,
    pub bytes_out: u64,
    pub millis: u64,
    pub losses: Vec<Loss>,
    /// Of the functions, line rows, variables and types read, how many the output holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept: Option<Kept>,
    /// Coverage of the output as read back (when dwarv reads the target format).
    pub stats: Option<Stats>,
}

/// Sums over records.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    pub inputs: u64,
    pub converted: u64,
    pub up_to_date: u64,
    pub not_debug_info: u64,
    pub failed: u64,
    /// Losses by kind (`dropped`, `approximated`, `unknown`, `unmatched`).
    pub losses: BTreeMap<String, u64>,
    /// Of those losses, the ones no output of the target avoids (`--strict` lets them pass).
    #[serde(default)]
    pub inherent: u64,
    /// Summed over the records that count them.
    #[serde(default)]
    pub kept: Kept,
    pub bytes_in: u64,
    pub bytes_out: u64,
    /// Wall time of the run; for a merged report, the sum over the shards.
    pub seconds: f64,
}

/// The JSON report of a batch (`--report`) or of a merge.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Always `dwarv-batch-report`, so `report merge` can refuse other JSON.
    pub kind: String,
    pub version: u32,
    pub target: String,
    pub flavour: Option<String>,
    /// `K/N` of a sharded run; absent for a whole run or a merge.
    pub shard: Option<String>,
    /// The shards a merged report was made of.
    #[serde(default)]
    pub merged: Vec<String>,
    pub totals: Totals,
    pub records: Vec<Record>,
}

pub const KIND: &str = "dwarv-batch-report";

impl Report {
    pub fn new(target: &str, flavour: Option<&str>, shard: Option<String>) -> Report {
        Report {
            kind: KIND.into(),
            version: 1,
            target: target.into(),
            flavour: flavour.map(Into::into),
            shard,
            merged: Vec::new(),
            totals: Totals::default(),
            records: Vec::new(),
        }
    }

    /// Recomputes the totals from the records (the time is kept).
    pub fn total(&mut self) {
        let seconds = self.totals.seconds;
        let mut t = Totals {
            seconds,
            ..Totals::default()
        };
        for r in &self.records {
            t.inputs += 1;
            match r.status {
                Status::Converted => t.converted += 1,
                Status::UpToDate => t.up_to_date += 1,
                Status::NotDebugInfo => t.not_debug_info += 1,
                Status::Failed => t.failed += 1,
            }
            for l in &r.losses {
                let kind = serde_json::to_value(l.kind)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default();
                *t.losses.entry(kind).or_default() += 1;
                t.inherent += u64::from(l.inherent);
            }
            if let Some(kept) = &r.kept {
                t.kept.add(kept);
            }
            t.bytes_in += r.bytes_in;
            t.bytes_out += r.bytes_out;
        }
        self.totals = t;
    }

    /// The summary table printed at the end of a batch.
    pub fn summary(&self) -> String {
        use std::fmt::Write;
        let t = &self.totals;
        let mut s = String::new();
        let row = |s: &mut String, k: &str, v: String| {
            let _ = writeln!(s, "  {k:<16} {v}");
        };
        let _ = writeln!(
            s,
            "batch summary ({} input(s) → {}):",
            t.inputs, self.target
        );
        row(&mut s, "converted", t.converted.to_string());
        row(&mut s, "up to date", t.up_to_date.to_string());
        row(&mut s, "not debug info", t.not_debug_info.to_string());
        row(&mut s, "failed", t.failed.to_string());
        let losses = match t.losses.is_empty() {
            true if t.converted == 0 => "none converted".to_string(),
            true => "none".to_string(),
            false => t
                .losses
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect::<Vec<_>>()
                .join(", "),
        };
        let losses = match t.inherent {
            0 => losses,
            n => format!("{losses} ({n} the target cannot hold)"),
        };
        row(&mut s, "losses", losses);
        if let Some(kept) = t.kept.summary() {
            // A module rewritten on its own words is not read into the IR, so not counted.
            let converted = self
                .records
                .iter()
                .filter(|r| r.status == Status::Converted);
            let (counted, all) = converted.fold((0, 0), |(counted, all), r| {
                (counted + usize::from(r.kept.is_some()), all + 1)
            });
            let of = match counted == all {
                true => String::new(),
                false => format!(
                    " (of {counted} of the {all} converted; the others were rewritten on their own \
                     words, not counted)"
                ),
            };
            row(&mut s, "kept", format!("{kept}{of}"));
        }
        let unloadable = self
            .records
            .iter()
            .filter(|r| r.losses.iter().any(|l| l.kind == LossKind::Unloadable))
            .count();
        if unloadable > 0 {
            row(
                &mut s,
                "will not load",
                format!("{unloadable} Vulkan shader(s) in a set Vulkan drivers refuse (write shader100)"),
            );
        }
        row(
            &mut s,
            "bytes",
            format!("{} in, {} out", t.bytes_in, t.bytes_out),
        );
        row(&mut s, "time", format!("{:.2} s", t.seconds));
        for r in self.records.iter().filter(|r| r.status == Status::Failed) {
            let _ = writeln!(
                s,
                "  failed: {}: {}",
                r.input,
                r.error.as_deref().unwrap_or("")
            );
        }
        s
    }
}

/// Joins shard reports: records concatenated (sorted by input), totals recomputed, times summed.
/// Reports of other targets or flavours, or naming one input twice, are refused.
pub fn merge(parts: &[(String, Report)]) -> Result<Report> {
    let Some((_, first)) = parts.first() else {
        return Err(Error::Usage(
            "report merge needs at least one report".into(),
        ));
    };
    let mut out = Report::new(&first.target, first.flavour.as_deref(), None);
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    for (path, r) in parts {
        if r.kind != KIND {
            return Err(Error::Usage(format!("{path}: not a dwarv batch report")));
        }
        if (r.target.as_str(), r.flavour.as_deref())
            != (out.target.as_str(), out.flavour.as_deref())
        {
            return Err(Error::Usage(format!(
                "{path}: a report of target {} (flavour {}) cannot join one of {} (flavour {})",
                r.target,
                r.flavour.as_deref().unwrap_or("-"),
                out.target,
                out.flavour.as_deref().unwrap_or("-")
            )));
        }
        for rec in &r.records {
            if let Some(other) = seen.insert(rec.input.clone(), path.clone()) {
                return Err(Error::Usage(format!(
                    "input {} is in both {other} and {path}",
                    rec.input
                )));
            }
        }
        out.records.extend(r.records.iter().cloned());
        out.merged
            .push(r.shard.clone().unwrap_or_else(|| path.clone()));
        out.totals.seconds += r.totals.seconds;
    }
    out.records.sort_by(|a, b| a.input.cmp(&b.input));
    out.total();
    Ok(out)
}

/// Reads a report file.
pub fn load(path: &str) -> Result<Report> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_string(),
        source,
    })?;
    serde_json::from_slice(&bytes)
        .map_err(|e| Error::Usage(format!("{path}: not a dwarv batch report: {e}")))
}
