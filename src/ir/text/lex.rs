//! Tokens and values of one line of IR text.
//!
//! Every line is `NAME = KEYWORD item*`, `KEYWORD item*` or a `;` comment. An item is a value or
//! `key=value`; values are strings, integers, `#hex` bytes, `%id`, words, `word(items)`,
//! `file:line:col`, `@pos` / `@pos..pos` and `[item*, …]` lists.

use super::{PResult, ParseError};
use crate::ir::code::{CodePos, CodeRange};

/// Position of a value in the input, 1-based.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    pub line: u32,
    pub col: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Int(i128, Span),
    Str(String, Span),
    Bytes(Vec<u8>, Span),
    Spirv(u32, Span),
    Word(String, Span),
    Call(String, Vec<Item>, Span),
    Loc(String, u32, u32, Span),
    Pos(CodePos, Span),
    Range(CodeRange, Span),
    List(Vec<Val>, Span),
    /// A list element of several items (`count=4 lower=1`, `constu 1`).
    Group(Vec<Item>, Span),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Pos(Val),
    /// `key=value`; the span is the key's.
    Key(String, Span, Val),
}

impl Val {
    pub fn span(&self) -> Span {
        match self {
            Val::Int(_, s)
            | Val::Str(_, s)
            | Val::Bytes(_, s)
            | Val::Spirv(_, s)
            | Val::Word(_, s)
            | Val::Call(_, _, s)
            | Val::Loc(_, _, _, s)
            | Val::Pos(_, s)
            | Val::Range(_, s)
            | Val::List(_, s)
            | Val::Group(_, s) => *s,
        }
    }
    pub fn as_word(&self) -> Option<&str> {
        match self {
            Val::Word(w, _) => Some(w),
            _ => None,
        }
    }
    /// The number of an `unknown(N)` value.
    pub fn as_unknown(&self) -> Option<u64> {
        match self {
            Val::Call(name, args, _) if name == "unknown" => match args.as_slice() {
                [Item::Pos(Val::Int(n, _))] => u64::try_from(*n).ok(),
                _ => None,
            },
            _ => None,
        }
    }
    /// What the value is, for "expected X, found Y" messages.
    pub fn describe(&self) -> String {
        match self {
            Val::Int(n, _) => format!("integer {n}"),
            Val::Str(..) => "a string".into(),
            Val::Bytes(..) => "a byte string".into(),
            Val::Spirv(n, _) => format!("%{n}"),
            Val::Word(w, _) => format!("`{w}`"),
            Val::Call(w, _, _) => format!("`{w}(…)`"),
            Val::Loc(..) => "a source position".into(),
            Val::Pos(..) => "a code position".into(),
            Val::Range(..) => "a code range".into(),
            Val::List(..) => "a list".into(),
            Val::Group(..) => "a group of items".into(),
        }
    }
}

/// Parses the items of one line (after `NAME =`), starting at byte `start`.
pub struct LineParser<'a> {
    file: &'a str,
    text: &'a [u8],
    line: u32,
    i: usize,
    depth: u32,
}

/// Lists and calls nest at most this deep (a guard against stack exhaustion on hostile input).
const MAX_DEPTH: u32 = 64;

impl<'a> LineParser<'a> {
    pub fn new(file: &'a str, text: &'a str, line: u32, start: usize) -> Self {
        LineParser {
            file,
            text: text.as_bytes(),
            line,
            i: start,
            depth: 0,
        }
    }

    fn span(&self) -> Span {
        Span {
            line: self.line,
            col: self.i as u32 + 1,
        }
    }

    fn err<T>(&self, msg: impl Into<String>) -> PResult<T> {
        Err(ParseError::new(self.file, self.span(), msg))
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.i).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r')) {
            self.i += 1;
        }
        // A comment runs to the end of the line.
        if self.peek() == Some(b';') {
            self.i = self.text.len();
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.skip_ws();
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn found(&self) -> String {
        match self.peek() {
            None => "end of line".into(),
            Some(c) if c.is_ascii_graphic() => format!("`{}`", c as char),
            Some(c) => format!("byte 0x{c:02x}"),
        }
    }

    pub fn at_end(&mut self) -> bool {
        self.skip_ws();
        self.i >= self.text.len()
    }

    /// A bare word at the current position (entity names and keywords).
    pub fn word(&mut self) -> PResult<(String, Span)> {
        self.skip_ws();
        let span = self.span();
        let start = self.i;
        if !matches!(self.peek(), Some(c) if c.is_ascii_alphabetic() || c == b'_') {
            return self.err(format!("expected a word, found {}", self.found()));
        }
        while matches!(self.peek(), Some(c) if is_word_byte(c)) {
            self.i += 1;
        }
        Ok((
            String::from_utf8_lossy(&self.text[start..self.i]).into_owned(),
            span,
        ))
    }

    /// `=` after an entity name; false when the line has no `NAME =` part.
    pub fn try_eq(&mut self) -> bool {
        self.eat(b'=')
    }

    /// All remaining items of the line.
    pub fn items(&mut self) -> PResult<Vec<Item>> {
        let mut items = Vec::new();
        while !self.at_end() {
            items.push(self.item()?);
        }
        Ok(items)
    }

    fn item(&mut self) -> PResult<Item> {
        self.skip_ws();
        let save = self.i;
        if matches!(self.peek(), Some(c) if c.is_ascii_alphabetic() || c == b'_') {
            let (word, span) = self.word()?;
            if self.peek() == Some(b'=') {
                self.i += 1;
                self.skip_ws();
                let v = self.value()?;
                return Ok(Item::Key(word, span, v));
            }
            self.i = save;
        }
        Ok(Item::Pos(self.value()?))
    }

    fn value(&mut self) -> PResult<Val> {
        self.skip_ws();
        let span = self.span();
        match self.peek() {
            Some(b'"') => self.string().map(|s| Val::Str(s, span)),
            Some(b'#') => {
                self.i += 1;
                self.hex_bytes().map(|b| Val::Bytes(b, span))
            }
            Some(b'%') => {
                self.i += 1;
                let n = self.integer()?;
                u32::try_from(n)
                    .map(|n| Val::Spirv(n, span))
                    .or_else(|_| self.err("SPIR-V id out of range"))
            }
            Some(b'@') => {
                self.i += 1;
                let start = self.code_pos()?;
                if self.text.get(self.i..self.i + 2) == Some(b"..") {
                    self.i += 2;
                    let end = self.code_pos()?;
                    if std::mem::discriminant(&start) != std::mem::discriminant(&end) {
                        return self.err("a code range mixes a SPIR-V offset and an address");
                    }
                    return Ok(Val::Range(CodeRange { start, end }, span));
                }
                Ok(Val::Pos(start, span))
            }
            Some(b'[') => {
                self.i += 1;
                self.nest()?;
                let mut elems = Vec::new();
                if !self.eat(b']') {
                    loop {
                        elems.push(self.element()?);
                        if self.eat(b']') {
                            break;
                        }
                        if !self.eat(b',') {
                            return self
                                .err(format!("expected `,` or `]`, found {}", self.found()));
                        }
                    }
                }
                self.depth -= 1;
                Ok(Val::List(elems, span))
            }
            Some(c) if c == b'-' || c.is_ascii_digit() => self.integer().map(|n| Val::Int(n, span)),
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                let (word, _) = self.word()?;
                match self.peek() {
                    Some(b'(') => {
                        self.i += 1;
                        self.nest()?;
                        let mut args = Vec::new();
                        while !self.eat(b')') {
                            if self.at_end() {
                                return self.err("expected `)`, found end of line");
                            }
                            args.push(self.item()?);
                        }
                        self.depth -= 1;
                        Ok(Val::Call(word, args, span))
                    }
                    Some(b':') => {
                        self.i += 1;
                        let line = self.u32()?;
                        let col = if self.peek() == Some(b':') {
                            self.i += 1;
                            self.u32()?
                        } else {
                            0
                        };
                        Ok(Val::Loc(word, line, col, span))
                    }
                    _ => Ok(Val::Word(word, span)),
                }
            }
            _ => self.err(format!("expected a value, found {}", self.found())),
        }
    }

    fn nest(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.err(format!("lists nested deeper than {MAX_DEPTH}"));
        }
        Ok(())
    }

    /// One list element: items up to `,` or `]`; a lone positional value stands for itself.
    fn element(&mut self) -> PResult<Val> {
        self.skip_ws();
        let span = self.span();
        let mut items = Vec::new();
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b',' | b']') | None => break,
                _ => items.push(self.item()?),
            }
        }
        match items.len() {
            0 => self.err(format!("expected a list element, found {}", self.found())),
            1 if matches!(items[0], Item::Pos(_)) => match items.pop() {
                Some(Item::Pos(v)) => Ok(v),
                _ => unreachable!("checked above"),
            },
            _ => Ok(Val::Group(items, span)),
        }
    }

    fn code_pos(&mut self) -> PResult<CodePos> {
        if self.peek() == Some(b'+') {
            self.i += 1;
            let n = self.integer()?;
            return u32::try_from(n)
                .map(CodePos::Spirv)
                .or_else(|_| self.err("SPIR-V word offset out of range"));
        }
        if self.peek() == Some(b'i') {
            self.i += 1;
            let n = self.integer()?;
            return u32::try_from(n)
                .map(CodePos::Llvm)
                .or_else(|_| self.err("LLVM instruction number out of range"));
        }
        if self.text.get(self.i..self.i + 2) != Some(b"0x") {
            return self.err(format!(
                "expected `+offset`, `iN` or `0xaddress`, found {}",
                self.found()
            ));
        }
        let n = self.integer()?;
        u64::try_from(n)
            .map(CodePos::Addr)
            .or_else(|_| self.err("address out of range"))
    }

    fn u32(&mut self) -> PResult<u32> {
        let n = self.integer()?;
        u32::try_from(n).or_else(|_| self.err("expected a number from 0 to 4294967295"))
    }

    fn integer(&mut self) -> PResult<i128> {
        let start = self.i;
        let neg = self.peek() == Some(b'-');
        if neg {
            self.i += 1;
        }
        let hex = self.text.get(self.i..self.i + 2) == Some(b"0x");
        if hex {
            self.i += 2;
        }
        let digits = self.i;
        while matches!(self.peek(), Some(c) if c.is_ascii_hexdigit() && (hex || c.is_ascii_digit()))
        {
            self.i += 1;
        }
        if self.i == digits {
            self.i = start;
            return self.err(format!("expected a number, found {}", self.found()));
        }
        let s = std::str::from_utf8(&self.text[digits..self.i]).unwrap_or("");
        let magnitude = if hex {
            u128::from_str_radix(s, 16)
        } else {
            s.parse::<u128>()
        };
        let magnitude = match magnitude {
            Ok(m) => m,
            Err(_) => {
                self.i = start;
                return self.err("number too large");
            }
        };
        if neg {
            // -2^127 is the smallest i128.
            if magnitude > i128::MAX as u128 + 1 {
                self.i = start;
                return self.err("number too large");
            }
            Ok((magnitude as i128).wrapping_neg())
        } else {
            i128::try_from(magnitude).or_else(|_| {
                self.i = start;
                self.err("number too large")
            })
        }
    }

    fn hex_bytes(&mut self) -> PResult<Vec<u8>> {
        let start = self.i;
        while matches!(self.peek(), Some(c) if c.is_ascii_hexdigit()) {
            self.i += 1;
        }
        let digits = &self.text[start..self.i];
        if digits.len() % 2 != 0 {
            return self.err("a byte string needs an even number of hex digits");
        }
        Ok(digits
            .chunks(2)
            .map(|pair| (hex_val(pair[0]) << 4) | hex_val(pair[1]))
            .collect())
    }

    fn string(&mut self) -> PResult<String> {
        let open = self.i;
        self.i += 1; // opening quote
        let mut out = Vec::new();
        loop {
            match self.peek() {
                None => {
                    self.i = open;
                    return self.err("unterminated string");
                }
                Some(b'"') => {
                    self.i += 1;
                    break;
                }
                Some(b'\\') => {
                    self.i += 1;
                    let esc = self.peek();
                    self.i += 1;
                    match esc {
                        Some(b'n') => out.push(b'\n'),
                        Some(b't') => out.push(b'\t'),
                        Some(b'r') => out.push(b'\r'),
                        Some(b'0') => out.push(0),
                        Some(b'\\') => out.push(b'\\'),
                        Some(b'"') => out.push(b'"'),
                        Some(b'u') => {
                            // \u{XXXX}
                            if self.peek() != Some(b'{') {
                                return self.err("expected `{` after \\u");
                            }
                            self.i += 1;
                            let start = self.i;
                            while matches!(self.peek(), Some(c) if c.is_ascii_hexdigit()) {
                                self.i += 1;
                            }
                            let hex = std::str::from_utf8(&self.text[start..self.i]).unwrap_or("");
                            let ch = u32::from_str_radix(hex, 16).ok().and_then(char::from_u32);
                            if self.peek() != Some(b'}') {
                                return self.err("expected `}` closing \\u{…}");
                            }
                            self.i += 1;
                            match ch {
                                Some(ch) => {
                                    out.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes())
                                }
                                None => return self.err("\\u{…} is not a Unicode scalar value"),
                            }
                        }
                        _ => {
                            self.i -= 1;
                            return self.err(format!(
                                "unknown escape \\{}",
                                self.found().trim_matches('`')
                            ));
                        }
                    }
                }
                Some(c) => {
                    out.push(c);
                    self.i += 1;
                }
            }
        }
        String::from_utf8(out).or_else(|_| self.err("string is not valid UTF-8"))
    }
}

pub fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'+' | b'#')
}

fn hex_val(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => c - b'A' + 10,
    }
}

/// Escapes a string for the text form: printable ASCII and non-ASCII characters as they are,
/// quotes, backslashes and control characters escaped.
pub fn quote(s: &str, out: &mut String) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c if c.is_control() => {
                use std::fmt::Write;
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}
