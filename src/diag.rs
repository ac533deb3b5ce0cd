//! Diagnostics of a conversion: what a reader or writer dropped or approximated, and where.
//! `--strict` refuses every loss but those no output of the target can avoid (`inherent`);
//! `--report` writes them as JSON.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossKind {
    /// Information the target cannot hold at all.
    Dropped,
    /// Information the target holds only approximately (another encoding, a nearest value).
    Approximated,
    /// Something of the input dwarv does not understand, kept raw or skipped.
    Unknown,
    /// A part of the input that could not be tied to the target (an unmatched function…).
    Unmatched,
    /// An output its consumers will refuse to load: a Vulkan shader in a debug set Vulkan
    /// drivers do not take.
    Unloadable,
}

impl LossKind {
    /// Its name as the report spells it (`approximated`).
    pub fn name(self) -> &'static str {
        match self {
            LossKind::Dropped => "dropped",
            LossKind::Approximated => "approximated",
            LossKind::Unknown => "unknown",
            LossKind::Unmatched => "unmatched",
            LossKind::Unloadable => "unloadable",
        }
    }

    /// Whether a writer's loss of this kind is a limit of the target (`Loss::inherent`), unless
    /// an option caused it: what is dropped or approximated for want of a place in the format
    /// is; an unmatched tie, an unloadable output and input dwarv does not understand are not.
    pub fn is_target_limit(self) -> bool {
        matches!(self, LossKind::Dropped | LossKind::Approximated)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Loss {
    pub kind: LossKind,
    /// Where: an entity (`t3 (member "dir")`), an id (`%44`) or an offset.
    pub place: String,
    pub message: String,
    /// No output of this target can keep it, whatever the options: the format, the set's
    /// layouts or its consumers' validators have no place for it (or the given code has no
    /// instruction for it). `--strict` lets these pass: nothing the user does avoids them.
    #[serde(default, skip_serializing_if = "is_false")]
    pub inherent: bool,
    /// The whole entities it leaves out of the output, of those the summary counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leaves_out: Option<LeftOut>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Loss {
    /// Marks it as an option or the input can avoid (not `inherent`): a writer's loss caused by
    /// an option (AMD extensions off, a DWARF version).
    pub fn avoidable(&mut self) -> &mut Self {
        self.inherent = false;
        self
    }
    /// Records that it leaves `count` whole entities of a counted kind out of the output.
    pub fn leaves_out(&mut self, what: Counted, count: usize) -> &mut Self {
        self.leaves_out = Some(LeftOut { what, count });
        self
    }
}

/// The entities a conversion's summary counts, kept of all: what a debugger's user checks first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Counted {
    Functions,
    LineRows,
    Variables,
    Types,
}

impl Counted {
    pub const ALL: [Counted; 4] = [
        Counted::Functions,
        Counted::LineRows,
        Counted::Variables,
        Counted::Types,
    ];
    /// Its name in the summary line.
    pub fn name(self) -> &'static str {
        match self {
            Counted::Functions => "functions",
            Counted::LineRows => "line rows",
            Counted::Variables => "variables",
            Counted::Types => "types",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeftOut {
    pub what: Counted,
    pub count: usize,
}

/// Of one counted kind: how many the input had (as read) and how many the output holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    pub kept: usize,
    pub total: usize,
}

/// What a conversion kept of the entities its summary counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kept {
    pub functions: Tally,
    pub line_rows: Tally,
    pub variables: Tally,
    pub types: Tally,
}

impl Kept {
    /// The totals of `m`, all kept: count them before a writer takes the module, then apply
    /// its losses with `less`.
    pub fn totals(m: &crate::ir::Module) -> Kept {
        let functions = m.scopes.values().filter(|s| s.function().is_some()).count();
        let mut kept = Kept::default();
        for (what, total) in
            Counted::ALL
                .into_iter()
                .zip([functions, m.lines.len(), m.vars.len(), m.types.len()])
        {
            *kept.tally_mut(what) = Tally { kept: total, total };
        }
        kept
    }
    /// These counts less what the losses leave out of the output.
    pub fn less(mut self, diagnostics: &Diagnostics) -> Kept {
        for left in diagnostics.losses.iter().filter_map(|l| l.leaves_out) {
            let tally = self.tally_mut(left.what);
            tally.kept = tally.kept.saturating_sub(left.count);
        }
        self
    }
    /// `3/3 functions, 0/153 line rows, …` over the kinds the input had; none when it had none.
    pub fn summary(&self) -> Option<String> {
        let tallies: Vec<String> = Counted::ALL
            .into_iter()
            .map(|what| (what, self.tally(what)))
            .filter(|(_, tally)| tally.total > 0)
            .map(|(what, tally)| format!("{}/{} {}", tally.kept, tally.total, what.name()))
            .collect();
        (!tallies.is_empty()).then(|| tallies.join(", "))
    }
    /// Adds another conversion's counts (a batch's totals).
    pub fn add(&mut self, other: &Kept) {
        for what in Counted::ALL {
            let (sum, more) = (self.tally_mut(what), other.tally(what));
            sum.kept += more.kept;
            sum.total += more.total;
        }
    }
    pub fn tally(&self, what: Counted) -> Tally {
        match what {
            Counted::Functions => self.functions,
            Counted::LineRows => self.line_rows,
            Counted::Variables => self.variables,
            Counted::Types => self.types,
        }
    }
    fn tally_mut(&mut self, what: Counted) -> &mut Tally {
        match what {
            Counted::Functions => &mut self.functions,
            Counted::LineRows => &mut self.line_rows,
            Counted::Variables => &mut self.variables,
            Counted::Types => &mut self.types,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostics {
    pub losses: Vec<Loss>,
}

impl Diagnostics {
    /// Records a loss; the returned one takes the marks `inherent` and `leaves_out`.
    pub fn push(
        &mut self,
        kind: LossKind,
        place: impl Into<String>,
        message: impl Into<String>,
    ) -> &mut Loss {
        self.losses.push(Loss {
            kind,
            place: place.into(),
            message: message.into(),
            inherent: false,
            leaves_out: None,
        });
        self.losses.last_mut().expect("just pushed")
    }
    /// Records a writer's loss: `inherent` when its kind is a limit of the target.
    pub fn push_written(
        &mut self,
        kind: LossKind,
        place: impl Into<String>,
        message: impl Into<String>,
    ) -> &mut Loss {
        let loss = self.push(kind, place, message);
        loss.inherent = kind.is_target_limit();
        loss
    }
    /// The losses `--strict` refuses: all but the inherent ones.
    pub fn avoidable(&self) -> impl Iterator<Item = &Loss> {
        self.losses.iter().filter(|l| !l.inherent)
    }
    pub fn is_empty(&self) -> bool {
        self.losses.is_empty()
    }
    /// Count of losses per kind, in kind order.
    pub fn by_kind(&self) -> Vec<(LossKind, usize)> {
        let mut counts: std::collections::BTreeMap<LossKind, usize> = Default::default();
        for l in &self.losses {
            *counts.entry(l.kind).or_default() += 1;
        }
        counts.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_counts_less_what_losses_leave_out() {
        let mut kept = Kept::default();
        kept.line_rows = Tally {
            kept: 10,
            total: 10,
        };
        kept.types = Tally { kept: 4, total: 4 };
        let mut d = Diagnostics::default();
        d.push(LossKind::Unmatched, "module", "rows")
            .leaves_out(Counted::LineRows, 3);
        d.push_written(LossKind::Approximated, "t1", "typedef")
            .leaves_out(Counted::Types, 1);
        d.push_written(LossKind::Dropped, "u0", "producer");
        let kept = kept.less(&d);
        assert_eq!(kept.summary().unwrap(), "7/10 line rows, 3/4 types");
        assert_eq!(Kept::default().summary(), None);
        // What a writer drops for want of a place is inherent; the unmatched rows are not.
        assert_eq!(d.avoidable().count(), 1);
        let mut caused = Kept::default();
        caused.add(&kept);
        caused.add(&kept);
        assert_eq!(
            caused.line_rows,
            Tally {
                kept: 14,
                total: 20
            }
        );
    }
}
