//! The loss ledger: what the target set (or the target module) cannot express, each with the IR
//! place it came from; inherent to the target unless marked `avoidable`. The rules per set live here as data so that the writer stays one writer.

use crate::diag::{Diagnostics, Loss, LossKind};
use crate::ir::{verify, Module, Ref};
use crate::spec::spirv::Flavour;

/// Something of the IR that a set may not be able to hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    /// DebugTypeMatrix: SPIRV-LLVM-Translator, `.200`'s judge, has no reader for it.
    Matrix,
    LineRange,
    EntryPoint,
    BuildId,
    StoragePath,
    Source,
    Language,
    Import,
    Atomic,
    Fragment,
    Checksum,
    SourceContinued,
    LinkageOfComposite,
    Inheritance,
    /// DebugMacroDef/Undef and DebugInlinedVariable: SPIRV-LLVM-Translator, the one consumer of
    /// `SPIRV.debug` and `.200`, aborts on them ("Not implemented SPIR-V debug instruction").
    MacroAndInlinedVariable,
}

/// Which sets hold a feature (`true`): the one table of set capabilities beyond the layouts.
pub fn holds(f: Flavour, feature: Feature) -> bool {
    use Feature::*;
    let ns = f.non_semantic();
    let ocl = matches!(f, Flavour::OpenCl100 | Flavour::SpirvDebug);
    match feature {
        Matrix => f == Flavour::Shader100,
        LineRange | EntryPoint | BuildId | StoragePath | SourceContinued => ns,
        Source | Language | Atomic | Fragment | LinkageOfComposite => ns || ocl,
        // `SPIRV.debug` takes llvm-spirv-14's 8-operand form (spec::spirv::LLVM_SPIRV14_LAYOUTS).
        Import => ns || ocl,
        // `.200` has Checksum Kind and Value operands; the OpenCL.100 sets, llvm-spirv's text.
        Checksum => ocl || f == Flavour::Shader200,
        // spirv-val 2025.5 checks NonSemantic DebugTypeInheritance against the OpenCL.100 layout
        // (with a Child operand the NonSemantic spec removed).
        Inheritance => f != Flavour::Shader100,
        MacroAndInlinedVariable => f.judged_by_spirv_val(),
    }
}

pub struct Ledger<'m> {
    pub m: &'m Module,
    pub diags: Diagnostics,
}

impl<'m> Ledger<'m> {
    pub fn new(m: &'m Module) -> Self {
        Ledger {
            m,
            diags: Diagnostics::default(),
        }
    }
    pub fn place(&self, r: Ref) -> String {
        verify::describe(self.m, r)
    }
    pub fn dropped(&mut self, r: Ref, msg: impl Into<String>) -> &mut Loss {
        let p = self.place(r);
        self.diags.push_written(LossKind::Dropped, p, msg)
    }
    pub fn approx(&mut self, r: Ref, msg: impl Into<String>) -> &mut Loss {
        let p = self.place(r);
        self.diags.push_written(LossKind::Approximated, p, msg)
    }
    pub fn push(
        &mut self,
        kind: LossKind,
        place: impl Into<String>,
        msg: impl Into<String>,
    ) -> &mut Loss {
        self.diags.push_written(kind, place, msg)
    }
}

/// Cuts `s` to at most `max` bytes on a UTF-8 character boundary; returns (head, rest).
pub fn split_utf8(s: &str, max: usize) -> (&str, &str) {
    if s.len() <= max {
        return (s, "");
    }
    let mut cut = max;
    while cut > 0 && !s.is_char_boundary(cut) {
        cut -= 1;
    }
    s.split_at(cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_char_boundaries() {
        let s = "aé€😀";
        for max in 0..s.len() + 2 {
            let (h, r) = split_utf8(s, max);
            assert!(h.len() <= max);
            assert_eq!(format!("{h}{r}"), s);
        }
        assert_eq!(split_utf8("aé", 2), ("a", "é"));
    }

    #[test]
    fn set_capabilities() {
        assert!(holds(Flavour::Shader100, Feature::Matrix));
        assert!(!holds(Flavour::OpenCl100, Feature::Matrix));
        assert!(!holds(Flavour::DebugInfo, Feature::Source));
        assert!(holds(Flavour::SpirvDebug, Feature::Checksum));
        assert!(!holds(Flavour::Shader100, Feature::Checksum));
    }
}
