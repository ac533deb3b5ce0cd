//! `dwarv stats`: what a module's debug information covers — a "locstats" for every format.
//!
//! Format-neutral figures come from the IR: entities by kind, the share of code covered by a
//! line row and by a scope, variables with a location. What only the input format knows (its
//! debug instructions by opcode, the extent of its code) is added per format: SPIR-V counts
//! its debug instructions by name and measures code in instructions of the normal form; DWARF
//! counts its DIEs by tag; machine code is measured in bytes of the functions' ranges.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::input::{self, Format, Input};
use crate::ir::{self, CodePos, CodeRange, Module, ScopeKind, VarKind};
use crate::spirv::binary::op;

/// The figures of one module.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    pub format: String,
    /// Format-specific debug records by name (SPIR-V: debug-set instructions and the core debug
    /// instructions; DWARF: DIEs by tag; empty for the other formats).
    pub debug_records: BTreeMap<String, u64>,
    /// IR entities by kind (`type.struct`, `scope.function`, `variable.local`, `line_row`…).
    pub entities: BTreeMap<String, u64>,
    pub code: Coverage,
    pub variables: u64,
    /// Variables with a location: a location expression, a binding, or a declare/value event.
    pub variables_with_location: u64,
}

/// How much of the code the debug information covers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    /// `instructions` (SPIR-V) or `bytes` (machine code); empty when the extent is unknown.
    pub unit: String,
    pub total: u64,
    pub with_line: u64,
    pub with_scope: u64,
}

impl Stats {
    /// Percentages for the summary line: lines, scopes, variables with a location.
    pub fn shares(&self) -> (Option<f64>, Option<f64>, Option<f64>) {
        let pct = |a: u64, b: u64| (b > 0).then(|| 100.0 * a as f64 / b as f64);
        (
            pct(self.code.with_line, self.code.total),
            pct(self.code.with_scope, self.code.total),
            pct(self.variables_with_location, self.variables),
        )
    }

    /// The human-readable form `dwarv stats` prints.
    pub fn render(&self, name: &str) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let pct = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |p| format!("{p:.1}%"));
        let (lines, scopes, vars) = self.shares();
        let _ = writeln!(s, "{name} ({})", self.format);
        if !self.code.unit.is_empty() {
            let _ = writeln!(
                s,
                "  code: {} {}; with a line {} ({}), with a scope {} ({})",
                self.code.total,
                self.code.unit,
                self.code.with_line,
                pct(lines),
                self.code.with_scope,
                pct(scopes)
            );
        }
        let _ = writeln!(
            s,
            "  variables: {}; with a location {} ({})",
            self.variables,
            self.variables_with_location,
            pct(vars)
        );
        for (title, map) in [
            ("debug records", &self.debug_records),
            ("entities", &self.entities),
        ] {
            if map.is_empty() {
                continue;
            }
            let _ = writeln!(s, "  {title}:");
            for (k, v) in map {
                let _ = writeln!(s, "    {k:<32} {v:>10}");
            }
        }
        s
    }
}

/// The statistics of an input (any format dwarv reads).
pub fn of_input(inp: &Input) -> Result<Stats> {
    let format = input::detect(&inp.bytes).ok_or_else(|| Error::UnknownFormat {
        path: inp.name.clone(),
    })?;
    if format == Format::Spirv {
        return of_spirv(inp);
    }
    let (module, _) = input::lower_with_diagnostics(inp)?;
    let mut st = of_module(&module, format.name());
    if format == Format::Elf {
        st.debug_records = crate::front::dwarf::die_tags(&inp.bytes, &inp.name)?;
    }
    // Machine code: the extent is the functions' ranges.
    let ranges: Vec<CodeRange> = module
        .scopes
        .values()
        .filter_map(|s| match &s.kind {
            ScopeKind::Function(f) => Some(f.ranges.iter().copied()),
            _ => None,
        })
        .flatten()
        .collect();
    if ranges.iter().any(|r| matches!(r.start, CodePos::Addr(_))) {
        st.code = byte_coverage(&module, &ranges);
    }
    Ok(st)
}

fn of_spirv(inp: &Input) -> Result<Stats> {
    let words = crate::front::spirv::words(&inp.bytes, &inp.name)?;
    let parsed = crate::front::spirv::parse(&words, &inp.name)?;
    let (module, _) = crate::front::spirv::read_parsed(&parsed, &inp.name)?;
    let (bin, nf) = (&parsed.bin, &parsed.nf);
    // The debug sets it imports, named as they are imported: which set an output was written in.
    let sets: Vec<&str> = nf.imports.iter().map(|i| i.name.as_str()).collect();
    let format = match sets.is_empty() {
        true => Format::Spirv.name().to_string(),
        false => format!("{}, {}", Format::Spirv.name(), sets.join(", ")),
    };
    let mut st = of_module(&module, &format);

    let mut code = Vec::new();
    let mut in_function = false;
    for (i, insn) in bin.insns.iter().enumerate() {
        let opcode = insn.opcode();
        let name = match opcode {
            op::EXT_INST | op::EXT_INST_WITH_FORWARD_REFS => insn
                .operand(2)
                .ok()
                .and_then(|set| nf.import(set))
                .map(|imp| {
                    let n = insn.operand(3).unwrap_or(u32::MAX);
                    imp.flavour
                        .layout(n)
                        .map_or_else(|| format!("{} #{n}", imp.name), |l| l.name.to_string())
                }),
            op::LINE => Some("OpLine".into()),
            op::NO_LINE => Some("OpNoLine".into()),
            op::STRING => Some("OpString".into()),
            op::SOURCE => Some("OpSource".into()),
            op::SOURCE_CONTINUED => Some("OpSourceContinued".into()),
            op::SOURCE_EXTENSION => Some("OpSourceExtension".into()),
            op::NAME => Some("OpName".into()),
            op::MEMBER_NAME => Some("OpMemberName".into()),
            op::MODULE_PROCESSED => Some("OpModuleProcessed".into()),
            _ => None,
        };
        if let Some(n) = name {
            *st.debug_records.entry(n).or_default() += 1;
        }
        match opcode {
            op::FUNCTION => in_function = true,
            op::FUNCTION_END => in_function = false,
            op::FUNCTION_PARAMETER | op::LABEL => {}
            _ if in_function => {
                if let Some(pos) = nf.offsets[i] {
                    code.push(pos);
                }
            }
            _ => {}
        }
    }
    let lines: Vec<CodeRange> = module.lines.iter().map(|r| r.range).collect();
    let scopes: Vec<CodeRange> = module.scope_runs.iter().map(|r| r.range).collect();
    st.code = Coverage {
        unit: "instructions".into(),
        total: code.len() as u64,
        with_line: covered_points(&code, &lines),
        with_scope: covered_points(&code, &scopes),
    };
    Ok(st)
}

/// Counts of the IR's entities by kind and of variables with a location.
pub fn of_module(m: &Module, format: &str) -> Stats {
    let mut st = Stats {
        format: format.to_string(),
        ..Stats::default()
    };
    let mut count = |k: String, n: u64| {
        if n > 0 {
            *st.entities.entry(k).or_default() += n;
        }
    };
    for t in m.types.values() {
        count(format!("type.{}", ir::text::type_keyword(&t.kind)), 1);
    }
    for s in m.scopes.values() {
        count(format!("scope.{}", ir::text::scope_keyword(&s.kind)), 1);
    }
    for v in m.vars.values() {
        let k = match v.kind {
            VarKind::Global => "global",
            VarKind::Local => "local",
            VarKind::Param(_) => "param",
            VarKind::Inlined { .. } => "inlined",
        };
        count(format!("variable.{k}"), 1);
    }
    for (k, n) in [
        ("unit", m.units.len()),
        ("file", m.files.len()),
        ("source_text", m.texts.len()),
        ("inlined_at", m.inlined.len()),
        ("expression", m.exprs.len()),
        ("location_list", m.loclists.len()),
        ("macro", m.macros.len()),
        ("import", m.imports.len()),
        ("label", m.labels.len()),
        ("call_site", m.call_sites.len()),
        ("property", m.properties.len()),
        ("entry_point", m.entry_points.len()),
        ("cie", m.cies.len()),
        ("fde", m.fdes.len()),
        ("line_row", m.lines.len()),
        ("scope_run", m.scope_runs.len()),
        ("event", m.events.len()),
    ] {
        count(k.to_string(), n as u64);
    }

    let mut located = vec![false; m.vars.len()];
    for e in &m.events {
        if let Some(slot) = located.get_mut(e.var.index()) {
            *slot = true;
        }
    }
    st.variables = m.vars.len() as u64;
    st.variables_with_location = m
        .vars
        .values()
        .zip(&located)
        .filter(|(v, ev)| **ev || v.location.is_some() || v.binding.is_some())
        .count() as u64;
    st
}

/// How many of the sorted positions `points` fall in at least one of `ranges`.
fn covered_points(points: &[u32], ranges: &[CodeRange]) -> u64 {
    let spans = union(ranges.iter().filter_map(|r| match (r.start, r.end) {
        (CodePos::Spirv(a), CodePos::Spirv(b)) => Some((u64::from(a), u64::from(b))),
        _ => None,
    }));
    let (mut n, mut j) = (0, 0);
    for &p in points {
        let p = u64::from(p);
        while j < spans.len() && spans[j].1 <= p {
            j += 1;
        }
        if j < spans.len() && spans[j].0 <= p {
            n += 1;
        }
    }
    n
}

/// Bytes of the functions' ranges covered by line rows and by scopes (the function itself
/// counts as the scope of its whole range; what matters is the line share).
fn byte_coverage(m: &Module, functions: &[CodeRange]) -> Coverage {
    let code = merge(functions);
    let lines = merge(&m.lines.iter().map(|r| r.range).collect::<Vec<_>>());
    let total: u64 = code.iter().map(|(a, b)| b - a).sum();
    Coverage {
        unit: "bytes".into(),
        total,
        with_line: intersect(&code, &lines),
        with_scope: total,
    }
}

/// Address ranges sorted and merged.
fn merge(ranges: &[CodeRange]) -> Vec<(u64, u64)> {
    union(ranges.iter().filter_map(|r| match (r.start, r.end) {
        (CodePos::Addr(a), CodePos::Addr(b)) => Some((a, b)),
        _ => None,
    }))
}

/// Half-open spans sorted and merged into disjoint ones; empty spans dropped.
fn union(spans: impl Iterator<Item = (u64, u64)>) -> Vec<(u64, u64)> {
    let mut v: Vec<(u64, u64)> = spans.filter(|(a, b)| a < b).collect();
    v.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(v.len());
    for (a, b) in v {
        match out.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

/// Total length of the intersection of two merged range lists.
fn intersect(a: &[(u64, u64)], b: &[(u64, u64)]) -> u64 {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (lo, hi) = (a[i].0.max(b[j].0), a[i].1.min(b[j].1));
        if lo < hi {
            n += hi - lo;
        }
        if a[i].1 < b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(a: u32, b: u32) -> CodeRange {
        CodeRange {
            start: CodePos::Spirv(a),
            end: CodePos::Spirv(b),
        }
    }

    #[test]
    fn points_in_overlapping_ranges() {
        let ranges = [r(0, 100), r(10, 20), r(150, 160)];
        assert_eq!(covered_points(&[5, 15, 99, 100, 155, 160], &ranges), 4);
        assert_eq!(covered_points(&[1, 2], &[]), 0);
    }

    #[test]
    fn byte_ranges_merge_and_intersect() {
        let a = |x: u64, y: u64| CodeRange {
            start: CodePos::Addr(x),
            end: CodePos::Addr(y),
        };
        let code = merge(&[a(0, 10), a(5, 20), a(30, 40)]);
        assert_eq!(code, vec![(0, 20), (30, 40)]);
        assert_eq!(intersect(&code, &merge(&[a(15, 35)])), 10);
    }
}
