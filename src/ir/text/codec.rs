//! Conversion between IR values and text values, in both directions, one impl per value type.
//! Records (one entity per line) are built from these in `records.rs`.

use std::collections::HashSet;

use super::lex::{quote, Item, Span, Val};
use super::{PResult, ParseError};
use crate::ir::code::{CodePos, CodeRange};
use crate::ir::{EntityKind, Flags, Handle, Loc, Ref, FLAG_NAMES};

/// How references print: short names (`t3`) normally; `diff` substitutes content identities.
pub trait Namer {
    fn name(&self, r: Ref, out: &mut String);
}

/// The default namer: `<prefix><index>`.
pub struct ShortNames;

impl Namer for ShortNames {
    fn name(&self, r: Ref, out: &mut String) {
        use std::fmt::Write;
        let _ = write!(out, "{}{}", r.kind().prefix(), r.index());
    }
}

/// What a printer leaves out, for `diff`.
#[derive(Clone, Copy, Debug, Default)]
pub struct PrintOptions {
    /// Drop encoding details: SPIR-V ids, DWARF versions, raw attribute forms, debug-set versions.
    pub hide_encoding: bool,
    /// Drop code positions and ranges inside entities.
    pub hide_code: bool,
}

/// Writes values into a line, separating items with spaces and list elements with `, `.
pub struct ValueWriter<'a> {
    pub out: &'a mut String,
    pub namer: &'a dyn Namer,
    pub opts: PrintOptions,
    first: bool,
    /// Only the references matter (`ir::refs_of`): numbers, strings, bytes and code positions
    /// are not formatted.
    refs_only: bool,
}

impl<'a> ValueWriter<'a> {
    pub fn new(out: &'a mut String, namer: &'a dyn Namer, opts: PrintOptions) -> Self {
        let first = out.is_empty();
        ValueWriter {
            out,
            namer,
            opts,
            first,
            refs_only: false,
        }
    }
    /// A writer for collecting references: the namer sees every reference, in field order, and
    /// values that hold none are skipped.
    pub fn refs_only(out: &'a mut String, namer: &'a dyn Namer, opts: PrintOptions) -> Self {
        ValueWriter {
            refs_only: true,
            ..Self::new(out, namer, opts)
        }
    }
    pub(super) fn sep(&mut self) {
        if !self.first && !self.refs_only {
            self.out.push(' ');
        }
        self.first = false;
    }
    pub fn word(&mut self, w: &str) {
        self.sep();
        if !self.refs_only {
            self.out.push_str(w);
        }
    }
    pub fn int(&mut self, n: impl Into<i128>) {
        use std::fmt::Write;
        if self.refs_only {
            return;
        }
        self.sep();
        let _ = write!(self.out, "{}", n.into());
    }
    pub fn hex(&mut self, n: u64) {
        use std::fmt::Write;
        if self.refs_only {
            return;
        }
        self.sep();
        let _ = write!(self.out, "0x{n:x}");
    }
    pub fn string(&mut self, s: &str) {
        if self.refs_only {
            return;
        }
        self.sep();
        quote(s, self.out);
    }
    pub fn bytes(&mut self, b: &[u8]) {
        use std::fmt::Write;
        if self.refs_only {
            return;
        }
        self.sep();
        self.out.push('#');
        for byte in b {
            let _ = write!(self.out, "{byte:02x}");
        }
    }
    pub fn spirv_id(&mut self, id: u32) {
        use std::fmt::Write;
        if self.refs_only {
            return;
        }
        self.sep();
        let _ = write!(self.out, "%{id}");
    }
    pub fn reference(&mut self, r: Ref) {
        self.sep();
        self.namer.name(r, self.out);
    }
    pub fn unknown(&mut self, n: u64) {
        use std::fmt::Write;
        if self.refs_only {
            return;
        }
        self.sep();
        let _ = write!(self.out, "unknown(0x{n:x})");
    }
    /// `name(items)`.
    pub fn call(&mut self, name: &str, f: impl FnOnce(&mut Self)) {
        self.sep();
        self.punct(name);
        self.punct("(");
        self.first = true;
        f(self);
        self.punct(")");
        self.first = false;
    }
    /// `[a, b, …]`, each element written by `f`.
    pub fn list<T>(&mut self, items: &[T], mut f: impl FnMut(&mut Self, &T)) {
        self.sep();
        self.punct("[");
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.punct(", ");
            }
            self.first = true;
            f(self, item);
        }
        self.punct("]");
        self.first = false;
    }
    /// Text around values (keys, brackets), which a refs-only writer leaves out.
    fn punct(&mut self, s: &str) {
        if !self.refs_only {
            self.out.push_str(s);
        }
    }
    pub fn value<T: Codec>(&mut self, v: &T) {
        v.encode(self)
    }
    /// `key=value`.
    pub fn key<T: Codec>(&mut self, key: &str, v: &T) {
        self.sep();
        self.punct(key);
        self.punct("=");
        self.first = true;
        v.encode(self);
        self.first = false;
    }
    pub fn opt<T: Codec>(&mut self, key: &str, v: &Option<T>) {
        if let Some(v) = v {
            self.key(key, v);
        }
    }
    /// `key=[…]`, left out when empty.
    pub fn list_key<T: Codec>(&mut self, key: &str, items: &[T]) {
        if items.is_empty() {
            return;
        }
        self.sep();
        self.punct(key);
        self.punct("=");
        self.first = true;
        self.list(items, |w, item| item.encode(w));
    }
    /// `key=0x…`.
    pub fn sep_key_hex(&mut self, key: &str, n: u64) {
        self.sep();
        self.out.push_str(key);
        self.out.push('=');
        self.first = true;
        self.hex(n);
        self.first = false;
    }
    /// A bare word when `on`.
    pub fn flag(&mut self, word: &str, on: bool) {
        if on {
            self.word(word);
        }
    }
}

/// Where decoding happens: the file name, for error messages.
pub struct Ctx<'a> {
    pub file: &'a str,
}

impl Ctx<'_> {
    pub fn err(&self, v: &Val, msg: &str) -> ParseError {
        ParseError::new(self.file, v.span(), msg)
    }
    pub fn err_at(&self, span: Span, msg: &str) -> ParseError {
        ParseError::new(self.file, span, msg)
    }
    pub fn expected(&self, v: &Val, what: &str) -> ParseError {
        self.err(v, &format!("expected {what}, found {}", v.describe()))
    }
}

/// A value type with a text form.
pub trait Codec: Sized {
    fn encode(&self, w: &mut ValueWriter<'_>);
    fn decode(v: &Val, cx: &Ctx) -> PResult<Self>;
}

/// Reads the items of a line or group: positionals in order, keys by name; `finish` rejects
/// whatever was not consumed.
pub struct Fields<'a> {
    cx: &'a Ctx<'a>,
    span: Span,
    positional: Vec<&'a Val>,
    next: usize,
    keys: Vec<(&'a str, Span, &'a Val)>,
    used: HashSet<usize>,
}

impl<'a> Fields<'a> {
    pub fn new(cx: &'a Ctx<'a>, span: Span, items: &'a [Item]) -> PResult<Self> {
        let mut positional = Vec::new();
        let mut keys: Vec<(&str, Span, &Val)> = Vec::new();
        for item in items {
            match item {
                Item::Pos(v) => positional.push(v),
                Item::Key(k, span, v) => {
                    if keys.iter().any(|(seen, _, _)| seen == k) {
                        return Err(cx.err_at(*span, &format!("key `{k}` given twice")));
                    }
                    keys.push((k, *span, v));
                }
            }
        }
        Ok(Fields {
            cx,
            span,
            positional,
            next: 0,
            keys,
            used: HashSet::new(),
        })
    }

    /// Fields of a list element: a group's items, or a single value as one positional.
    pub fn of(cx: &'a Ctx<'a>, v: &'a Val) -> PResult<Self> {
        match v {
            Val::Group(items, span) => Fields::new(cx, *span, items),
            other => Ok(Fields {
                cx,
                span: other.span(),
                positional: vec![other],
                next: 0,
                keys: Vec::new(),
                used: HashSet::new(),
            }),
        }
    }

    pub fn cx(&self) -> &'a Ctx<'a> {
        self.cx
    }
    pub fn span(&self) -> Span {
        self.span
    }

    /// The next positional value, if any.
    pub fn peek(&self) -> Option<&'a Val> {
        self.positional.get(self.next).copied()
    }
    pub fn next_val(&mut self) -> Option<&'a Val> {
        let v = self.peek()?;
        self.next += 1;
        Some(v)
    }
    /// The next positional, required.
    pub fn pos<T: Codec>(&mut self, what: &str) -> PResult<T> {
        match self.next_val() {
            Some(v) => T::decode(v, self.cx),
            None => Err(self.cx.err_at(self.span, &format!("expected {what}"))),
        }
    }
    /// The next positional if it is a string (the optional name most entities start with).
    pub fn name(&mut self) -> Option<String> {
        match self.peek() {
            Some(Val::Str(s, _)) => {
                self.next += 1;
                Some(s.clone())
            }
            _ => None,
        }
    }
    /// Consumes a bare word if it comes next among the positionals.
    pub fn flag(&mut self, word: &str) -> bool {
        // Flags may stand anywhere after the leading positionals; search the unconsumed ones.
        if let Some(i) =
            (self.next..self.positional.len()).find(|&i| self.positional[i].as_word() == Some(word))
        {
            self.positional.remove(i);
            true
        } else {
            false
        }
    }
    fn take(&mut self, key: &str) -> Option<&'a Val> {
        let i = self.keys.iter().position(|(k, _, _)| *k == key)?;
        self.used.insert(i);
        Some(self.keys[i].2)
    }
    pub fn req<T: Codec>(&mut self, key: &str) -> PResult<T> {
        match self.take(key) {
            Some(v) => T::decode(v, self.cx),
            None => Err(self.cx.err_at(self.span, &format!("expected `{key}=…`"))),
        }
    }
    pub fn opt<T: Codec>(&mut self, key: &str) -> PResult<Option<T>> {
        self.take(key).map(|v| T::decode(v, self.cx)).transpose()
    }
    pub fn list<T: Codec>(&mut self, key: &str) -> PResult<Vec<T>> {
        match self.take(key) {
            Some(v) => decode_list(v, self.cx),
            None => Ok(Vec::new()),
        }
    }
    /// Rejects unconsumed items.
    pub fn finish(self) -> PResult<()> {
        if let Some(v) = self.positional.get(self.next) {
            return Err(self.cx.err(v, &format!("unexpected {}", v.describe())));
        }
        for (i, (k, span, _)) in self.keys.iter().enumerate() {
            if !self.used.contains(&i) {
                return Err(self.cx.err_at(*span, &format!("unknown key `{k}`")));
            }
        }
        Ok(())
    }
}

pub fn decode_list<T: Codec>(v: &Val, cx: &Ctx) -> PResult<Vec<T>> {
    match v {
        Val::List(items, _) => items.iter().map(|item| T::decode(item, cx)).collect(),
        other => Err(cx.expected(other, "a list `[…]`")),
    }
}

macro_rules! int_codec {
    ($($t:ty),*) => {$(
        impl Codec for $t {
            fn encode(&self, w: &mut ValueWriter<'_>) {
                w.int(*self as i128)
            }
            fn decode(v: &Val, cx: &Ctx) -> PResult<Self> {
                match v {
                    Val::Int(n, _) => <$t>::try_from(*n).map_err(|_| cx.err(v, concat!("number out of range for ", stringify!($t)))),
                    other => Err(cx.expected(other, "a number")),
                }
            }
        }
    )*};
}
int_codec!(u8, u16, u32, u64, i32, i64, i128);

impl Codec for bool {
    fn encode(&self, w: &mut ValueWriter<'_>) {
        w.word(if *self { "true" } else { "false" })
    }
    fn decode(v: &Val, cx: &Ctx) -> PResult<Self> {
        match v.as_word() {
            Some("true") => Ok(true),
            Some("false") => Ok(false),
            _ => Err(cx.expected(v, "`true` or `false`")),
        }
    }
}

impl Codec for String {
    fn encode(&self, w: &mut ValueWriter<'_>) {
        w.string(self)
    }
    fn decode(v: &Val, cx: &Ctx) -> PResult<Self> {
        match v {
            Val::Str(s, _) => Ok(s.clone()),
            other => Err(cx.expected(other, "a string")),
        }
    }
}

/// Bytes print as `#0a1b…`.
impl Codec for Vec<u8> {
    fn encode(&self, w: &mut ValueWriter<'_>) {
        w.bytes(self)
    }
    fn decode(v: &Val, cx: &Ctx) -> PResult<Self> {
        match v {
            Val::Bytes(b, _) => Ok(b.clone()),
            other => Err(cx.expected(other, "a byte string `#…`")),
        }
    }
}

/// Inside lists, an absent value prints as `none`.
impl<T: Codec> Codec for Option<T> {
    fn encode(&self, w: &mut ValueWriter<'_>) {
        match self {
            Some(v) => v.encode(w),
            None => w.word("none"),
        }
    }
    fn decode(v: &Val, cx: &Ctx) -> PResult<Self> {
        if v.as_word() == Some("none") {
            return Ok(None);
        }
        T::decode(v, cx).map(Some)
    }
}

/// Splits `t12` into its kind and index.
pub fn parse_name(word: &str) -> Option<(EntityKind, u32)> {
    let digits = word.find(|c: char| c.is_ascii_digit())?;
    let (prefix, index) = word.split_at(digits);
    let kind = EntityKind::from_prefix(prefix)?;
    if index.len() > 1 && index.starts_with('0') {
        return None;
    }
    Some((kind, index.parse().ok()?))
}

impl Codec for Ref {
    fn encode(&self, w: &mut ValueWriter<'_>) {
        w.reference(*self)
    }
    fn decode(v: &Val, cx: &Ctx) -> PResult<Self> {
        let word = v
            .as_word()
            .ok_or_else(|| cx.expected(v, "a reference like `t3`"))?;
        let (kind, index) =
            parse_name(word).ok_or_else(|| cx.expected(v, "a reference like `t3`"))?;
        Ok(Ref::from_parts(kind, index))
    }
}

/// Entity types that handles can point at.
pub trait Entity {
    const KIND: EntityKind;
}

macro_rules! entity {
    ($($t:ty => $k:ident),* $(,)?) => {$(
        impl Entity for $t {
            const KIND: EntityKind = EntityKind::$k;
        }
    )*};
}
entity!(
    crate::ir::Text => Text, crate::ir::File => File, crate::ir::Unit => Unit, crate::ir::Type => Type,
    crate::ir::Scope => Scope, crate::ir::InlinedAt => Inlined, crate::ir::Variable => Var,
    crate::ir::Expr => Expr, crate::ir::LocList => LocList, crate::ir::Macro => Macro,
    crate::ir::Import => Import, crate::ir::Label => Label, crate::ir::CallSite => CallSite,
    crate::ir::Property => Property, crate::ir::EntryPoint => EntryPoint, crate::ir::Cie => Cie,
    crate::ir::Fde => Fde,
);

impl<T: Entity> Codec for Handle<T> {
    fn encode(&self, w: &mut ValueWriter<'_>) {
        w.reference(Ref::from_parts(T::KIND, self.index() as u32))
    }
    fn decode(v: &Val, cx: &Ctx) -> PResult<Self> {
        let r = Ref::decode(v, cx)?;
        if r.kind() != T::KIND {
            return Err(cx.err(
                v,
                &format!(
                    "expected a {} (`{}N`), found a {}",
                    T::KIND.noun(),
                    T::KIND.prefix(),
                    r.kind().noun()
                ),
            ));
        }
        Ok(Handle::new(r.index() as u32))
    }
}

/// `f0:9:3`; `f0:9` when the column is unknown; `none:9:3` without a file.
impl Codec for Loc {
    fn encode(&self, w: &mut ValueWriter<'_>) {
        use std::fmt::Write;
        w.sep();
        match self.file {
            Some(f) => w.namer.name(Ref::File(f), w.out),
            None => w.out.push_str("none"),
        }
        if w.refs_only {
            return;
        }
        let _ = write!(w.out, ":{}", self.line);
        if self.column != 0 {
            let _ = write!(w.out, ":{}", self.column);
        }
    }
    fn decode(v: &Val, cx: &Ctx) -> PResult<Self> {
        match v {
            Val::Loc(file, line, column, span) => {
                let file = if file == "none" {
                    None
                } else {
                    Some(Handle::decode(&Val::Word(file.clone(), *span), cx)?)
                };
                Ok(Loc {
                    file,
                    line: *line,
                    column: *column,
                })
            }
            other => Err(cx.expected(other, "a source position `f0:line:column`")),
        }
    }
}

fn write_pos(out: &mut String, p: CodePos) {
    use std::fmt::Write;
    let _ = match p {
        CodePos::Spirv(n) => write!(out, "+{n}"),
        CodePos::Addr(a) => write!(out, "0x{a:x}"),
        CodePos::Llvm(n) => write!(out, "i{n}"),
    };
}

impl Codec for CodePos {
    fn encode(&self, w: &mut ValueWriter<'_>) {
        if w.refs_only {
            return;
        }
        w.sep();
        w.out.push('@');
        write_pos(w.out, *self);
    }
    fn decode(v: &Val, cx: &Ctx) -> PResult<Self> {
        match v {
            Val::Pos(p, _) => Ok(*p),
            other => Err(cx.expected(other, "a code position `@+offset` or `@0xaddress`")),
        }
    }
}

impl Codec for CodeRange {
    fn encode(&self, w: &mut ValueWriter<'_>) {
        if w.refs_only {
            return;
        }
        w.sep();
        w.out.push('@');
        write_pos(w.out, self.start);
        w.out.push_str("..");
        write_pos(w.out, self.end);
    }
    fn decode(v: &Val, cx: &Ctx) -> PResult<Self> {
        match v {
            Val::Range(r, _) => Ok(*r),
            other => Err(cx.expected(other, "a code range `@start..end`")),
        }
    }
}

/// `[artificial, prototyped, foreign(0x40000)]`.
impl Codec for Flags {
    fn encode(&self, w: &mut ValueWriter<'_>) {
        let mut names: Vec<FlagWord> = (0..64)
            .filter(|b| self.bits & (1u64 << b) != 0)
            .map(|b| match FLAG_NAMES.get(b) {
                Some(name) => FlagWord::Named(name),
                None => FlagWord::Bit(b as u32),
            })
            .collect();
        if self.foreign != 0 {
            names.push(FlagWord::Foreign(self.foreign));
        }
        w.list(&names, |w, f| match f {
            FlagWord::Named(n) => w.word(n),
            FlagWord::Bit(b) => w.call("bit", |w| w.int(*b)),
            FlagWord::Foreign(x) => w.call("foreign", |w| w.hex(u64::from(*x))),
        });
    }
    fn decode(v: &Val, cx: &Ctx) -> PResult<Self> {
        let Val::List(items, _) = v else {
            return Err(cx.expected(v, "a list of flags"));
        };
        let mut flags = Flags::default();
        for item in items {
            match item {
                Val::Word(w, _) => match FLAG_NAMES.iter().position(|n| n == w) {
                    Some(b) => flags.bits |= 1 << b,
                    None => return Err(cx.err(item, &format!("unknown flag `{w}`"))),
                },
                Val::Call(name, args, _) if name == "bit" || name == "foreign" => {
                    let [Item::Pos(arg)] = args.as_slice() else {
                        return Err(cx.err(item, &format!("`{name}(…)` takes one number")));
                    };
                    if name == "bit" {
                        let b = u8::decode(arg, cx)?;
                        if b >= 64 {
                            return Err(cx.err(arg, "flag bit must be below 64"));
                        }
                        flags.bits |= 1 << b;
                    } else {
                        flags.foreign |= u32::decode(arg, cx)?;
                    }
                }
                other => return Err(cx.expected(other, "a flag name")),
            }
        }
        Ok(flags)
    }
}

enum FlagWord {
    Named(&'static str),
    Bit(u32),
    Foreign(u32),
}
