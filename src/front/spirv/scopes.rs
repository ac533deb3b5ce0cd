//! Sources, units, scopes, variables, inlined-at links, macros, imports, entry points and the
//! module-level facts (build id, storage path) → IR.

use crate::spec::spirv_names::operand;
use std::collections::HashMap;

use crate::diag::LossKind;
use crate::ir::{
    BuildId, Checksum, ChecksumKind, EntityKind as K, FunctionInfo, Handle, ImportKind, Language,
    Loc, MacroKind, Ref, Scope, ScopeKind, Text, Value, VarKind, Variable,
};
use crate::spec::spirv::{from_set, Flavour, CHECKSUM_KINDS, IMPORTS};

use super::operands::{Dec, Kind, RResult};
use super::reader::Ctx;
use super::resolve::Tgt;

/// DebugSource / DebugSourceContinued. Returns the file a following DebugSourceContinued
/// continues.
pub(super) fn source(
    cx: &mut Ctx<'_>,
    d: &Dec<'_>,
    r: Option<Ref>,
    last: Option<Handle<crate::ir::File>>,
) -> RResult<Option<Handle<crate::ir::File>>> {
    // llvm-spirv writes DebugInfoNone (or, in some versions, another id) when it has no text.
    let text = match d.word(operand::TEXT).map(|id| (id, cx.target(id))) {
        Some((_, Tgt::Str(s))) => Some(s.to_string()),
        None | Some((_, Tgt::None)) => None,
        Some((id, _)) => {
            let msg = format!("Text %{id} is {}, not an OpString: dropped", cx.what(id));
            cx.loss(LossKind::Dropped, d, msg);
            None
        }
    };
    if d.kind == Kind::SourceContinued {
        let Some(f) = last else {
            cx.loss(
                LossKind::Dropped,
                d,
                "DebugSourceContinued does not follow a DebugSource: its text is dropped",
            );
            return Ok(None);
        };
        if let Some(slot) = cx.file_texts.get_mut(f.index()) {
            slot.get_or_insert_with(String::new)
                .push_str(text.as_deref().unwrap_or(""));
        }
        return Ok(Some(f));
    }
    let Some(Ref::File(h)) = r else {
        return Ok(None);
    };
    let name_id = d.word(operand::FILE).unwrap_or(0);
    let name = match cx.target(name_id) {
        Tgt::Str(s) => s.to_string(),
        _ => return cx.wrong(d, operand::FILE, "an OpString", name_id),
    };
    cx.string_files.entry(name_id).or_insert(h);
    let checksum = checksum(cx, d)?;
    let f = cx.out.files.get_mut(h);
    f.name = name;
    f.checksum = checksum;
    if let Some(slot) = cx.file_texts.get_mut(h.index()) {
        *slot = text;
    }
    Ok(Some(h))
}

/// `.200`'s Checksum Kind and Checksum Value (both, or neither: DebugInfoNone) → the file's
/// checksum. A value that is no hex text is dropped with a loss.
fn checksum(cx: &mut Ctx<'_>, d: &Dec<'_>) -> RResult<Option<Checksum>> {
    let kind = cx.num(d, operand::CHECKSUM_KIND)?;
    let value = cx.string(d, operand::CHECKSUM_VALUE)?;
    let (Some(kind), Some(value)) = (kind, value) else {
        return Ok(None);
    };
    let kind = u32::try_from(kind)
        .ok()
        .and_then(|k| from_set(CHECKSUM_KINDS, k));
    match (kind, unhex(&value)) {
        (Some(kind), Some(bytes)) => Ok(Some(Checksum { kind, bytes })),
        _ => {
            let msg = format!("checksum {value:?} of an unknown kind or not hex: dropped");
            cx.loss(LossKind::Dropped, d, msg);
            Ok(None)
        }
    }
}

pub(super) fn fill(cx: &mut Ctx<'_>, d: &Dec<'_>, r: Option<Ref>) -> RResult<()> {
    match (d.kind, r) {
        (Kind::CompilationUnit, Some(Ref::Unit(h))) => {
            let u = unit(cx, d)?;
            *cx.out.units.get_mut(h) = u;
        }
        (_, Some(Ref::Scope(h))) => {
            let s = scope(cx, d)?;
            *cx.out.scopes.get_mut(h) = s;
        }
        (_, Some(Ref::Var(h))) => {
            let v = variable(cx, d)?;
            *cx.out.vars.get_mut(h) = v;
        }
        (_, Some(Ref::Inlined(h))) => {
            let i = inlined(cx, d)?;
            *cx.out.inlined.get_mut(h) = i;
        }
        (_, Some(Ref::Macro(h))) => {
            let m = macro_(cx, d)?;
            *cx.out.macros.get_mut(h) = m;
        }
        (_, Some(Ref::Import(h))) => {
            let i = import(cx, d)?;
            *cx.out.imports.get_mut(h) = i;
        }
        (_, Some(Ref::EntryPoint(h))) => {
            let e = entry_point(cx, d)?;
            *cx.out.entry_points.get_mut(h) = e;
        }
        (Kind::BuildIdentifier, _) => {
            let id = cx.string(d, operand::IDENTIFIER)?.unwrap_or_default();
            let flags = cx.u32n(d, operand::FLAGS)?;
            cx.out.info.build_id = Some(BuildId { id, flags });
        }
        (Kind::StoragePath, _) => cx.out.info.storage_path = cx.string(d, operand::PATH)?,
        (Kind::FunctionDefinition, _) => definition(cx, d)?,
        _ => {}
    }
    Ok(())
}

fn unit(cx: &mut Ctx<'_>, d: &Dec<'_>) -> RResult<crate::ir::Unit> {
    let dwarf = cx.u32n(d, operand::DWARF_VERSION)?;
    let dwarf_version = u16::try_from(dwarf).ok().filter(|v| (2..=5).contains(v));
    if dwarf_version.is_none() {
        cx.loss(
            LossKind::Dropped,
            d,
            format!("DWARF version {dwarf} is not 2 to 5: dropped"),
        );
    }
    let lang = match d.has(operand::LANGUAGE) {
        true => Some(cx.u32n(d, operand::LANGUAGE)?),
        false => cx.source_language,
    };
    Ok(crate::ir::Unit {
        file: cx.file(d, operand::SOURCE)?,
        language: match lang {
            Some(v) => {
                from_set(d.flavour.languages(), v).unwrap_or(Language(0x1_0000u32.wrapping_add(v)))
            }
            None => Language::C99,
        },
        dwarf_version,
        debug_version: Some(cx.u32n(d, operand::VERSION)?),
        producer: cx.name(d, operand::PRODUCER)?,
        ..crate::ir::Unit::default()
    })
}

fn function_info(cx: &mut Ctx<'_>, d: &Dec<'_>) -> RResult<FunctionInfo> {
    let declaration = match cx.entity_of(
        d,
        operand::DECLARATION,
        &[K::Scope],
        "a function declaration",
    )? {
        Some(Ref::Scope(h)) => Some(h),
        _ => None,
    };
    Ok(FunctionInfo {
        linkage: cx.name(d, operand::LINKAGE_NAME)?,
        ty: cx.ty(d, operand::TYPE)?,
        target: cx.name(d, operand::TARGET_FUNCTION_NAME)?,
        scope_line: match d.has(operand::SCOPE_LINE) {
            true => Some(cx.u32n(d, operand::SCOPE_LINE)?),
            false => None,
        },
        declaration,
        binding: cx.code(d, operand::FUNCTION)?.map(Value::Spirv),
        ..FunctionInfo::default()
    })
}

fn scope(cx: &mut Ctx<'_>, d: &Dec<'_>) -> RResult<Scope> {
    let kind = match d.kind {
        Kind::Function => ScopeKind::Function(Box::new(function_info(cx, d)?)),
        Kind::FunctionDeclaration => ScopeKind::FunctionDecl(Box::new(function_info(cx, d)?)),
        Kind::LexicalBlock if d.has(operand::NAME) && d.word(operand::NAME).is_some() => {
            ScopeKind::Namespace {
                // `.200`: an inline namespace (a boolean constant).
                export_symbols: cx.num(d, operand::INLINE_NAMESPACE)?.unwrap_or(0) != 0,
            }
        }
        Kind::LexicalBlock => ScopeKind::LexicalBlock { ranges: Vec::new() },
        Kind::LexicalBlockDiscriminator => ScopeKind::BlockFile {
            discriminator: cx.u32n(d, operand::DISCRIMINATOR)?,
        },
        // An empty string is none (writers have no other way to say so).
        _ => ScopeKind::Module {
            config_macros: cx
                .string(d, operand::CONFIGURATION_MACROS)?
                .filter(|s| !s.is_empty()),
            include_path: cx
                .string(d, operand::INCLUDE_PATH)?
                .filter(|s| !s.is_empty()),
            api_notes: cx
                .string(d, operand::API_NOTES_FILE)?
                .filter(|s| !s.is_empty()),
            is_decl: cx.num(d, operand::IS_DECLARATION)?.unwrap_or(0) != 0,
        },
    };
    let mut s = Scope::new(kind);
    s.name = match d.kind {
        // A namespace's name may be empty (anonymous namespace).
        Kind::LexicalBlock => cx.string(d, operand::NAME)?,
        _ => cx.name(d, operand::NAME)?,
    };
    s.parent = cx.parent(d, operand::PARENT)?;
    s.at = cx.loc(d)?;
    if d.kind == Kind::LexicalBlockDiscriminator && s.at.is_none() {
        // 0.99 names its first operand `Scope`; it is the source file there too.
        if let Ok(Some(file)) = cx.file(d, operand::SCOPE) {
            s.at = Some(Loc {
                file: Some(file),
                ..Loc::default()
            });
        }
    }
    if d.has(operand::FLAGS) {
        s.flags = cx.flags(d, operand::FLAGS)?;
    }
    Ok(s)
}

fn variable(cx: &mut Ctx<'_>, d: &Dec<'_>) -> RResult<Variable> {
    if d.kind == Kind::InlinedVariable {
        let origin = cx.entity_of(d, operand::VARIABLE, &[K::Var], "a local variable")?;
        let inl = cx.entity_of(d, operand::INLINED, &[K::Inlined], "a DebugInlinedAt")?;
        let (Some(Ref::Var(origin)), Some(Ref::Inlined(inlined))) = (origin, inl) else {
            return super::operands::fail(
                d.offset,
                Some(d.id),
                "DebugInlinedVariable needs its Variable and Inlined",
            );
        };
        return Ok(Variable::new(VarKind::Inlined { origin, inlined }));
    }
    let kind = match (d.kind, d.word(operand::ARG_NUMBER)) {
        (Kind::GlobalVariable, _) => VarKind::Global,
        // SPIRV-LLVM-Translator writes (and reads) Arg Number as a literal word; an integer
        // constant's id there is the set's form (spirv-val's: every operand an id).
        (_, Some(w))
            if d.flavour == Flavour::Shader200 && !matches!(cx.target(w), Tgt::Const(_)) =>
        {
            VarKind::Param(w)
        }
        (_, Some(_)) => VarKind::Param(cx.u32n(d, operand::ARG_NUMBER)?),
        _ => VarKind::Local,
    };
    let mut v = Variable::new(kind);
    v.name = cx.name(d, operand::NAME)?;
    v.ty = cx.ty(d, operand::TYPE)?;
    v.scope = cx.parent(d, operand::PARENT)?;
    v.at = cx.loc(d)?;
    v.flags = cx.flags(d, operand::FLAGS)?;
    v.linkage = cx.name(d, operand::LINKAGE_NAME)?;
    if let Some(id) = d.word(operand::VARIABLE) {
        match cx.target(id) {
            Tgt::Ref(Ref::Expr(e)) => v.location = Some(crate::ir::Location::Expr(e)),
            Tgt::None | Tgt::Unknown => {}
            Tgt::Code | Tgt::Const(_) if id < cx.m.bound => v.binding = Some(Value::Spirv(id)),
            _ => {
                return cx.wrong(
                    d,
                    operand::VARIABLE,
                    "a variable, constant or expression",
                    id,
                )
            }
        }
    }
    v.declaration = cx.entity_of(
        d,
        operand::STATIC_MEMBER_DECLARATION,
        &[K::Var, K::Type],
        "a member",
    )?;
    Ok(v)
}

fn inlined(cx: &mut Ctx<'_>, d: &Dec<'_>) -> RResult<crate::ir::InlinedAt> {
    let scope = match cx.entity_of(d, operand::SCOPE, &[K::Scope], "a function or block")? {
        Some(Ref::Scope(h)) => Some(h),
        _ => None,
    };
    let parent = match cx.entity_of(d, operand::INLINED, &[K::Inlined], "a DebugInlinedAt")? {
        Some(Ref::Inlined(h)) => Some(h),
        _ => None,
    };
    Ok(crate::ir::InlinedAt {
        at: Loc {
            file: None,
            line: cx.u32n(d, operand::LINE)?,
            // `.200` only.
            column: cx.u32n(d, operand::COLUMN)?,
        },
        scope,
        parent,
        origin: None,
        entry_pc: None,
    })
}

fn macro_(cx: &mut Ctx<'_>, d: &Dec<'_>) -> RResult<crate::ir::Macro> {
    let definition = match cx.entity_of(d, operand::MACRO, &[K::Macro], "a DebugMacroDef")? {
        Some(Ref::Macro(h)) => Some(h),
        _ => None,
    };
    Ok(crate::ir::Macro {
        kind: match d.kind {
            Kind::MacroUndef => MacroKind::UNDEF,
            _ => MacroKind::DEFINE,
        },
        parent: (!cx.out.units.is_empty()).then(|| Ref::Unit(Handle::new(0))),
        line: cx.u32n(d, operand::LINE)?,
        file: cx.file(d, operand::SOURCE)?,
        name: cx.string(d, operand::NAME)?,
        value: cx.string(d, operand::VALUE)?,
        definition,
    })
}

fn import(cx: &mut Ctx<'_>, d: &Dec<'_>) -> RResult<crate::ir::Import> {
    let tag = cx.u32n(d, operand::TAG)?;
    let entity = match d.word(operand::ENTITY) {
        Some(id) => cx.entity_id(d, operand::ENTITY, id)?,
        None => None,
    };
    Ok(crate::ir::Import {
        kind: from_set(IMPORTS, tag).unwrap_or(ImportKind(0x8000u16.wrapping_add(tag as u16))),
        // An empty name is none (writers have no other way to say so).
        name: cx.string(d, operand::NAME)?.filter(|s| !s.is_empty()),
        scope: cx.parent(d, operand::PARENT)?,
        entity,
        at: cx.loc(d)?,
        elements: Vec::new(),
    })
}

fn entry_point(cx: &mut Ctx<'_>, d: &Dec<'_>) -> RResult<crate::ir::EntryPoint> {
    let function = match cx.entity_of(d, operand::ENTRY_POINT, &[K::Scope], "a DebugFunction")? {
        Some(Ref::Scope(h)) => Some(h),
        _ => None,
    };
    let unit = match cx.entity_of(
        d,
        operand::COMPILATION_UNIT,
        &[K::Unit],
        "a DebugCompilationUnit",
    )? {
        Some(Ref::Unit(h)) => Some(h),
        _ => None,
    };
    Ok(crate::ir::EntryPoint {
        function,
        unit,
        signature: cx
            .string(d, operand::COMPILER_SIGNATURE)?
            .unwrap_or_default(),
        arguments: cx
            .string(d, operand::COMMAND_LINE_ARGUMENTS)?
            .unwrap_or_default(),
    })
}

/// DebugFunctionDefinition: binds the DebugFunction to its OpFunction.
fn definition(cx: &mut Ctx<'_>, d: &Dec<'_>) -> RResult<()> {
    // llvm-spirv names a templated function by its DebugTypeTemplate here too.
    let id = cx.untemplate(d.word(operand::FUNCTION).unwrap_or(0));
    let is_function = cx
        .by_id
        .get(&id)
        .and_then(|&i| cx.decs.get(i))
        .is_some_and(|(_, f)| f.kind == Kind::Function);
    let f = cx.entity_of(d, operand::FUNCTION, &[K::Scope], "a DebugFunction")?;
    let def = cx.code(d, operand::DEFINITION)?;
    match (f, def) {
        (Some(Ref::Scope(h)), Some(def)) if is_function => cx.definitions.push((h, def)),
        (Some(_), _) if !is_function => {
            return cx.wrong(d, operand::FUNCTION, "a DebugFunction", id)
        }
        _ => {}
    }
    Ok(())
}

/// Binds each DebugFunction to the OpFunction its DebugFunctionDefinition names (after every
/// DebugFunction is filled, whatever the order).
pub(super) fn bind_definitions(cx: &mut Ctx<'_>) {
    for (h, def) in std::mem::take(&mut cx.definitions) {
        if let ScopeKind::Function(info) = &mut cx.out.scopes.get_mut(h).kind {
            info.binding = Some(Value::Spirv(def));
        }
    }
}

/// A definition's unit, which DebugFunction has no operand for: the one its scope chain ends in
/// (LLVM and DWARF give every definition one; a declaration keeps none, as LLVM's).
pub(super) fn definition_units(cx: &mut Ctx<'_>) {
    for i in 0..cx.out.scopes.len() {
        let h = Handle::new(i as u32);
        let s = cx.out.scopes.get(h);
        if !matches!(s.kind, ScopeKind::Function(_)) {
            continue;
        }
        let unit = cx.out.unit_of(s.parent);
        if let ScopeKind::Function(info) = &mut cx.out.scopes.get_mut(h).kind {
            info.unit = info.unit.or(unit);
        }
    }
}

/// NonSemantic.Shader.DebugInfo.100's DebugCompilationUnit has no Producer: a unit's is its
/// DebugEntryPoint's compiler signature (glslang writes its own there, and dwarv's writer keeps
/// a unit's producer there).
pub(super) fn producers_from_entry_points(cx: &mut Ctx<'_>) {
    if !cx.decs.iter().any(|(_, d)| d.flavour == Flavour::Shader100) {
        return;
    }
    let signed: Vec<(Handle<crate::ir::Unit>, String)> = (cx.out.entry_points.values())
        .filter(|e| !e.signature.is_empty())
        .filter_map(|e| Some((e.unit?, e.signature.clone())))
        .collect();
    for (unit, signature) in signed {
        let u = cx.out.units.get_mut(unit);
        u.producer = u.producer.take().or(Some(signature));
    }
}

/// Joined DebugSource texts → checksums (llvm-spirv's `//__CSK_MD5:<hex>`) and shared texts.
pub(super) fn intern_texts(cx: &mut Ctx<'_>) {
    let mut seen: HashMap<String, Handle<Text>> = HashMap::new();
    let texts = std::mem::take(&mut cx.file_texts);
    for (i, text) in texts.into_iter().enumerate() {
        let Some(text) = text else { continue };
        let (checksum, rest) = split_checksum(&text);
        let source = rest.filter(|r| !r.is_empty()).map(|r| {
            *seen.entry(r.to_string()).or_insert_with(|| {
                cx.out.texts.push(Text {
                    text: r.to_string(),
                })
            })
        });
        let f = cx.out.files.get_mut(Handle::new(i as u32));
        // `.200` has checksum operands: a text holds none there.
        f.checksum = checksum.or(f.checksum.take());
        f.source = source;
    }
}

const CHECKSUM_PREFIXES: [(&str, ChecksumKind); 3] = [
    ("//__CSK_MD5:", ChecksumKind::MD5),
    ("//__CSK_SHA1:", ChecksumKind::SHA1),
    ("//__CSK_SHA256:", ChecksumKind::SHA256),
];

/// `//__CSK_MD5:<hex>[\n<text>]` → (checksum, text); any other text is all text.
pub(crate) fn split_checksum(text: &str) -> (Option<Checksum>, Option<&str>) {
    for (prefix, kind) in CHECKSUM_PREFIXES {
        let Some(rest) = text.strip_prefix(prefix) else {
            continue;
        };
        let (hex, tail) = match rest.split_once('\n') {
            Some((h, t)) => (h, Some(t)),
            None => (rest, None),
        };
        if let Some(bytes) = unhex(hex) {
            return (Some(Checksum { kind, bytes }), tail);
        }
    }
    (None, Some(text))
}

pub(crate) fn unhex(s: &str) -> Option<Vec<u8>> {
    if s.is_empty() || s.len() % 2 != 0 {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
        .collect()
}

/// An inlined-at's call is in the file of the scope that contains it.
pub(super) fn inlined_files(cx: &mut Ctx<'_>) {
    let files: Vec<_> = cx
        .out
        .inlined
        .values()
        .map(|i| {
            i.scope
                .and_then(|s| cx.out.scopes.try_get(s))
                .and_then(|s| s.at)
                .and_then(|l| l.file)
        })
        .collect();
    for (i, file) in files.into_iter().enumerate() {
        cx.out.inlined.get_mut(Handle::new(i as u32)).at.file = file;
    }
}

/// A parameter numbered beyond its function type's parameter count, or numbered like an
/// earlier parameter of the same scope (old LLVM inputs translated by llvm-spirv have both),
/// reads as a local variable, approximated: the IR requires parameters to fit the signature.
pub(super) fn fit_params(cx: &mut Ctx<'_>) {
    let mut seen = std::collections::HashSet::new();
    let mut demote = Vec::new();
    for (h, v) in cx.out.vars.iter() {
        let (VarKind::Param(n), Some(scope)) = (&v.kind, v.scope) else {
            continue;
        };
        let count = match scope {
            Ref::Scope(s) => cx
                .out
                .scopes
                .try_get(s)
                .and_then(|s| s.function())
                .and_then(|f| f.ty)
                .and_then(|t| cx.out.types.try_get(t))
                .and_then(|t| match &t.kind {
                    crate::ir::TypeKind::Function {
                        params,
                        variadic: false,
                        ..
                    } => Some(params.len()),
                    _ => None,
                }),
            _ => None,
        };
        let too_far = count.is_some_and(|c| *n as usize > c);
        if too_far || *n == 0 || !seen.insert((scope, *n)) {
            demote.push((h, *n, count));
        }
    }
    for (h, n, count) in demote {
        cx.out.vars.get_mut(h).kind = VarKind::Local;
        let (offset, id) = cx.origin.get(&Ref::Var(h)).copied().unwrap_or((0, 0));
        cx.diag.push(
            LossKind::Approximated,
            format!("word {offset} (%{id})"),
            format!(
                "parameter {n} does not fit its function ({} parameter(s), or the number is taken): read as a local",
                count.map_or("?".to_string(), |c| c.to_string())
            ),
        );
    }
}
