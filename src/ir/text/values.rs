//! Text forms of the IR's compound values (those that are not whole entities).

use super::codec::{decode_list, Codec, Ctx, Fields, ValueWriter};
use super::lex::{Item, Val};
use super::PResult;
use crate::ir::cfi::CfaCode;
use crate::ir::expr::{Arg, Insn, LocEntry, Location, OpCode};
use crate::ir::types::{Bound, Enumerator, Subrange};
use crate::ir::unit::{Checksum, ChecksumKind};
use crate::ir::var::CallParam;
use crate::ir::{RawAttr, Ref, Value};
use crate::spec::dwarf::{row, row_by_name, ArgKind, Row, CFAS, OPS};

/// `42`, `#0a0b`, `"text"`, `t3`, `%44`, `llvm("%x.addr")`, `sym("g")`, `undef`.
impl Codec for Value {
    fn encode(&self, w: &mut ValueWriter<'_>) {
        match self {
            Value::Int(n) => w.int(*n),
            Value::Bytes(b) => w.bytes(b),
            Value::Str(s) => w.string(s),
            Value::Ref(r) => w.reference(*r),
            Value::Spirv(id) => w.spirv_id(*id),
            Value::Llvm(s) => w.call("llvm", |w| w.string(s)),
            Value::Symbol(s) => w.call("sym", |w| w.string(s)),
            Value::Undef => w.word("undef"),
        }
    }
    fn decode(v: &Val, cx: &Ctx) -> PResult<Self> {
        Ok(match v {
            Val::Int(n, _) => Value::Int(*n),
            Val::Bytes(b, _) => Value::Bytes(b.clone()),
            Val::Str(s, _) => Value::Str(s.clone()),
            Val::Spirv(id, _) => Value::Spirv(*id),
            Val::Word(w, _) if w == "undef" => Value::Undef,
            Val::Word(..) => Value::Ref(Ref::decode(v, cx)?),
            Val::Call(name, args, _) if name == "llvm" || name == "sym" => {
                let [Item::Pos(arg)] = args.as_slice() else {
                    return Err(cx.err(v, &format!("`{name}(…)` takes one string")));
                };
                let s = String::decode(arg, cx)?;
                if name == "llvm" {
                    Value::Llvm(s)
                } else {
                    Value::Symbol(s)
                }
            }
            other => return Err(cx.expected(other, "a value")),
        })
    }
}

impl Codec for Bound {
    fn encode(&self, w: &mut ValueWriter<'_>) {
        match self {
            Bound::Const(n) => w.int(*n),
            Bound::Ref(r) => w.reference(*r),
        }
    }
    fn decode(v: &Val, cx: &Ctx) -> PResult<Self> {
        match v {
            Val::Int(..) => i64::decode(v, cx).map(Bound::Const),
            _ => Ref::decode(v, cx).map(Bound::Ref),
        }
    }
}

impl Codec for Location {
    fn encode(&self, w: &mut ValueWriter<'_>) {
        w.reference(self.as_ref())
    }
    fn decode(v: &Val, cx: &Ctx) -> PResult<Self> {
        match Ref::decode(v, cx)? {
            Ref::Expr(h) => Ok(Location::Expr(h)),
            Ref::LocList(h) => Ok(Location::List(h)),
            _ => Err(cx.expected(v, "an expression `eN` or a location list `lN`")),
        }
    }
}

/// `md5(#…)`.
impl Codec for Checksum {
    fn encode(&self, w: &mut ValueWriter<'_>) {
        match self.kind.name() {
            Some(n) => w.call(n, |w| w.bytes(&self.bytes)),
            None => w.call("checksum", |w| {
                w.int(self.kind.0);
                w.bytes(&self.bytes)
            }),
        }
    }
    fn decode(v: &Val, cx: &Ctx) -> PResult<Self> {
        let Val::Call(name, args, span) = v else {
            return Err(cx.expected(v, "a checksum like `md5(#…)`"));
        };
        let mut f = Fields::new(cx, *span, args)?;
        let kind = if name == "checksum" {
            ChecksumKind(f.pos("a checksum kind number")?)
        } else {
            ChecksumKind::from_name(name)
                .ok_or_else(|| cx.err(v, &format!("unknown checksum kind `{name}`")))?
        };
        let bytes = f.pos("the checksum bytes")?;
        f.finish()?;
        Ok(Checksum { kind, bytes })
    }
}

/// `count=4 lower=0 upper=v2 stride=32 generic`.
impl Codec for Subrange {
    fn encode(&self, w: &mut ValueWriter<'_>) {
        w.word("dim");
        w.opt("count", &self.count);
        w.opt("lower", &self.lower);
        w.opt("upper", &self.upper);
        w.opt("stride", &self.stride);
        w.flag("generic", self.generic);
    }
    fn decode(v: &Val, cx: &Ctx) -> PResult<Self> {
        let mut f = Fields::of(cx, v)?;
        if !f.flag("dim") {
            return Err(cx.expected(v, "a dimension `dim count=N …`"));
        }
        let s = Subrange {
            count: f.opt("count")?,
            lower: f.opt("lower")?,
            upper: f.opt("upper")?,
            stride: f.opt("stride")?,
            generic: f.flag("generic"),
        };
        f.finish()?;
        Ok(s)
    }
}

/// `"RED" 0`.
impl Codec for Enumerator {
    fn encode(&self, w: &mut ValueWriter<'_>) {
        w.string(&self.name);
        w.int(self.value);
    }
    fn decode(v: &Val, cx: &Ctx) -> PResult<Self> {
        let mut f = Fields::of(cx, v)?;
        let e = Enumerator {
            name: f.pos("the enumerator's name")?,
            value: f.pos("the enumerator's value")?,
        };
        f.finish()?;
        Ok(e)
    }
}

/// `0x3e10 0x0b #04`: attribute, form, value bytes.
impl Codec for RawAttr {
    fn encode(&self, w: &mut ValueWriter<'_>) {
        w.hex(u64::from(self.attr));
        if !w.opts.hide_encoding {
            w.hex(u64::from(self.form));
        }
        w.bytes(&self.bytes);
    }
    fn decode(v: &Val, cx: &Ctx) -> PResult<Self> {
        let mut f = Fields::of(cx, v)?;
        let a = RawAttr {
            attr: f.pos("the attribute number")?,
            form: f.pos("the form number")?,
            bytes: f.pos("the value bytes")?,
        };
        f.finish()?;
        Ok(a)
    }
}

/// `loc=e1 value=e2 data=e3`.
impl Codec for CallParam {
    fn encode(&self, w: &mut ValueWriter<'_>) {
        w.word("param");
        w.opt("loc", &self.location);
        w.opt("value", &self.value);
        w.opt("data", &self.data_value);
    }
    fn decode(v: &Val, cx: &Ctx) -> PResult<Self> {
        let mut f = Fields::of(cx, v)?;
        if !f.flag("param") {
            return Err(cx.expected(v, "a call parameter `param loc=… value=…`"));
        }
        let p = CallParam {
            location: f.opt("loc")?,
            value: f.opt("value")?,
            data_value: f.opt("data")?,
        };
        f.finish()?;
        Ok(p)
    }
}

/// `@0x10..0x20 e1`, or `default e1`.
impl Codec for LocEntry {
    fn encode(&self, w: &mut ValueWriter<'_>) {
        match &self.range {
            Some(_) if w.opts.hide_code => {}
            Some(r) => w.value(r),
            None => w.word("default"),
        }
        w.value(&self.expr);
    }
    fn decode(v: &Val, cx: &Ctx) -> PResult<Self> {
        let mut f = Fields::of(cx, v)?;
        let range = if f.flag("default") {
            None
        } else {
            Some(f.pos("a code range or `default`")?)
        };
        let e = LocEntry {
            range,
            expr: f.pos("an expression `eN`")?,
        };
        f.finish()?;
        Ok(e)
    }
}

/// Operation code spaces: which table names the codes.
pub trait InsnCode: Copy {
    const TABLE: &'static [Row];
    /// Why an unnamed code cannot be one of this space's codes.
    const UNREPRESENTABLE: &'static str;
    fn representable(n: u32) -> bool;
    fn raw(self) -> u32;
    fn from_raw(n: u32) -> Self;
}

impl InsnCode for OpCode {
    const TABLE: &'static [Row] = OPS;
    const UNREPRESENTABLE: &'static str = "";
    fn representable(_: u32) -> bool {
        true
    }
    fn raw(self) -> u32 {
        self.0
    }
    fn from_raw(n: u32) -> Self {
        OpCode(n)
    }
}

impl InsnCode for CfaCode {
    const TABLE: &'static [Row] = CFAS;
    const UNREPRESENTABLE: &'static str =
        "a CFA code is a byte; compact forms (0x40, 0x80, 0xc0) are written by name with their operand";
    fn representable(n: u32) -> bool {
        n < 0x40
    }
    fn raw(self) -> u32 {
        u32::from(self.0)
    }
    fn from_raw(n: u32) -> Self {
        CfaCode(n as u16)
    }
}

/// `constu 1`, `bregx 5 -8`, `entry_value [reg5]`, `unknown(0x10012) 3`.
impl<C: InsnCode> Codec for Insn<C> {
    fn encode(&self, w: &mut ValueWriter<'_>) {
        match row(C::TABLE, self.code.raw()) {
            Some(r) => w.word(r.1),
            None => w.unknown(u64::from(self.code.raw())),
        }
        for arg in &self.args {
            arg.encode(w);
        }
    }
    fn decode(v: &Val, cx: &Ctx) -> PResult<Self> {
        let mut f = Fields::of(cx, v)?;
        let head = f.next_val().ok_or_else(|| cx.expected(v, "an operation"))?;
        let (code, kinds): (u32, Option<&[ArgKind]>) = if let Some(n) = head.as_unknown() {
            let n = u32::try_from(n).map_err(|_| cx.err(head, "operation code out of range"))?;
            if C::TABLE.iter().any(|r| r.0 == n) {
                return Err(cx.err(head, "a named operation must be written by its name"));
            }
            if !C::representable(n) {
                return Err(cx.err(head, C::UNREPRESENTABLE));
            }
            (n, None)
        } else {
            let name = head
                .as_word()
                .ok_or_else(|| cx.expected(head, "an operation name"))?;
            let r = row_by_name(C::TABLE, name)
                .ok_or_else(|| cx.err(head, &format!("unknown operation `{name}`")))?;
            (r.0, Some(r.2))
        };
        let mut args = Vec::new();
        while let Some(a) = f.next_val() {
            args.push(Arg::decode(a, cx)?);
        }
        if let Some(kinds) = kinds {
            if kinds.len() != args.len() {
                return Err(cx.err(
                    head,
                    &format!(
                        "`{}` takes {} operand(s), found {}",
                        head.as_word().unwrap_or("?"),
                        kinds.len(),
                        args.len()
                    ),
                ));
            }
            for ((kind, arg), val) in kinds.iter().zip(&args).zip(f_vals(v)) {
                if !arg_fits(*kind, arg) {
                    return Err(cx.err(val, &format!("operand does not fit: expected {kind:?}")));
                }
            }
        }
        f.finish()?;
        Ok(Insn {
            code: C::from_raw(code),
            args,
        })
    }
}

/// The operand values of an instruction group (all positionals after the head), for messages.
fn f_vals(v: &Val) -> Vec<&Val> {
    match v {
        Val::Group(items, _) => items
            .iter()
            .skip(1)
            .filter_map(|i| match i {
                Item::Pos(v) => Some(v),
                Item::Key(..) => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether an operand is of the kind an operation's row gives it.
pub(crate) fn arg_fits(kind: ArgKind, arg: &Arg) -> bool {
    match kind {
        ArgKind::U | ArgKind::Addr => {
            matches!(arg, Arg::Int(n) if *n >= 0 && *n <= u64::MAX as i128)
        }
        ArgKind::S => {
            matches!(arg, Arg::Int(n) if *n >= i64::MIN as i128 && *n <= i64::MAX as i128)
        }
        ArgKind::Block => matches!(arg, Arg::Bytes(_)),
        ArgKind::Type => matches!(arg, Arg::Ref(Ref::Type(_)) | Arg::None),
        ArgKind::Die => matches!(arg, Arg::Ref(_)),
        ArgKind::Ops => matches!(arg, Arg::Ops(_)),
    }
}

impl Codec for Arg {
    fn encode(&self, w: &mut ValueWriter<'_>) {
        match self {
            Arg::Int(n) => w.int(*n),
            Arg::Bytes(b) => w.bytes(b),
            Arg::Ref(r) => w.reference(*r),
            Arg::None => w.word("none"),
            Arg::Ops(ops) => w.list(ops, |w, op| op.encode(w)),
        }
    }
    fn decode(v: &Val, cx: &Ctx) -> PResult<Self> {
        Ok(match v {
            Val::Int(n, _) => Arg::Int(*n),
            Val::Bytes(b, _) => Arg::Bytes(b.clone()),
            Val::Word(w, _) if w == "none" => Arg::None,
            Val::Word(..) => Arg::Ref(Ref::decode(v, cx)?),
            Val::List(..) => Arg::Ops(decode_list(v, cx)?),
            other => return Err(cx.expected(other, "an operand")),
        })
    }
}
