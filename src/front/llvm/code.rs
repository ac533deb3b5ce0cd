//! The code-anchored tables: function bindings and ranges, line rows and scope runs from the
//! `!dbg` of every instruction, declare/value/addr events and label positions.

use llvm_bridge::{IntrinsicKind, Key, Kind, NodeId};

use super::Lower;
use crate::diag::LossKind;
use crate::ir::{
    CodePos, CodeRange, Event, EventKind, LineFlags, LineRow, Ref, ScopeKind, ScopeRun, Value,
};

fn range(start: u32, end: u32) -> CodeRange {
    CodeRange {
        start: CodePos::Llvm(start),
        end: CodePos::Llvm(end),
    }
}

impl Lower<'_> {
    pub(super) fn code(&mut self) {
        self.functions();
        self.lines();
        self.intrinsics();
    }

    fn functions(&mut self) {
        for f in &self.m.functions {
            let Some(sp) = f.subprogram else { continue };
            let Some(Ref::Scope(h)) = self.slot[sp as usize] else {
                continue;
            };
            let s = self.ir.scopes.get_mut(h);
            match &mut s.kind {
                ScopeKind::Function(info) | ScopeKind::FunctionDecl(info) => {
                    if info.binding.is_some() {
                        let place = self.place(sp);
                        self.d.push(
                            LossKind::Dropped,
                            place,
                            format!(
                                "a second function (@{}) attached to one DISubprogram",
                                f.name
                            ),
                        );
                        continue;
                    }
                    info.binding = Some(Value::Llvm(format!("@{}", f.name)));
                    if f.inst_count > 0 {
                        info.ranges = vec![range(f.first_inst, f.first_inst + f.inst_count)];
                    }
                }
                _ => {}
            }
        }
    }

    /// One line row and one scope run per run of consecutive instructions with one DILocation.
    fn lines(&mut self) {
        let locs = &self.m.locations;
        // At most one row and run per location: reserved up front rather than grown by copying
        // (each growth copies into freshly faulted pages).
        self.ir.lines.reserve(locs.len());
        self.ir.scope_runs.reserve(locs.len());
        let mut i = 0;
        while i < locs.len() {
            let mut j = i + 1;
            while j < locs.len()
                && locs[j].loc == locs[i].loc
                && locs[j].inst == locs[j - 1].inst + 1
            {
                j += 1;
            }
            let (loc, start, end) = (locs[i].loc, locs[i].inst, locs[j - 1].inst + 1);
            let n = self.node(loc);
            self.ir.lines.push(LineRow {
                range: range(start, end),
                at: self.loc_at(loc),
                end_line: None,
                end_column: None,
                flags: LineFlags::default(),
                isa: 0,
                discriminator: 0,
            });
            if let Some(scope) = self.r(n, Key::scope) {
                self.ir.scope_runs.push(ScopeRun {
                    range: range(start, end),
                    scope,
                    inlined: n
                        .node(Key::inlinedAt)
                        .and_then(|a| self.inl.get(&a).copied()),
                });
            }
            if n.int(Key::isImplicitCode) == Some(1) {
                self.loss(LossKind::Dropped, loc, "isImplicitCode has no IR field");
            }
            i = j;
        }
    }

    /// The instruction a llvm.dbg.label at `inst` marks: the first from it on with a
    /// location, in its function (the intrinsic is no code; DWARF gives a label the address of
    /// the code after it, which is also where the code of an inlined call is found).
    fn marked_code(&self, inst: u32) -> u32 {
        let end = (self.m.functions.iter())
            .find(|f| f.first_inst <= inst && inst - f.first_inst < f.inst_count)
            .map(|f| f.first_inst + f.inst_count);
        let locs = &self.m.locations;
        match (locs.get(locs.partition_point(|l| l.inst < inst)), end) {
            (Some(l), Some(end)) if l.inst < end => l.inst,
            _ => inst,
        }
    }

    fn intrinsics(&mut self) {
        self.ir.events.reserve(self.m.intrinsics.len());
        for x in &self.m.intrinsics {
            let pos = CodePos::Llvm(x.inst);
            if x.kind == IntrinsicKind::Label {
                let pos = CodePos::Llvm(self.marked_code(x.inst));
                match x
                    .args
                    .first()
                    .copied()
                    .flatten()
                    .and_then(|l| self.slot[l as usize])
                {
                    Some(Ref::Label(h)) => {
                        // A label of a function inlined (or code duplicated) is met at each
                        // of its places: the out-of-line one is the label's own; every other
                        // is a copy naming it, as DWARF's concrete label DIEs do (an only
                        // inlined function's label has no place of its own).
                        let inlined = x
                            .loc
                            .is_some_and(|l| self.node(l).node(Key::inlinedAt).is_some());
                        let label = self.ir.labels.get(h);
                        if !inlined && label.pos.is_none() {
                            self.ir.labels.get_mut(h).pos = Some(pos);
                        } else {
                            let copy = crate::ir::Label {
                                name: String::new(),
                                scope: label.scope,
                                at: None,
                                pos: Some(pos),
                                origin: Some(h),
                            };
                            self.ir.labels.push(copy);
                        }
                    }
                    _ => {
                        self.d.push(
                            LossKind::Unknown,
                            format!("instruction i{}", x.inst),
                            "llvm.dbg.label without a DILabel",
                        );
                    }
                }
                continue;
            }
            // The entity of the intrinsic's argument `k` (a metadata node), if it has one.
            let arg = |k: usize| x.args.get(k).copied().flatten();
            let entity = |k: usize| arg(k).and_then(|n| self.slot[n as usize]);
            let Some(Ref::Var(var)) = entity(1) else {
                self.d.push(
                    LossKind::Unknown,
                    format!("instruction i{}", x.inst),
                    "llvm.dbg intrinsic without a DILocalVariable",
                );
                continue;
            };
            let expr = match entity(2) {
                Some(Ref::Expr(e)) => Some(e),
                _ => None,
            };
            let values = self.operands(arg(0));
            let (scope, inlined, at) = match x.loc {
                Some(l) => {
                    let n = self.node(l);
                    (
                        self.scope_handle(n, Key::scope),
                        n.node(Key::inlinedAt)
                            .and_then(|a| self.inl.get(&a).copied()),
                        Some(self.loc_at(l)),
                    )
                }
                None => (None, None, None),
            };
            if x.kind == IntrinsicKind::Assign {
                // Assignment tracking (LLVM 16+): the value part is a dbg.value; the store it
                // is linked to and the address it also names are not: said with what they are.
                let address = match self.operands(arg(4)).as_slice() {
                    [Value::Llvm(text)] => text.clone(),
                    [Value::Int(n)] => n.to_string(),
                    _ => "undef".into(),
                };
                let address_expr = match entity(5) {
                    Some(r @ Ref::Expr(_)) => crate::ir::verify::describe(&self.ir, r),
                    _ => "none".into(),
                };
                let var = crate::ir::verify::describe(&self.ir, Ref::Var(var));
                self.d.push(
                    LossKind::Dropped,
                    format!("instruction i{}", x.inst),
                    format!(
                        "llvm.dbg.assign of {var} read as a dbg.value: its address {address} \
                         with address expression {address_expr}, and its DIAssignID link to \
                         the store, have no IR field"
                    ),
                );
            }
            self.ir.events.push(Event {
                kind: match x.kind {
                    IntrinsicKind::Declare => EventKind::Declare,
                    IntrinsicKind::Addr => EventKind::Addr,
                    _ => EventKind::Value,
                },
                pos,
                var,
                values,
                expr,
                indexes: Vec::new(),
                scope,
                inlined,
                at,
            });
        }
    }

    /// The location operand of a dbg intrinsic: one value, the values of a DIArgList, or
    /// `undef` for an empty operand (`metadata !{}`).
    fn operands(&self, id: Option<NodeId>) -> Vec<Value> {
        let Some(id) = id else {
            return vec![Value::Undef];
        };
        let n = self.node(id);
        match n.kind {
            Kind::DIArgList => n
                .refs(Key::args)
                .unwrap_or_default()
                .iter()
                .map(|a| a.and_then(|a| self.value_of(a)).unwrap_or(Value::Undef))
                .collect(),
            Kind::MDTuple => vec![Value::Undef],
            _ => vec![self.value_of(id).unwrap_or(Value::Undef)],
        }
    }
}
