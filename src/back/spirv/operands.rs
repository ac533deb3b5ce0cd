//! Operand helpers shared by the entity writers: places, sizes, flags, enum values.

use super::encode::V;
use super::writer::Writer;
use crate::ir::{Bound, Flags, Handle, Loc, Ref, Type, FLAG_NAMES};
use crate::spec::spirv::{to_set, Flavour, Map};
use crate::spec::spirv_names::{instruction, operand, InsnName, OperandName};

impl Writer<'_> {
    pub fn layout_has(&self, insn: InsnName, name: OperandName) -> bool {
        self.e
            .flavour
            .layout_by_name(insn.0)
            .is_some_and(|l| l.operands.iter().any(|o| o.name == name.0))
    }

    /// Whether the IR came from this very set (unknown enum values and foreign flag bits are then
    /// the set's own numbers and go back as they were).
    pub fn same_set(&self) -> bool {
        self.m.source.format == crate::ir::SourceFormat::Spirv
            && self
                .m
                .source
                .flavour
                .as_deref()
                .and_then(Flavour::from_import_name)
                .is_some_and(|f| {
                    f == self.e.flavour
                        || (self.e.flavour.literal_numbers()
                            && f.literal_numbers()
                            && f != Flavour::DebugInfo
                            && self.e.flavour != Flavour::DebugInfo)
                })
    }

    pub fn num(&mut self, r: Ref, v: u64) -> u32 {
        u32::try_from(v).unwrap_or_else(|_| {
            self.ledger.approx(
                r,
                format!("{v} does not fit a 32-bit operand; written as {}", u32::MAX),
            );
            u32::MAX
        })
    }

    pub fn size(&mut self, r: Ref, b: Option<Bound>) -> V {
        match b {
            Some(Bound::Const(n)) => V::Num(self.num(r, n.max(0) as u64)),
            Some(Bound::Ref(_)) => {
                self.ledger.dropped(
                    r,
                    "a size computed at run time: the set takes only constants",
                );
                V::None
            }
            None => V::None,
        }
    }

    /// The set's DebugInfoFlags word for IR flags; bits the set has no name for are ledgered.
    pub fn flags(&mut self, r: Ref, f: Flags) -> u32 {
        let table = self.e.flavour.flags();
        let mut word = 0;
        let mut lost = Vec::new();
        for (i, name) in FLAG_NAMES.iter().enumerate() {
            let flag = Flags::bit(i);
            if !f.has(flag) {
                continue;
            }
            if flag == Flags::PUBLIC {
                word |= 3;
            } else if let Some((bit, _)) = table.iter().find(|(_, n)| *n == flag) {
                word |= bit;
            } else {
                lost.push(*name);
            }
        }
        if f.foreign != 0 {
            if self.same_set() {
                word |= f.foreign;
            } else {
                lost.push("foreign bits");
            }
        }
        if !lost.is_empty() {
            self.ledger.dropped(
                r,
                format!("flags the set has no bit for: {}", lost.join(", ")),
            );
        }
        word
    }

    /// The set's value of an open-enum IR value (`raw` its number); unknown values the reader
    /// kept in the private range (`0x1_0000 + v` / `0x8000 + v`) go back as `v` to the same set.
    pub fn set_value<T: PartialEq + Copy>(
        &mut self,
        r: Ref,
        map: Map<T>,
        v: T,
        raw: u32,
        private: u32,
        what: &str,
    ) -> u32 {
        if let Some(n) = to_set(map, v) {
            return n;
        }
        if raw >= private && self.same_set() {
            return raw - private;
        }
        self.ledger.approx(
            r,
            format!("{what} {raw:#x} has no value in the set; written as 0"),
        );
        0
    }

    pub fn enum_value(
        &mut self,
        r: Ref,
        map: Map<crate::ir::Encoding>,
        v: crate::ir::Encoding,
        what: &str,
    ) -> u32 {
        self.set_value(r, map, v, v.0, 0x1_0000, what)
    }

    /// A base type, with `void` (none) written as a `void` DebugTypeBasic: spirv-val 2025.5
    /// rejects DebugInfoNone there.
    pub fn base_or_void(&mut self, r: Ref, h: Option<Handle<Type>>) -> V {
        if let Some(h) = h {
            return V::Id(self.id(Ref::Type(h)));
        }
        // SPIRV-LLVM-Translator, the judge of SPIRV.debug and .200, reads DebugInfoNone as "no
        // type" everywhere.
        if !self.e.flavour.judged_by_spirv_val() {
            return V::Id(self.e.none());
        }
        if let Some(id) = self.void_basic {
            return V::Id(id);
        }
        self.ledger.approx(
            r,
            "an absent (void or unknown) type written as DebugTypeBasic \"void\" (spirv-val rejects DebugInfoNone here)",
        );
        let args = [
            (operand::NAME, V::Str("void".into())),
            (operand::SIZE, V::Num(0)),
            (operand::ENCODING, V::Num(0)),
            (operand::FLAGS, V::Num(0)),
        ];
        let id = self
            .e
            .ext(instruction::DEBUG_TYPE_BASIC, &args)
            .unwrap_or_else(|| self.e.none());
        self.void_basic = Some(id);
        V::Id(id)
    }

    /// Source, Line and Column of a place (the first unit's file when the place has none).
    pub fn loc_args(&mut self, at: Option<Loc>) -> (V, V, V) {
        let at = at.unwrap_or_default();
        let file = at
            .file
            .or_else(|| self.m.units.values().find_map(|u| u.file));
        let src = match file {
            Some(f) => V::Id(self.id(Ref::File(f))),
            None => V::Id(self.default_source()),
        };
        (src, V::Num(at.line), V::Num(at.column))
    }

    /// The file of the nearest function around `scope` that has one, else of the unit its chain
    /// ends in.
    fn file_around(&self, scope: Option<Ref>) -> Option<Handle<crate::ir::File>> {
        let mut r = scope;
        // Chains are short; the bound only stops a cycle.
        for _ in 0..256 {
            match r? {
                Ref::Scope(s) => {
                    let sc = self.m.scopes.get(s);
                    if let (Some(_), Some(file)) = (sc.function(), sc.at.and_then(|a| a.file)) {
                        return Some(file);
                    }
                    r = sc.parent;
                }
                Ref::Type(t) => r = self.m.types.get(t).scope,
                _ => break,
            }
        }
        let unit = self.m.unit_of(scope)?;
        self.m.units.get(unit).file
    }

    /// The Parent of entity `r`: its scope, or (approximated: the sets require one) the first
    /// unit.
    pub fn parent(&mut self, r: Ref, scope: Option<Ref>) -> V {
        let scope = scope.or_else(|| {
            let unit = (!self.m.units.is_empty()).then(|| Ref::Unit(Handle::new(0)))?;
            self.ledger.approx(
                r,
                "no parent scope: written under the first unit (the set requires one)",
            );
            Some(unit)
        });
        match scope {
            Some(s) => V::Id(self.id(s)),
            None => V::None,
        }
    }

    pub fn place(&mut self, r: Ref, at: Option<Loc>, scope: Option<Ref>) -> Vec<(OperandName, V)> {
        // The sets require a Source: a place without a file takes its function's or unit's.
        let file = at.and_then(|a| a.file).or_else(|| self.file_around(scope));
        if at.is_none() {
            self.ledger.approx(
                r,
                "no position: written at line 0 of the file of its function or unit (the set requires one)",
            );
        }
        let at = Loc {
            file,
            ..at.unwrap_or_default()
        };
        let (s, l, c) = self.loc_args(Some(at));
        let p = self.parent(r, scope);
        vec![
            (operand::SOURCE, s),
            (operand::LINE, l),
            (operand::COLUMN, c),
            (operand::PARENT, p),
        ]
    }
}
