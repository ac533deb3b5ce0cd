//! The IR text form (`.dwir`): deterministic, one entity per line, references by short names.
//!
//! ```text
//! ; dwarv-ir 1 source=spirv:NonSemantic.Shader.DebugInfo.100
//! f0 = file "shade.comp" dir="/src" checksum=md5(#3f2a…) source=x0
//! u0 = unit glsl file=f0 producer="glslang 12"
//! t0 = base "float" enc=float bits=32
//! s0 = function "shade" in=u0 at=f0:8:7 type=t7 bind=%12
//! line @+1440..+1472 f0:9:9 end_line=9 end_col=40
//! ```
//! `print(parse(t)) == t` for every text `print` produces, and `parse(print(m)) == m`. The
//! grammar and every keyword are documented in docs/ir-text.md.

mod codec;
mod lex;
mod records;
mod values;

use std::fmt;

pub use codec::{Codec, Ctx, Namer, PrintOptions, ShortNames, ValueWriter};
pub use lex::{Item, Span, Val};
pub use records::{scope_keyword, type_keyword, Record};
pub(crate) use values::arg_fits;

use crate::ir::{EntityKind, Module, Ref, Source, SourceFormat};
use codec::{parse_name, Fields};
use lex::LineParser;

/// The text form's version, in the header line.
pub const VERSION: u32 = 1;
const HEADER: &str = "; dwarv-ir";

/// A syntax error: `file:line:column: message`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{column}: {message}")]
pub struct ParseError {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub message: String,
}

impl ParseError {
    pub fn new(file: &str, span: Span, message: impl Into<String>) -> Self {
        ParseError {
            file: file.to_string(),
            line: span.line,
            column: span.col,
            message: message.into(),
        }
    }
}

pub type PResult<T> = Result<T, ParseError>;

/// Whether a text starts with the IR header (for input-format detection).
pub fn looks_like_ir(bytes: &[u8]) -> bool {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    bytes[start..].starts_with(HEADER.as_bytes())
}

/// Calls `f` for every entity line, in print order: the arena, the entity as a record, its ref.
macro_rules! for_each_entity {
    ($m:expr, $f:ident) => {
        for (h, e) in $m.texts.iter() {
            $f(Ref::Text(h), e);
        }
        for (h, e) in $m.files.iter() {
            $f(Ref::File(h), e);
        }
        for (h, e) in $m.units.iter() {
            $f(Ref::Unit(h), e);
        }
        for (h, e) in $m.types.iter() {
            $f(Ref::Type(h), e);
        }
        for (h, e) in $m.scopes.iter() {
            $f(Ref::Scope(h), e);
        }
        for (h, e) in $m.inlined.iter() {
            $f(Ref::Inlined(h), e);
        }
        for (h, e) in $m.vars.iter() {
            $f(Ref::Var(h), e);
        }
        for (h, e) in $m.exprs.iter() {
            $f(Ref::Expr(h), e);
        }
        for (h, e) in $m.loclists.iter() {
            $f(Ref::LocList(h), e);
        }
        for (h, e) in $m.macros.iter() {
            $f(Ref::Macro(h), e);
        }
        for (h, e) in $m.imports.iter() {
            $f(Ref::Import(h), e);
        }
        for (h, e) in $m.labels.iter() {
            $f(Ref::Label(h), e);
        }
        for (h, e) in $m.call_sites.iter() {
            $f(Ref::CallSite(h), e);
        }
        for (h, e) in $m.properties.iter() {
            $f(Ref::Property(h), e);
        }
        for (h, e) in $m.entry_points.iter() {
            $f(Ref::EntryPoint(h), e);
        }
        for (h, e) in $m.cies.iter() {
            $f(Ref::Cie(h), e);
        }
        for (h, e) in $m.fdes.iter() {
            $f(Ref::Fde(h), e);
        }
    };
}
pub(crate) use for_each_entity;

/// The body of one record (keyword and items) with the given naming and options.
pub fn render<R: Record>(r: &R, namer: &dyn Namer, opts: PrintOptions) -> String {
    let mut out = String::new();
    r.write(&mut ValueWriter::new(&mut out, namer, opts));
    out
}

/// The header line.
pub fn header(source: &Source) -> String {
    let mut h = format!("{HEADER} {VERSION} source={}", source.format.name());
    if let Some(flavour) = &source.flavour {
        h.push(':');
        // The flavour runs to the end of the line; one that could not (a line break or other
        // control character, whitespace at an end, a leading quote) is written quoted.
        let plain = !flavour.starts_with('"')
            && flavour.trim() == flavour
            && !flavour.chars().any(char::is_control);
        match plain {
            true => h.push_str(flavour),
            false => lex::quote(flavour, &mut h),
        }
    }
    h
}

/// Prints a module in the canonical text form.
pub fn print(m: &Module) -> String {
    let mut out = header(&m.source);
    out.push('\n');
    let info = render_info(m, &ShortNames, PrintOptions::default());
    if !info.is_empty() {
        out.push_str(&info);
        out.push('\n');
    }
    let mut line = |r: Ref, e: &dyn RecordDyn| {
        ShortNames.name(r, &mut out);
        out.push_str(" =");
        e.write_dyn(&mut ValueWriter::new(
            &mut out,
            &ShortNames,
            PrintOptions::default(),
        ));
        out.push('\n');
    };
    for_each_entity!(m, line);
    for row in &m.lines {
        out.push_str(&render(row, &ShortNames, PrintOptions::default()));
        out.push('\n');
    }
    for run in &m.scope_runs {
        out.push_str(&render(run, &ShortNames, PrintOptions::default()));
        out.push('\n');
    }
    for event in &m.events {
        out.push_str(&render(event, &ShortNames, PrintOptions::default()));
        out.push('\n');
    }
    out
}

/// Object-safe view of [`Record::write`], so one closure can print every arena.
pub trait RecordDyn {
    fn write_dyn(&self, w: &mut ValueWriter<'_>);
}
impl<R: Record> RecordDyn for R {
    fn write_dyn(&self, w: &mut ValueWriter<'_>) {
        self.write(w)
    }
}

/// The `module …` line, or an empty string when the module has no module-level facts.
pub fn render_info(m: &Module, namer: &dyn Namer, opts: PrintOptions) -> String {
    let i = &m.info;
    let mut body = String::new();
    {
        let mut w = ValueWriter::new(&mut body, namer, opts);
        w.opt("machine", &i.machine);
        w.opt("addr_size", &i.address_size);
        if let Some(b) = &i.build_id {
            w.key("build_id", &b.id);
            if b.flags != 0 {
                w.key("build_flags", &b.flags);
            }
        }
        w.opt("storage_path", &i.storage_path);
        if !opts.hide_encoding {
            if let Some(l) = &i.link {
                w.key("link_id", &l.build_id);
                w.opt("link_path", &l.storage_path);
            }
            w.opt("code_id", &i.code_id);
        }
    }
    if body.is_empty() {
        body
    } else {
        format!("module {body}")
    }
}

fn parse_header(file: &str, line: &str) -> PResult<Source> {
    let span = |col: usize| Span {
        line: 1,
        col: col as u32 + 1,
    };
    let rest = line.strip_prefix(HEADER).ok_or_else(|| {
        ParseError::new(
            file,
            span(0),
            format!("expected the header `{HEADER} {VERSION} source=…`"),
        )
    })?;
    let mut words = rest.split_whitespace();
    match words.next() {
        Some(v) if v == VERSION.to_string() => {}
        Some(v) => {
            return Err(ParseError::new(
                file,
                span(HEADER.len() + 1),
                format!("unsupported IR text version `{v}` (this dwarv reads {VERSION})"),
            ))
        }
        None => {
            return Err(ParseError::new(
                file,
                span(line.len()),
                "expected the IR text version after `; dwarv-ir`",
            ))
        }
    }
    let mut source = Source::default();
    if let Some(word) = words.next() {
        let col = line.find(word).unwrap_or(0);
        if !word.starts_with("source=") {
            return Err(ParseError::new(
                file,
                span(col),
                format!("unknown header field `{word}`"),
            ));
        }
        // The source takes the rest of the line, so a flavour may contain spaces; a quoted one
        // is a string of the text form.
        let value = line[col + "source=".len()..].trim_end();
        let (format, flavour) = match value.split_once(':') {
            Some((f, fl)) if fl.starts_with('"') => {
                let at = col + "source=".len() + f.len() + 1;
                let mut lx = LineParser::new(file, line, 1, at);
                let flavour = match lx.items()?.as_slice() {
                    [Item::Pos(Val::Str(s, _))] => s.clone(),
                    _ => {
                        return Err(ParseError::new(
                            file,
                            span(at),
                            "a quoted source flavour must end the header line",
                        ))
                    }
                };
                (f, Some(flavour))
            }
            Some((f, fl)) => (f, Some(fl.to_string())),
            None => (value, None),
        };
        source.format = SourceFormat::from_name(format).ok_or_else(|| {
            ParseError::new(file, span(col), format!("unknown source format `{format}`"))
        })?;
        source.flavour = flavour;
    }
    Ok(source)
}

/// Parses IR text. `file` names the input in error messages.
pub fn parse(text: &str, file: &str) -> PResult<Module> {
    let cx = Ctx { file };
    let mut m = Module::default();
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((_, first)) = lines.next() else {
        return Err(ParseError::new(
            file,
            Span { line: 1, col: 1 },
            format!("empty input: expected the header `{HEADER} {VERSION} source=…`"),
        ));
    };
    m.source = parse_header(file, first.trim_start())?;
    let mut seen_info = false;
    for (n, line) in lines {
        let line_no = u32::try_from(n + 1).unwrap_or(u32::MAX);
        if line.trim_start().starts_with(';') {
            continue;
        }
        let mut p = LineParser::new(file, line, line_no, 0);
        let (first_word, first_span) = p.word()?;
        if p.try_eq() {
            let (kind, index) = parse_name(&first_word).ok_or_else(|| {
                ParseError::new(
                    file,
                    first_span,
                    format!("`{first_word}` is not an entity name like `t3`"),
                )
            })?;
            let expected = m.count(kind);
            if index as usize != expected {
                return Err(ParseError::new(
                    file,
                    first_span,
                    format!("expected {}{expected} here ({} entities are numbered in order), found {first_word}", kind.prefix(), kind.noun()),
                ));
            }
            let (keyword, kw_span) = p.word()?;
            let items = p.items()?;
            let mut f = Fields::new(&cx, kw_span, &items)?;
            read_entity(&mut m, kind, &keyword, &mut f)?;
            f.finish()?;
        } else {
            let items = p.items()?;
            let mut f = Fields::new(&cx, first_span, &items)?;
            match first_word.as_str() {
                "module" => {
                    if seen_info {
                        return Err(ParseError::new(file, first_span, "a second `module` line"));
                    }
                    seen_info = true;
                    read_info(&mut m, &mut f)?;
                }
                "line" => m.lines.push(Record::read(&first_word, &mut f)?),
                "scope" => m.scope_runs.push(Record::read(&first_word, &mut f)?),
                "declare" | "value" | "addr" => m.events.push(Record::read(&first_word, &mut f)?),
                other => {
                    return Err(ParseError::new(
                        file,
                        first_span,
                        format!("expected an entity `NAME = …` or one of `module`, `line`, `scope`, `declare`, `value`, `addr`; found `{other}`"),
                    ))
                }
            }
            f.finish()?;
        }
    }
    Ok(m)
}

fn read_entity(m: &mut Module, kind: EntityKind, keyword: &str, f: &mut Fields<'_>) -> PResult<()> {
    match kind {
        EntityKind::Text => drop(m.texts.push(Record::read(keyword, f)?)),
        EntityKind::File => drop(m.files.push(Record::read(keyword, f)?)),
        EntityKind::Unit => drop(m.units.push(Record::read(keyword, f)?)),
        EntityKind::Type => drop(m.types.push(Record::read(keyword, f)?)),
        EntityKind::Scope => drop(m.scopes.push(Record::read(keyword, f)?)),
        EntityKind::Inlined => drop(m.inlined.push(Record::read(keyword, f)?)),
        EntityKind::Var => drop(m.vars.push(Record::read(keyword, f)?)),
        EntityKind::Expr => drop(m.exprs.push(Record::read(keyword, f)?)),
        EntityKind::LocList => drop(m.loclists.push(Record::read(keyword, f)?)),
        EntityKind::Macro => drop(m.macros.push(Record::read(keyword, f)?)),
        EntityKind::Import => drop(m.imports.push(Record::read(keyword, f)?)),
        EntityKind::Label => drop(m.labels.push(Record::read(keyword, f)?)),
        EntityKind::CallSite => drop(m.call_sites.push(Record::read(keyword, f)?)),
        EntityKind::Property => drop(m.properties.push(Record::read(keyword, f)?)),
        EntityKind::EntryPoint => drop(m.entry_points.push(Record::read(keyword, f)?)),
        EntityKind::Cie => drop(m.cies.push(Record::read(keyword, f)?)),
        EntityKind::Fde => drop(m.fdes.push(Record::read(keyword, f)?)),
    }
    Ok(())
}

fn read_info(m: &mut Module, f: &mut Fields<'_>) -> PResult<()> {
    let i = &mut m.info;
    i.machine = f.opt("machine")?;
    i.address_size = f.opt("addr_size")?;
    let build_id: Option<String> = f.opt("build_id")?;
    let build_flags: Option<u32> = f.opt("build_flags")?;
    if build_id.is_none() && build_flags.is_some() {
        return Err(f.cx().err_at(f.span(), "`build_flags` needs `build_id`"));
    }
    i.build_id = build_id.map(|id| crate::ir::BuildId {
        id,
        flags: build_flags.unwrap_or(0),
    });
    i.storage_path = f.opt("storage_path")?;
    let link_id: Option<String> = f.opt("link_id")?;
    let link_path: Option<String> = f.opt("link_path")?;
    if link_id.is_none() && link_path.is_some() {
        return Err(f.cx().err_at(f.span(), "`link_path` needs `link_id`"));
    }
    i.link = link_id.map(|build_id| crate::ir::Link {
        build_id,
        storage_path: link_path,
    });
    i.code_id = f.opt("code_id")?;
    Ok(())
}

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print(self))
    }
}

/// The characters of `line` outside quoted strings (a string's opening quote included), with
/// their byte offsets; and whether `line` ends inside a string.
pub fn outside_strings(line: &str) -> (Vec<(usize, char)>, bool) {
    let mut out = Vec::new();
    let (mut in_str, mut escaped) = (false, false);
    for (i, c) in line.char_indices() {
        if in_str {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_str = false,
                _ => {}
            }
            continue;
        }
        if c == '"' {
            in_str = true;
        }
        out.push((i, c));
    }
    (out, in_str)
}

/// Top-level items of a record (spaces outside quotes, brackets, parentheses and `<…>` names).
pub fn split_items(line: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in outside_strings(line).0 {
        match c {
            '[' | '(' | '<' => depth += 1,
            ']' | ')' | '>' => depth -= 1,
            ' ' if depth == 0 => {
                if i > start {
                    items.push(&line[start..i]);
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    if start < line.len() {
        items.push(&line[start..]);
    }
    items
}
