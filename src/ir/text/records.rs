//! One record per entity: the keyword and items of its line, written and read symmetrically.
//! Field order in `write` is the canonical order; `read` accepts keys in any order.

use super::codec::{Fields, ValueWriter};
use super::PResult;
use crate::ir::cfi::{Cie, Fde};
use crate::ir::code::{Event, EventKind, LineFlags, LineRow, ScopeRun};
use crate::ir::expr::{Expr, LocList};
use crate::ir::scope::{FunctionInfo, InlinedAt, Scope, ScopeKind};
use crate::ir::types::{CompositeTag, PtrKind, Qualifier, TemplateParamKind, Type, TypeKind};
use crate::ir::unit::{File, Macro, MacroKind, Text, Unit, UnitKind};
use crate::ir::var::{
    CallSite, EntryPoint, Import, ImportKind, Label, Property, VarKind, Variable,
};
use crate::ir::{Flags, Memory};

/// An entity or table row with a line of its own.
pub trait Record: Sized {
    /// Writes the keyword and the items.
    fn write(&self, w: &mut ValueWriter<'_>);
    /// Reads the items after `keyword`.
    fn read(keyword: &str, f: &mut Fields<'_>) -> PResult<Self>;
}

fn bad_keyword<T>(f: &Fields<'_>, keyword: &str, what: &str) -> PResult<T> {
    Err(f
        .cx()
        .err_at(f.span(), &format!("`{keyword}` is not a {what} keyword")))
}

fn flags_out(w: &mut ValueWriter<'_>, flags: Flags) {
    if !flags.is_empty() {
        w.key("flags", &flags);
    }
}

fn flags_in(f: &mut Fields<'_>) -> PResult<Flags> {
    Ok(f.opt("flags")?.unwrap_or_default())
}

impl Record for Text {
    fn write(&self, w: &mut ValueWriter<'_>) {
        w.word("text");
        w.string(&self.text);
    }
    fn read(keyword: &str, f: &mut Fields<'_>) -> PResult<Self> {
        if keyword != "text" {
            return bad_keyword(f, keyword, "source text");
        }
        Ok(Text {
            text: f.pos("the text")?,
        })
    }
}

impl Record for File {
    fn write(&self, w: &mut ValueWriter<'_>) {
        w.word("file");
        w.string(&self.name);
        w.opt("dir", &self.directory);
        w.opt("checksum", &self.checksum);
        w.opt("source", &self.source);
    }
    fn read(keyword: &str, f: &mut Fields<'_>) -> PResult<Self> {
        if keyword != "file" {
            return bad_keyword(f, keyword, "file");
        }
        Ok(File {
            name: f.pos("the file name")?,
            directory: f.opt("dir")?,
            checksum: f.opt("checksum")?,
            source: f.opt("source")?,
        })
    }
}

impl Record for Unit {
    fn write(&self, w: &mut ValueWriter<'_>) {
        w.word("unit");
        w.value(&self.language);
        if self.kind != UnitKind::COMPILE {
            w.key("kind", &self.kind);
        }
        w.opt("file", &self.file);
        w.opt("producer", &self.producer);
        w.opt("cmdline", &self.flags_text);
        if !w.opts.hide_encoding {
            w.opt("dwarf", &self.dwarf_version);
            w.opt("debug_version", &self.debug_version);
        }
        if self.runtime_version != 0 {
            w.key("runtime", &self.runtime_version);
        }
        if self.emission != crate::ir::EmissionKind::FULL {
            w.key("emission", &self.emission);
        }
        w.opt("dwo_name", &self.dwo_name);
        if let Some(id) = self.dwo_id {
            w.sep_key_hex("dwo_id", id);
        }
        if let Some(s) = self.signature {
            w.sep_key_hex("signature", s);
        }
        w.opt("signed", &self.signed_type);
        w.flag("split_inlining", self.split_debug_inlining);
        w.flag("profiling", self.debug_info_for_profiling);
        if self.name_table != 0 {
            w.key("name_table", &self.name_table);
        }
        w.flag("ranges_base", self.ranges_base_address);
        w.opt("sysroot", &self.sysroot);
        w.opt("sdk", &self.sdk);
        w.opt("augmentation", &self.augmentation);
        if !w.opts.hide_code {
            w.list_key("ranges", &self.ranges);
        }
        w.list_key("retained", &self.retained);
        flags_out(w, self.flags);
        w.list_key("extra", &self.extra);
    }
    fn read(keyword: &str, f: &mut Fields<'_>) -> PResult<Self> {
        if keyword != "unit" {
            return bad_keyword(f, keyword, "unit");
        }
        Ok(Unit {
            language: f.pos("the unit's language")?,
            kind: f.opt("kind")?.unwrap_or(UnitKind::COMPILE),
            file: f.opt("file")?,
            producer: f.opt("producer")?,
            flags_text: f.opt("cmdline")?,
            dwarf_version: f.opt("dwarf")?,
            debug_version: f.opt("debug_version")?,
            runtime_version: f.opt("runtime")?.unwrap_or(0),
            emission: f.opt("emission")?.unwrap_or(crate::ir::EmissionKind::FULL),
            dwo_name: f.opt("dwo_name")?,
            dwo_id: f.opt::<u64>("dwo_id")?,
            signature: f.opt::<u64>("signature")?,
            signed_type: f.opt("signed")?,
            split_debug_inlining: f.flag("split_inlining"),
            debug_info_for_profiling: f.flag("profiling"),
            name_table: f.opt("name_table")?.unwrap_or(0),
            ranges_base_address: f.flag("ranges_base"),
            sysroot: f.opt("sysroot")?,
            sdk: f.opt("sdk")?,
            augmentation: f.opt("augmentation")?,
            ranges: f.list("ranges")?,
            retained: f.list("retained")?,
            flags: flags_in(f)?,
            extra: f.list("extra")?,
        })
    }
}

const PTR_KINDS: [(PtrKind, &str); 3] = [
    (PtrKind::Pointer, "pointer"),
    (PtrKind::Reference, "ref"),
    (PtrKind::RvalueReference, "rvalue_ref"),
];

const TPARAM_KINDS: [(TemplateParamKind, &str); 4] = [
    (TemplateParamKind::Type, "type"),
    (TemplateParamKind::Value, "value"),
    (TemplateParamKind::Template, "template"),
    (TemplateParamKind::Pack, "pack"),
];

/// The text form's keyword of a type kind (also the kind's name in `dwarv stats`).
pub fn type_keyword(kind: &TypeKind) -> &'static str {
    match kind {
        TypeKind::Basic { .. } => "base",
        TypeKind::Pointer { kind, .. } => PTR_KINDS
            .iter()
            .find(|(k, _)| k == kind)
            .map_or("pointer", |(_, n)| n),
        TypeKind::Qualified { .. } => "qualified",
        TypeKind::Typedef { .. } => "typedef",
        TypeKind::Array { .. } => "array",
        TypeKind::Vector { .. } => "vector",
        TypeKind::Matrix { .. } => "matrix",
        TypeKind::Function { .. } => "function",
        TypeKind::Enum { .. } => "enum",
        TypeKind::Composite { tag, .. } => tag.name().unwrap_or("composite"),
        TypeKind::Member { .. } => "member",
        TypeKind::Inheritance { .. } => "inherit",
        TypeKind::PtrToMember { .. } => "ptr_to_member",
        TypeKind::Template { .. } => "template",
        TypeKind::TemplateParam { .. } => "tparam",
        TypeKind::String { .. } => "string",
        TypeKind::Unspecified => "unspecified",
        TypeKind::Other { .. } => "other",
    }
}

impl Record for Type {
    fn write(&self, w: &mut ValueWriter<'_>) {
        // Keyword and name first, then what the kind needs, then the common fields.
        let keyword = type_keyword(&self.kind);
        w.word(keyword);
        if let TypeKind::Qualified { qualifier, .. } = &self.kind {
            w.value(qualifier);
        }
        if let TypeKind::TemplateParam { kind, .. } = &self.kind {
            w.word(
                TPARAM_KINDS
                    .iter()
                    .find(|(k, _)| k == kind)
                    .map_or("type", |(_, n)| n),
            );
        }
        if let Some(name) = &self.name {
            w.string(name);
        }
        match &self.kind {
            TypeKind::Basic { encoding } => w.key("enc", encoding),
            TypeKind::Pointer { pointee, space, .. } => {
                w.value(pointee);
                if space.memory != Memory::NONE {
                    w.key("space", &space.memory);
                }
                w.opt("sc", &space.storage_class);
                w.opt("aspace", &space.dwarf_space);
                w.opt("aclass", &space.address_class);
            }
            TypeKind::Qualified { base, .. } | TypeKind::Typedef { base } => w.value(base),
            TypeKind::Array {
                element,
                dims,
                stride,
                data_location,
                associated,
                allocated,
                rank,
                column_major,
            } => {
                w.value(element);
                w.list_key("dims", dims);
                w.opt("stride", stride);
                w.opt("data_location", data_location);
                w.opt("associated", associated);
                w.opt("allocated", allocated);
                w.opt("rank", rank);
                w.flag("col_major", *column_major);
            }
            TypeKind::Vector { element, count } => {
                w.value(element);
                w.key("count", count);
            }
            TypeKind::Matrix {
                column,
                count,
                column_major,
            } => {
                w.value(column);
                w.key("count", count);
                w.flag("col_major", *column_major);
            }
            TypeKind::Function {
                ret,
                params,
                variadic,
                calling_convention,
            } => {
                w.opt("ret", ret);
                w.list_key("params", params);
                w.flag("variadic", *variadic);
                if *calling_convention != 0 {
                    w.key("cc", calling_convention);
                }
            }
            TypeKind::Enum {
                underlying,
                enumerators,
                identifier,
            } => {
                w.opt("base", underlying);
                w.list_key("values", enumerators);
                w.opt("id", identifier);
            }
            TypeKind::Composite {
                tag,
                elements,
                identifier,
                vtable_holder,
                templates,
                discriminator,
            } => {
                if tag.name().is_none() {
                    w.key("tag", tag);
                }
                w.list_key("elements", elements);
                w.opt("id", identifier);
                w.opt("vtable", vtable_holder);
                w.list_key("templates", templates);
                w.opt("discriminator", discriminator);
            }
            TypeKind::Member {
                base,
                offset_bits,
                storage_offset_bits,
                value,
                discriminant,
                property,
            } => {
                w.value(base);
                w.opt("offset", offset_bits);
                w.opt("storage_offset", storage_offset_bits);
                w.opt("value", value);
                w.opt("discr", discriminant);
                w.opt("property", property);
            }
            TypeKind::Inheritance { base, offset_bits } => {
                w.value(base);
                w.opt("offset", offset_bits);
            }
            TypeKind::PtrToMember { pointee, class } => {
                w.value(pointee);
                w.opt("class", class);
            }
            TypeKind::Template { target, params } => {
                w.value(target);
                w.list_key("params", params);
            }
            TypeKind::TemplateParam {
                ty,
                value,
                pack,
                is_default,
                ..
            } => {
                w.opt("type", ty);
                w.opt("value", value);
                w.list_key("pack", pack);
                w.flag("default", *is_default);
            }
            TypeKind::String {
                length,
                location,
                encoding,
            } => {
                w.opt("length", length);
                w.opt("location", location);
                w.key("enc", encoding);
            }
            TypeKind::Unspecified => {}
            TypeKind::Other { tag, children } => {
                w.sep_key_hex("tag", u64::from(*tag));
                w.list_key("children", children);
            }
        }
        w.opt("bits", &self.size);
        w.opt("align", &self.align_bits);
        w.opt("in", &self.scope);
        w.opt("at", &self.at);
        w.opt("linkage", &self.linkage);
        flags_out(w, self.flags);
        w.list_key("extra", &self.extra);
    }

    fn read(keyword: &str, f: &mut Fields<'_>) -> PResult<Self> {
        let qualifier = if keyword == "qualified" {
            Some(f.pos::<Qualifier>("a qualifier")?)
        } else {
            None
        };
        let tparam = if keyword == "tparam" {
            let v = f.next_val().ok_or_else(|| {
                f.cx()
                    .err_at(f.span(), "expected a template parameter kind")
            })?;
            let word = v.as_word().unwrap_or("");
            Some(
                TPARAM_KINDS
                    .iter()
                    .find(|(_, n)| *n == word)
                    .map(|(k, _)| *k)
                    .ok_or_else(|| f.cx().expected(v, "`type`, `value`, `template` or `pack`"))?,
            )
        } else {
            None
        };
        let name = f.name();
        let kind = match keyword {
            "base" => TypeKind::Basic {
                encoding: f.req("enc")?,
            },
            "pointer" | "ref" | "rvalue_ref" => {
                let kind = PTR_KINDS
                    .iter()
                    .find(|(_, n)| *n == keyword)
                    .map(|(k, _)| *k)
                    .unwrap_or(PtrKind::Pointer);
                let pointee = f.pos("the pointee type or `none`")?;
                let space = crate::ir::AddrSpace {
                    memory: f.opt("space")?.unwrap_or(Memory::NONE),
                    storage_class: f.opt("sc")?,
                    dwarf_space: f.opt("aspace")?,
                    address_class: f.opt("aclass")?,
                };
                TypeKind::Pointer {
                    kind,
                    pointee,
                    space,
                }
            }
            "qualified" => TypeKind::Qualified {
                qualifier: qualifier.unwrap_or(Qualifier::CONST),
                base: f.pos("the qualified type or `none`")?,
            },
            "typedef" => TypeKind::Typedef {
                base: f.pos("the aliased type or `none`")?,
            },
            "array" => TypeKind::Array {
                element: f.pos("the element type or `none`")?,
                dims: f.list("dims")?,
                stride: f.opt("stride")?,
                data_location: f.opt("data_location")?,
                associated: f.opt("associated")?,
                allocated: f.opt("allocated")?,
                rank: f.opt("rank")?,
                column_major: f.flag("col_major"),
            },
            "vector" => TypeKind::Vector {
                element: f.pos("the element type or `none`")?,
                count: f.req("count")?,
            },
            "matrix" => TypeKind::Matrix {
                column: f.pos("the column type or `none`")?,
                count: f.req("count")?,
                column_major: f.flag("col_major"),
            },
            "function" => TypeKind::Function {
                ret: f.opt("ret")?,
                params: f.list("params")?,
                variadic: f.flag("variadic"),
                calling_convention: f.opt("cc")?.unwrap_or(0),
            },
            "enum" => TypeKind::Enum {
                underlying: f.opt("base")?,
                enumerators: f.list("values")?,
                identifier: f.opt("id")?,
            },
            "member" => TypeKind::Member {
                base: f.pos("the member's type or `none`")?,
                offset_bits: f.opt("offset")?,
                storage_offset_bits: f.opt("storage_offset")?,
                value: f.opt("value")?,
                discriminant: f.opt("discr")?,
                property: f.opt("property")?,
            },
            "inherit" => TypeKind::Inheritance {
                base: f.pos("the base class or `none`")?,
                offset_bits: f.opt("offset")?,
            },
            "ptr_to_member" => TypeKind::PtrToMember {
                pointee: f.pos("the pointee type or `none`")?,
                class: f.opt("class")?,
            },
            "template" => TypeKind::Template {
                target: f.pos("the templated entity or `none`")?,
                params: f.list("params")?,
            },
            "tparam" => TypeKind::TemplateParam {
                kind: tparam.unwrap_or(TemplateParamKind::Type),
                ty: f.opt("type")?,
                value: f.opt("value")?,
                pack: f.list("pack")?,
                is_default: f.flag("default"),
            },
            "string" => TypeKind::String {
                length: f.opt("length")?,
                location: f.opt("location")?,
                encoding: f.req("enc")?,
            },
            "unspecified" => TypeKind::Unspecified,
            "other" => TypeKind::Other {
                tag: f.req("tag")?,
                children: f.list("children")?,
            },
            _ => {
                let tag = match CompositeTag::from_name(keyword) {
                    Some(tag) => tag,
                    None if keyword == "composite" => f.req("tag")?,
                    None => return bad_keyword(f, keyword, "type"),
                };
                TypeKind::Composite {
                    tag,
                    elements: f.list("elements")?,
                    identifier: f.opt("id")?,
                    vtable_holder: f.opt("vtable")?,
                    templates: f.list("templates")?,
                    discriminator: f.opt("discriminator")?,
                }
            }
        };
        Ok(Type {
            kind,
            name,
            size: f.opt("bits")?,
            align_bits: f.opt("align")?,
            scope: f.opt("in")?,
            at: f.opt("at")?,
            linkage: f.opt("linkage")?,
            flags: flags_in(f)?,
            extra: f.list("extra")?,
        })
    }
}

fn write_function(w: &mut ValueWriter<'_>, fi: &FunctionInfo) {
    w.opt("linkage", &fi.linkage);
    w.opt("type", &fi.ty);
    w.opt("unit", &fi.unit);
    w.opt("scope_line", &fi.scope_line);
    w.opt("target", &fi.target);
    w.opt("decl", &fi.declaration);
    w.opt("containing", &fi.containing_type);
    w.opt("virtuality", &fi.virtuality);
    w.opt("vindex", &fi.virtual_index);
    w.opt("this_adjust", &fi.this_adjustment);
    w.list_key("templates", &fi.templates);
    w.list_key("thrown", &fi.thrown);
    w.list_key("retained", &fi.retained);
    if !(w.opts.hide_encoding && matches!(fi.binding, Some(crate::ir::Value::Spirv(_)))) {
        w.opt("bind", &fi.binding);
    }
    if !w.opts.hide_code {
        w.list_key("ranges", &fi.ranges);
        w.opt("entry", &fi.entry_pc);
    }
    w.opt("frame_base", &fi.frame_base);
    w.opt("cc", &fi.calling_convention);
    w.opt("lanes", &fi.lanes);
    w.opt("lane_pc", &fi.lane_pc);
    w.opt("active_lane", &fi.active_lane);
}

fn read_function(f: &mut Fields<'_>) -> PResult<Box<FunctionInfo>> {
    Ok(Box::new(FunctionInfo {
        linkage: f.opt("linkage")?,
        ty: f.opt("type")?,
        unit: f.opt("unit")?,
        scope_line: f.opt("scope_line")?,
        target: f.opt("target")?,
        declaration: f.opt("decl")?,
        containing_type: f.opt("containing")?,
        virtuality: f.opt("virtuality")?,
        virtual_index: f.opt("vindex")?,
        this_adjustment: f.opt("this_adjust")?,
        templates: f.list("templates")?,
        thrown: f.list("thrown")?,
        retained: f.list("retained")?,
        binding: f.opt("bind")?,
        ranges: f.list("ranges")?,
        entry_pc: f.opt("entry")?,
        frame_base: f.opt("frame_base")?,
        calling_convention: f.opt("cc")?,
        lanes: f.opt("lanes")?,
        lane_pc: f.opt("lane_pc")?,
        active_lane: f.opt("active_lane")?,
    }))
}

/// The text form's keyword of a scope kind.
pub fn scope_keyword(kind: &ScopeKind) -> &'static str {
    match kind {
        ScopeKind::Namespace { .. } => "namespace",
        ScopeKind::Module { .. } => "module",
        ScopeKind::CommonBlock { .. } => "common_block",
        ScopeKind::Function(_) => "function",
        ScopeKind::FunctionDecl(_) => "function_decl",
        ScopeKind::LexicalBlock { .. } => "block",
        ScopeKind::BlockFile { .. } => "block_file",
    }
}

impl Record for Scope {
    fn write(&self, w: &mut ValueWriter<'_>) {
        let keyword = scope_keyword(&self.kind);
        w.word(keyword);
        if let Some(name) = &self.name {
            w.string(name);
        }
        w.opt("in", &self.parent);
        w.opt("at", &self.at);
        match &self.kind {
            ScopeKind::Namespace { export_symbols } => w.flag("export_symbols", *export_symbols),
            ScopeKind::Module {
                config_macros,
                include_path,
                api_notes,
                is_decl,
            } => {
                w.opt("config_macros", config_macros);
                w.opt("include_path", include_path);
                w.opt("api_notes", api_notes);
                w.flag("decl", *is_decl);
            }
            ScopeKind::CommonBlock { declaration } => w.opt("decl", declaration),
            ScopeKind::Function(fi) | ScopeKind::FunctionDecl(fi) => write_function(w, fi),
            ScopeKind::LexicalBlock { ranges } => {
                if !w.opts.hide_code {
                    w.list_key("ranges", ranges)
                }
            }
            ScopeKind::BlockFile { discriminator } => w.key("discriminator", discriminator),
        }
        flags_out(w, self.flags);
        w.list_key("extra", &self.extra);
    }

    fn read(keyword: &str, f: &mut Fields<'_>) -> PResult<Self> {
        let name = f.name();
        let parent = f.opt("in")?;
        let at = f.opt("at")?;
        let kind = match keyword {
            "namespace" => ScopeKind::Namespace {
                export_symbols: f.flag("export_symbols"),
            },
            "module" => ScopeKind::Module {
                config_macros: f.opt("config_macros")?,
                include_path: f.opt("include_path")?,
                api_notes: f.opt("api_notes")?,
                is_decl: f.flag("decl"),
            },
            "common_block" => ScopeKind::CommonBlock {
                declaration: f.opt("decl")?,
            },
            "function" => ScopeKind::Function(read_function(f)?),
            "function_decl" => ScopeKind::FunctionDecl(read_function(f)?),
            "block" => ScopeKind::LexicalBlock {
                ranges: f.list("ranges")?,
            },
            "block_file" => ScopeKind::BlockFile {
                discriminator: f.req("discriminator")?,
            },
            _ => return bad_keyword(f, keyword, "scope"),
        };
        Ok(Scope {
            kind,
            name,
            parent,
            at,
            flags: flags_in(f)?,
            extra: f.list("extra")?,
        })
    }
}

impl Record for InlinedAt {
    fn write(&self, w: &mut ValueWriter<'_>) {
        w.word("inlined_at");
        w.value(&self.at);
        w.opt("scope", &self.scope);
        w.opt("parent", &self.parent);
        w.opt("origin", &self.origin);
        w.opt("entry", &self.entry_pc);
    }
    fn read(keyword: &str, f: &mut Fields<'_>) -> PResult<Self> {
        if keyword != "inlined_at" {
            return bad_keyword(f, keyword, "inlined-at");
        }
        Ok(InlinedAt {
            at: f.pos("the call's position `f0:line:col`")?,
            scope: f.opt("scope")?,
            parent: f.opt("parent")?,
            origin: f.opt("origin")?,
            entry_pc: f.opt("entry")?,
        })
    }
}

impl Record for Variable {
    fn write(&self, w: &mut ValueWriter<'_>) {
        match &self.kind {
            VarKind::Global => w.word("global"),
            VarKind::Local => w.word("local"),
            VarKind::Param(n) => {
                w.word("param");
                w.int(*n);
            }
            VarKind::Inlined { origin, .. } => {
                w.word("inlined_var");
                w.value(origin);
            }
        }
        if let Some(name) = &self.name {
            w.string(name);
        }
        if let VarKind::Inlined { inlined, .. } = &self.kind {
            w.key("inlined", inlined);
        }
        w.opt("type", &self.ty);
        w.opt("in", &self.scope);
        w.opt("at", &self.at);
        w.opt("linkage", &self.linkage);
        w.opt("align", &self.align_bits);
        w.opt("loc", &self.location);
        if !(w.opts.hide_encoding && matches!(self.binding, Some(crate::ir::Value::Spirv(_)))) {
            w.opt("bind", &self.binding);
        }
        w.opt("value", &self.const_value);
        w.opt("decl", &self.declaration);
        flags_out(w, self.flags);
        w.list_key("extra", &self.extra);
    }
    fn read(keyword: &str, f: &mut Fields<'_>) -> PResult<Self> {
        let kind = match keyword {
            "global" => VarKind::Global,
            "local" => VarKind::Local,
            "param" => VarKind::Param(f.pos("the parameter number")?),
            "inlined_var" => VarKind::Inlined {
                origin: f.pos("the inlined variable `vN`")?,
                inlined: f.req("inlined")?,
            },
            _ => return bad_keyword(f, keyword, "variable"),
        };
        Ok(Variable {
            kind,
            name: f.name(),
            ty: f.opt("type")?,
            scope: f.opt("in")?,
            at: f.opt("at")?,
            linkage: f.opt("linkage")?,
            align_bits: f.opt("align")?,
            location: f.opt("loc")?,
            binding: f.opt("bind")?,
            const_value: f.opt("value")?,
            declaration: f.opt("decl")?,
            flags: flags_in(f)?,
            extra: f.list("extra")?,
        })
    }
}

impl Record for Expr {
    fn write(&self, w: &mut ValueWriter<'_>) {
        w.word("expr");
        w.list(&self.ops, |w, op| w.value(op));
    }
    fn read(keyword: &str, f: &mut Fields<'_>) -> PResult<Self> {
        if keyword != "expr" {
            return bad_keyword(f, keyword, "expression");
        }
        let v = f
            .next_val()
            .ok_or_else(|| f.cx().err_at(f.span(), "expected a list of operations"))?;
        Ok(Expr {
            ops: super::codec::decode_list(v, f.cx())?,
        })
    }
}

impl Record for LocList {
    fn write(&self, w: &mut ValueWriter<'_>) {
        w.word("loclist");
        w.list(&self.entries, |w, e| w.value(e));
    }
    fn read(keyword: &str, f: &mut Fields<'_>) -> PResult<Self> {
        if keyword != "loclist" {
            return bad_keyword(f, keyword, "location list");
        }
        let v = f
            .next_val()
            .ok_or_else(|| f.cx().err_at(f.span(), "expected a list of entries"))?;
        Ok(LocList {
            entries: super::codec::decode_list(v, f.cx())?,
        })
    }
}

impl Record for Macro {
    fn write(&self, w: &mut ValueWriter<'_>) {
        w.word("macro");
        w.value(&self.kind);
        w.opt("name", &self.name);
        w.opt("value", &self.value);
        w.key("line", &self.line);
        w.opt("file", &self.file);
        w.opt("in", &self.parent);
        w.opt("def", &self.definition);
    }
    fn read(keyword: &str, f: &mut Fields<'_>) -> PResult<Self> {
        if keyword != "macro" {
            return bad_keyword(f, keyword, "macro");
        }
        Ok(Macro {
            kind: f.pos::<MacroKind>("a macro kind")?,
            name: f.opt("name")?,
            value: f.opt("value")?,
            line: f.req("line")?,
            file: f.opt("file")?,
            parent: f.opt("in")?,
            definition: f.opt("def")?,
        })
    }
}

impl Record for Import {
    fn write(&self, w: &mut ValueWriter<'_>) {
        w.word("import");
        w.value(&self.kind);
        w.value(&self.entity);
        w.opt("name", &self.name);
        w.opt("in", &self.scope);
        w.opt("at", &self.at);
        w.list_key("elements", &self.elements);
    }
    fn read(keyword: &str, f: &mut Fields<'_>) -> PResult<Self> {
        if keyword != "import" {
            return bad_keyword(f, keyword, "import");
        }
        Ok(Import {
            kind: f.pos::<ImportKind>("an import kind")?,
            entity: f.pos("the imported entity or `none`")?,
            name: f.opt("name")?,
            scope: f.opt("in")?,
            at: f.opt("at")?,
            elements: f.list("elements")?,
        })
    }
}

impl Record for Label {
    fn write(&self, w: &mut ValueWriter<'_>) {
        w.word("label");
        w.string(&self.name);
        w.opt("in", &self.scope);
        w.opt("at", &self.at);
        if !w.opts.hide_code {
            w.opt("pos", &self.pos);
        }
        w.opt("origin", &self.origin);
    }
    fn read(keyword: &str, f: &mut Fields<'_>) -> PResult<Self> {
        if keyword != "label" {
            return bad_keyword(f, keyword, "label");
        }
        Ok(Label {
            name: f.pos("the label's name")?,
            scope: f.opt("in")?,
            at: f.opt("at")?,
            pos: f.opt("pos")?,
            origin: f.opt("origin")?,
        })
    }
}

impl Record for CallSite {
    fn write(&self, w: &mut ValueWriter<'_>) {
        w.word("call_site");
        w.opt("in", &self.scope);
        if !w.opts.hide_code {
            w.opt("pos", &self.pos);
        }
        w.flag("return_pc", self.is_return_pc);
        w.opt("target", &self.target);
        w.opt("target_loc", &self.target_location);
        w.flag("tail", self.tail);
        w.opt("at", &self.at);
        w.list_key("params", &self.params);
        w.list_key("extra", &self.extra);
    }
    fn read(keyword: &str, f: &mut Fields<'_>) -> PResult<Self> {
        if keyword != "call_site" {
            return bad_keyword(f, keyword, "call site");
        }
        Ok(CallSite {
            scope: f.opt("in")?,
            pos: f.opt("pos")?,
            is_return_pc: f.flag("return_pc"),
            target: f.opt("target")?,
            target_location: f.opt("target_loc")?,
            tail: f.flag("tail"),
            at: f.opt("at")?,
            params: f.list("params")?,
            extra: f.list("extra")?,
        })
    }
}

impl Record for Property {
    fn write(&self, w: &mut ValueWriter<'_>) {
        w.word("property");
        w.string(&self.name);
        w.opt("type", &self.ty);
        w.opt("at", &self.at);
        w.opt("getter", &self.getter);
        w.opt("setter", &self.setter);
        if self.attributes != 0 {
            w.sep_key_hex("attrs", u64::from(self.attributes));
        }
    }
    fn read(keyword: &str, f: &mut Fields<'_>) -> PResult<Self> {
        if keyword != "property" {
            return bad_keyword(f, keyword, "property");
        }
        Ok(Property {
            name: f.pos("the property's name")?,
            ty: f.opt("type")?,
            at: f.opt("at")?,
            getter: f.opt("getter")?,
            setter: f.opt("setter")?,
            attributes: f.opt("attrs")?.unwrap_or(0),
        })
    }
}

impl Record for EntryPoint {
    fn write(&self, w: &mut ValueWriter<'_>) {
        w.word("entry_point");
        w.value(&self.function);
        w.opt("unit", &self.unit);
        w.key("signature", &self.signature);
        w.key("args", &self.arguments);
    }
    fn read(keyword: &str, f: &mut Fields<'_>) -> PResult<Self> {
        if keyword != "entry_point" {
            return bad_keyword(f, keyword, "entry point");
        }
        Ok(EntryPoint {
            function: f.pos("the entry point's function or `none`")?,
            unit: f.opt("unit")?,
            signature: f.req("signature")?,
            arguments: f.req("args")?,
        })
    }
}

impl Record for Cie {
    fn write(&self, w: &mut ValueWriter<'_>) {
        w.word("cie");
        if !w.opts.hide_encoding {
            w.key("version", &self.version);
        }
        w.key("aug", &self.augmentation);
        w.key("addr_size", &self.address_size);
        if self.segment_size != 0 {
            w.key("seg_size", &self.segment_size);
        }
        w.key("code_align", &self.code_align);
        w.key("data_align", &self.data_align);
        w.key("ra", &self.return_register);
        w.flag("eh_frame", self.eh_frame);
        w.list_key("initial", &self.initial);
        w.list_key("extra", &self.extra);
    }
    fn read(keyword: &str, f: &mut Fields<'_>) -> PResult<Self> {
        if keyword != "cie" {
            return bad_keyword(f, keyword, "CIE");
        }
        Ok(Cie {
            version: f.req("version")?,
            augmentation: f.req("aug")?,
            address_size: f.req("addr_size")?,
            segment_size: f.opt("seg_size")?.unwrap_or(0),
            code_align: f.req("code_align")?,
            data_align: f.req("data_align")?,
            return_register: f.req("ra")?,
            eh_frame: f.flag("eh_frame"),
            initial: f.list("initial")?,
            extra: f.list("extra")?,
        })
    }
}

impl Record for Fde {
    fn write(&self, w: &mut ValueWriter<'_>) {
        w.word("fde");
        w.value(&self.cie);
        if !w.opts.hide_code {
            w.value(&self.range);
        }
        w.list_key("ops", &self.ops);
        w.list_key("extra", &self.extra);
    }
    fn read(keyword: &str, f: &mut Fields<'_>) -> PResult<Self> {
        if keyword != "fde" {
            return bad_keyword(f, keyword, "FDE");
        }
        Ok(Fde {
            cie: f.pos("the FDE's CIE")?,
            range: f.pos("the code range")?,
            ops: f.list("ops")?,
            extra: f.list("extra")?,
        })
    }
}

impl Record for LineRow {
    fn write(&self, w: &mut ValueWriter<'_>) {
        w.word("line");
        w.value(&self.range);
        w.value(&self.at);
        w.opt("end_line", &self.end_line);
        w.opt("end_col", &self.end_column);
        w.flag("stmt", self.flags.is_stmt);
        w.flag("basic_block", self.flags.basic_block);
        w.flag("prologue_end", self.flags.prologue_end);
        w.flag("epilogue_begin", self.flags.epilogue_begin);
        if self.isa != 0 {
            w.key("isa", &self.isa);
        }
        if self.discriminator != 0 {
            w.key("discriminator", &self.discriminator);
        }
    }
    fn read(keyword: &str, f: &mut Fields<'_>) -> PResult<Self> {
        if keyword != "line" {
            return bad_keyword(f, keyword, "line row");
        }
        Ok(LineRow {
            range: f.pos("the code range")?,
            at: f.pos("the source position")?,
            end_line: f.opt("end_line")?,
            end_column: f.opt("end_col")?,
            flags: LineFlags {
                is_stmt: f.flag("stmt"),
                basic_block: f.flag("basic_block"),
                prologue_end: f.flag("prologue_end"),
                epilogue_begin: f.flag("epilogue_begin"),
            },
            isa: f.opt("isa")?.unwrap_or(0),
            discriminator: f.opt("discriminator")?.unwrap_or(0),
        })
    }
}

impl Record for ScopeRun {
    fn write(&self, w: &mut ValueWriter<'_>) {
        w.word("scope");
        w.value(&self.range);
        w.value(&self.scope);
        w.opt("inlined", &self.inlined);
    }
    fn read(keyword: &str, f: &mut Fields<'_>) -> PResult<Self> {
        if keyword != "scope" {
            return bad_keyword(f, keyword, "scope run");
        }
        Ok(ScopeRun {
            range: f.pos("the code range")?,
            scope: f.pos("the scope")?,
            inlined: f.opt("inlined")?,
        })
    }
}

const EVENT_KINDS: [(EventKind, &str); 3] = [
    (EventKind::Declare, "declare"),
    (EventKind::Value, "value"),
    (EventKind::Addr, "addr"),
];

impl Record for Event {
    fn write(&self, w: &mut ValueWriter<'_>) {
        w.word(
            EVENT_KINDS
                .iter()
                .find(|(k, _)| *k == self.kind)
                .map_or("value", |(_, n)| n),
        );
        w.value(&self.var);
        w.value(&self.pos);
        let hide_ids = w.opts.hide_encoding;
        let hide = |v: &crate::ir::Value| hide_ids && matches!(v, crate::ir::Value::Spirv(_));
        match self.values.as_slice() {
            [one] if !hide(one) => w.value(one),
            [_] => {}
            many => {
                let shown: Vec<crate::ir::Value> = many
                    .iter()
                    .map(|v| {
                        if hide(v) {
                            crate::ir::Value::Undef
                        } else {
                            v.clone()
                        }
                    })
                    .collect();
                w.list_key("args", &shown)
            }
        }
        w.opt("expr", &self.expr);
        w.list_key("indexes", &self.indexes);
        w.opt("in", &self.scope);
        w.opt("inlined", &self.inlined);
        w.opt("at", &self.at);
    }
    fn read(keyword: &str, f: &mut Fields<'_>) -> PResult<Self> {
        let Some(kind) = EVENT_KINDS
            .iter()
            .find(|(_, n)| *n == keyword)
            .map(|(k, _)| *k)
        else {
            return bad_keyword(f, keyword, "event");
        };
        let var = f.pos("the variable `vN`")?;
        let pos = f.pos("the code position")?;
        let mut values = match f.peek() {
            Some(_) => vec![f.pos("the event's value")?],
            None => Vec::new(),
        };
        let args: Vec<crate::ir::Value> = f.list("args")?;
        if !args.is_empty() {
            if !values.is_empty() {
                return Err(f
                    .cx()
                    .err_at(f.span(), "give either one value or `args=[…]`, not both"));
            }
            values = args;
        }
        Ok(Event {
            kind,
            var,
            pos,
            values,
            expr: f.opt("expr")?,
            indexes: f.list("indexes")?,
            scope: f.opt("in")?,
            inlined: f.opt("inlined")?,
            at: f.opt("at")?,
        })
    }
}
