//! The in-function instructions, in order: DebugScope/DebugNoScope runs, DebugLine/DebugNoLine
//! and core OpLine/OpNoLine rows, DebugDeclare/DebugValue events.
//!
//! A debug instruction is anchored at the normal-form offset of the next instruction the normal
//! form keeps. A scope (line) covers from its anchor to the next scope (line) instruction or the
//! end of the block (just after its terminator, or at the next label where a damaged block has
//! none), whichever comes first; it is recorded only when it covers something. Events keep their order and carry the scope and line in force.

use crate::spec::spirv_names::operand;
use rspirv::spirv::Op;

use crate::diag::LossKind;
use crate::ir::{
    CodePos, CodeRange, EntityKind as K, Event, EventKind, Handle, InlinedAt, LineFlags, LineRow,
    Loc, Ref, ScopeRun, Value,
};
use crate::spirv::binary::Insn;
use crate::spirv::grammar::is_terminator;

use super::operands::{fail, Dec, Kind, RResult};
use super::reader::{Ctx, Row};
use super::resolve::Tgt;

/// A scope or line in force: where it started, what it says, and the instruction it came from.
struct Open<T> {
    start: u32,
    what: T,
    origin: (usize, Option<u32>),
}

struct Line {
    at: Loc,
    end: Option<(u32, u32)>,
}

#[derive(Default)]
struct State {
    scope: Option<Open<(Ref, Option<Handle<InlinedAt>>)>>,
    line: Option<Open<Line>>,
    in_function: bool,
    /// Inside a block (after its label, before its terminator).
    in_block: bool,
    /// The current function has had a label.
    labelled: bool,
}

pub(super) fn walk(cx: &mut Ctx<'_>) -> RResult<()> {
    let n = cx.m.insns.len();
    let end = cx.nf.len as u32;
    // The normal-form offset of the next kept instruction at or after each instruction.
    let mut next = vec![end; n + 1];
    for i in (0..n).rev() {
        next[i] = cx
            .nf
            .offsets
            .get(i)
            .copied()
            .flatten()
            .unwrap_or(next[i + 1]);
    }
    let mut st = State::default();
    let mut di = 0;
    for (i, insn) in cx.m.insns.iter().enumerate() {
        let here = next[i];
        if cx.decs.get(di).is_some_and(|(at, _)| *at == i) {
            let d = cx.decs[di].1.clone();
            di += 1;
            debug(cx, &mut st, &d, here)?;
            continue;
        }
        match insn.op() {
            Some(Op::Line) => core_line(cx, &mut st, insn, here)?,
            Some(Op::NoLine) => close_line(cx, &mut st, here),
            Some(Op::Function) => {
                st.in_function = true;
                st.labelled = false;
            }
            Some(Op::FunctionEnd) => {
                close_all(cx, &mut st, here);
                st.in_function = false;
                st.in_block = false;
            }
            Some(o) if is_terminator(o) => {
                let after = here + insn.words.len() as u32;
                close_all(cx, &mut st, after);
                st.in_block = false;
            }
            // A block that lacks its terminator, or code between a terminator and the next
            // label (a damaged module), still ends at the next label: nothing runs on into the
            // next block. (What precedes a function's first label does run on into it.)
            Some(Op::Label) => {
                if st.in_block || st.labelled {
                    close_all(cx, &mut st, here);
                }
                st.in_block = true;
                st.labelled = true;
            }
            _ => {}
        }
    }
    close_all(cx, &mut st, end);
    Ok(())
}

/// OpLine File Line Column: a row without a span.
fn core_line(cx: &mut Ctx<'_>, st: &mut State, insn: &Insn<'_>, here: u32) -> RResult<()> {
    let file_id = insn.operand(0)?;
    let Some(file) = string_file(cx, file_id) else {
        let what = cx.what(file_id);
        return fail(
            insn.offset,
            None,
            format!("OpLine's File %{file_id} is {what}, not an OpString"),
        );
    };
    let at = Loc {
        file: Some(file),
        line: insn.operand(1)?,
        column: insn.operand(2)?,
    };
    open_line(cx, st, here, Line { at, end: None }, (insn.offset, None));
    Ok(())
}

fn open_line(
    cx: &mut Ctx<'_>,
    st: &mut State,
    here: u32,
    what: Line,
    origin: (usize, Option<u32>),
) {
    close_line(cx, st, here);
    st.line = Some(Open {
        start: here,
        what,
        origin,
    });
}

fn string_file(cx: &mut Ctx<'_>, id: u32) -> Option<Handle<crate::ir::File>> {
    match cx.target(id) {
        Tgt::Str(_) => cx.string_file(id),
        _ => None,
    }
}

fn debug(cx: &mut Ctx<'_>, st: &mut State, d: &Dec<'_>, here: u32) -> RResult<()> {
    let in_code = matches!(
        d.kind,
        Kind::Scope | Kind::NoScope | Kind::Line | Kind::NoLine | Kind::Declare | Kind::Value
    );
    if !in_code {
        return Ok(());
    }
    if !st.in_function && d.kind != Kind::Line && d.kind != Kind::NoLine {
        cx.loss(
            LossKind::Dropped,
            d,
            format!("{} outside a function: dropped", d.name()),
        );
        return Ok(());
    }
    match d.kind {
        Kind::Scope => debug_scope(cx, st, d, here)?,
        Kind::NoScope => close_scope(cx, st, here),
        Kind::Line => {
            let at = Loc {
                file: cx.file(d, operand::SOURCE)?,
                line: cx.u32n(d, operand::LINE_START)?,
                column: cx.u32n(d, operand::COLUMN_START)?,
            };
            let end = Some((
                cx.u32n(d, operand::LINE_END)?,
                cx.u32n(d, operand::COLUMN_END)?,
            ));
            open_line(cx, st, here, Line { at, end }, (d.offset, Some(d.id)));
        }
        Kind::NoLine => close_line(cx, st, here),
        _ => event(cx, st, d, here)?,
    }
    Ok(())
}

fn debug_scope(cx: &mut Ctx<'_>, st: &mut State, d: &Dec<'_>, here: u32) -> RResult<()> {
    let scope = cx.entity_of(
        d,
        operand::SCOPE,
        &[K::Unit, K::Scope, K::Type],
        "a lexical scope",
    )?;
    let inlined = match cx.entity_of(d, operand::INLINED_AT, &[K::Inlined], "a DebugInlinedAt")? {
        Some(Ref::Inlined(h)) => Some(h),
        _ => None,
    };
    close_scope(cx, st, here);
    if let Some(scope) = scope {
        st.scope = Some(Open {
            start: here,
            what: (scope, inlined),
            origin: (d.offset, Some(d.id)),
        });
    }
    Ok(())
}

/// The ids of an event: local variable, value, expression, indexes.
type EventIds<'a> = (Option<u32>, Option<u32>, Option<u32>, &'a [u32]);

/// DebugDeclare / DebugValue operands. The 0.99 grammar's DebugValue has no Local Variable
/// operand while its specification (seed 001) has one: when the first operand is a local
/// variable the specification's layout is followed, otherwise there is no variable (`None`).
fn event_ids<'a>(cx: &Ctx<'_>, d: &Dec<'a>) -> Option<EventIds<'a>> {
    if d.has(operand::LOCAL_VARIABLE) {
        let value = if d.kind == Kind::Declare {
            operand::VARIABLE
        } else {
            operand::VALUE
        };
        return Some((
            d.word(operand::LOCAL_VARIABLE),
            d.word(value),
            d.word(operand::EXPRESSION),
            d.words(operand::INDEXES),
        ));
    }
    let ops = d.ops;
    let first_is_var = ops
        .first()
        .is_some_and(|id| matches!(cx.target(*id), Tgt::Ref(Ref::Var(_))));
    let get = |i: usize| ops.get(i).copied();
    first_is_var.then(|| (get(0), get(1), get(2), ops.get(3..).unwrap_or(&[])))
}

fn event(cx: &mut Ctx<'_>, st: &State, d: &Dec<'_>, here: u32) -> RResult<()> {
    let Some((var_id, value_id, expr_id, indexes)) = event_ids(cx, d) else {
        cx.loss(
            LossKind::Dropped,
            d,
            "DebugValue without a local variable: dropped",
        );
        return Ok(());
    };
    let var = match var_id.map(|id| (id, cx.target(id))) {
        Some((_, Tgt::Ref(Ref::Var(h)))) => h,
        Some((id, _)) => return cx.wrong(d, operand::LOCAL_VARIABLE, "a DebugLocalVariable", id),
        None => {
            return fail(
                d.offset,
                Some(d.id),
                format!("{} has no Local Variable", d.name()),
            )
        }
    };
    let value = match value_id.map(|id| (id, cx.target(id))) {
        None | Some((_, Tgt::None)) => Value::Undef,
        Some((id, Tgt::Code | Tgt::Const(_))) if id < cx.m.bound => Value::Spirv(id),
        Some((id, _)) => return cx.wrong(d, operand::VALUE, "an id of the code", id),
    };
    let expr = match expr_id.map(|id| (id, cx.target(id))) {
        Some((_, Tgt::Ref(Ref::Expr(h)))) => Some(h),
        None | Some((_, Tgt::None)) => None,
        Some((id, _)) => return cx.wrong(d, operand::EXPRESSION, "a DebugExpression", id),
    };
    let Some(indexes) = constant_indexes(cx, d, indexes) else {
        return Ok(());
    };
    let (scope, inlined) = match &st.scope {
        Some(Open {
            what: (Ref::Scope(s), inl),
            ..
        }) => (Some(*s), *inl),
        _ => (None, None),
    };
    cx.out.events.push(Event {
        kind: if d.kind == Kind::Declare {
            EventKind::Declare
        } else {
            EventKind::Value
        },
        pos: CodePos::Spirv(here),
        var,
        values: vec![value],
        expr,
        indexes,
        scope,
        inlined,
        at: st.line.as_ref().map(|l| l.what.at),
    });
    cx.note_row(Row::Event, d.offset, Some(d.id));
    Ok(())
}

/// Indexes must be 32-bit constants; an event with another index is dropped (ledgered).
fn constant_indexes(cx: &mut Ctx<'_>, d: &Dec<'_>, ids: &[u32]) -> Option<Vec<u32>> {
    let mut out = Vec::with_capacity(ids.len());
    for &id in ids {
        match cx.target(id) {
            Tgt::Const(v) if u32::try_from(v).is_ok() => out.push(v as u32),
            _ => {
                let msg = format!("index %{id} is not a 32-bit constant: the event is dropped");
                cx.loss(LossKind::Dropped, d, msg);
                return None;
            }
        }
    }
    Some(out)
}

fn range(start: u32, end: u32) -> CodeRange {
    CodeRange {
        start: CodePos::Spirv(start),
        end: CodePos::Spirv(end),
    }
}

fn close_scope(cx: &mut Ctx<'_>, st: &mut State, end: u32) {
    if let Some(open) = st.scope.take() {
        if open.start < end {
            let (scope, inlined) = open.what;
            cx.out.scope_runs.push(ScopeRun {
                range: range(open.start, end),
                scope,
                inlined,
            });
            cx.note_row(Row::Scope, open.origin.0, open.origin.1);
        }
    }
}

fn close_line(cx: &mut Ctx<'_>, st: &mut State, end: u32) {
    if let Some(open) = st.line.take() {
        if open.start < end {
            let Line { at, end: span } = open.what;
            cx.out.lines.push(LineRow {
                range: range(open.start, end),
                at,
                end_line: span.map(|s| s.0),
                end_column: span.map(|s| s.1),
                flags: LineFlags::default(),
                isa: 0,
                discriminator: 0,
            });
            cx.note_row(Row::Line, open.origin.0, open.origin.1);
        }
    }
}

fn close_all(cx: &mut Ctx<'_>, st: &mut State, end: u32) {
    close_scope(cx, st, end);
    close_line(cx, st, end);
}
