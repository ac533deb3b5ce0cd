//! Diagnostics of a conversion: what a reader or writer dropped or approximated, and where.
//! `--strict` refuses any loss; `--report` writes them as JSON.

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
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Loss {
    pub kind: LossKind,
    /// Where: an entity (`t3 (member "dir")`), an id (`%44`) or an offset.
    pub place: String,
    pub message: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostics {
    pub losses: Vec<Loss>,
}

impl Diagnostics {
    pub fn push(&mut self, kind: LossKind, place: impl Into<String>, message: impl Into<String>) {
        self.losses.push(Loss {
            kind,
            place: place.into(),
            message: message.into(),
        });
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
