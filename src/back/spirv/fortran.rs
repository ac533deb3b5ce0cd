//! `.200`'s array and string forms (docs/spirv-mapping.md, "NonSemantic.Shader.DebugInfo.200"):
//! DebugTypeArray of DebugTypeSubranges, DebugTypeArrayDynamic for a Fortran array descriptor,
//! DebugTypeString for a Fortran character type. Sets without them go through `types`.

use super::encode::V;
use super::writer::Writer;
use crate::ir::{Bound, Encoding, Handle, Ref, Subrange, Type, TypeKind};
use crate::spec::spirv_names::{instruction, operand};

/// Whether the target set writes arrays as subranges (`.200`).
pub fn has_subranges(w: &Writer) -> bool {
    w.layout_has(instruction::DEBUG_TYPE_ARRAY, operand::SUBRANGES)
}

/// Whether the target set has DebugTypeString (`.200`).
pub fn has_strings(w: &Writer) -> bool {
    w.e.flavour
        .layout_by_name(instruction::DEBUG_TYPE_STRING.0)
        .is_some()
}

/// An array: one DebugTypeSubrange per dimension; with a Fortran descriptor (data location,
/// associated, allocated, rank) a DebugTypeArrayDynamic.
pub fn array(w: &mut Writer, h: Handle<Type>, base: V, dims: &[Subrange]) -> u32 {
    let r = Ref::Type(h);
    let (stride, descriptor) = array_extras(w, h);
    if stride.is_some() {
        w.ledger
            .dropped(r, "array stride: the set has no operand for it");
    }
    let subranges = dims.iter().map(|d| subrange(w, r, d)).collect();
    let mut args = vec![
        (operand::BASE_TYPE, base),
        (operand::SUBRANGES, V::List(subranges)),
    ];
    if descriptor.iter().all(Option::is_none) {
        return w.ext(r, instruction::DEBUG_TYPE_ARRAY, &args);
    }
    let names = [
        operand::DATA_LOCATION,
        operand::ASSOCIATED,
        operand::ALLOCATED,
        operand::RANK,
    ];
    for (name, b) in names.into_iter().zip(descriptor) {
        args.push((name, bound(w, r, b)));
    }
    w.ext(r, instruction::DEBUG_TYPE_ARRAY_DYNAMIC, &args)
}

fn subrange(w: &mut Writer, r: Ref, d: &Subrange) -> V {
    if d.generic {
        w.ledger.approx(
            r,
            "a generic subrange written as a DebugTypeSubrange (the set has no other)",
        );
    }
    let stride = match d.stride {
        Some(b) => bound(w, r, Some(b)),
        None => V::Absent,
    };
    let args = [
        (operand::COUNT, bound(w, r, d.count)),
        (operand::LOWER_BOUND, bound(w, r, d.lower)),
        (operand::UPPER_BOUND, bound(w, r, d.upper)),
        (operand::STRIDE, stride),
    ];
    w.e.ext(instruction::DEBUG_TYPE_SUBRANGE, &args)
        .map_or(V::None, V::Id)
}

/// A bound: a 32-bit constant, the variable or expression that computes it, or DebugInfoNone.
fn bound(w: &mut Writer, r: Ref, b: Option<Bound>) -> V {
    match b {
        None => V::None,
        // Beyond 32 bits (LLVM's count -1): a 64-bit constant, as SPIRV-LLVM-Translator writes.
        Some(Bound::Const(n)) => match (u32::try_from(n), w.e.constant64(n as u64)) {
            (Ok(n), _) => V::Num(n),
            (_, Some(id)) => V::Id(id),
            (Err(_), None) => {
                w.ledger.approx(
                    r,
                    format!("bound {n} written as its low 32 bits (the module declares no Int64)"),
                );
                V::Num(n as u32)
            }
        },
        Some(Bound::Ref(x @ (Ref::Var(_) | Ref::Expr(_)))) => V::Id(w.id(x)),
        Some(Bound::Ref(_)) => {
            w.ledger.dropped(
                r,
                "a bound held by a member: the set takes a variable or an expression",
            );
            V::None
        }
    }
}

/// A Fortran character type: DebugTypeString; its encoding is that of a DebugTypeBasic as its
/// Base Type (SPIRV-LLVM-Translator reads it so; DebugInfoNone for none).
pub fn string(w: &mut Writer, h: Handle<Type>) -> u32 {
    let r = Ref::Type(h);
    let t = w.m.types.get(h);
    let TypeKind::String {
        length,
        location,
        encoding,
    } = &t.kind
    else {
        return w.e.none();
    };
    let base = match (*encoding, encoding_basic(w, *encoding)) {
        (Encoding::UNSPECIFIED, _) => V::None,
        // The nameless, sizeless basic type a string read from `.200` had.
        (_, Some(b)) => V::Id(w.id(Ref::Type(b))),
        (e, None) => {
            let enc = w.enum_value(r, w.e.flavour.encodings(), e, "encoding");
            let args = [
                (operand::NAME, V::Str(String::new())),
                (operand::SIZE, V::Num(0)),
                (operand::ENCODING, V::Num(enc)),
                (operand::FLAGS, V::None),
            ];
            w.e.ext(instruction::DEBUG_TYPE_BASIC, &args)
                .map_or(V::None, V::Id)
        }
    };
    // SPIRV-LLVM-Translator reads Size as a constant.
    let size = match w.size(r, t.size) {
        V::None => {
            w.ledger
                .approx(r, "no size: written as 0 (the set requires one)");
            V::Num(0)
        }
        v => v,
    };
    let args = [
        (operand::NAME, V::Str(t.name.clone().unwrap_or_default())),
        (operand::BASE_TYPE, base),
        (operand::DATA_LOCATION, bound(w, r, *location)),
        (operand::SIZE, size),
        (operand::LENGTH_ADDRESS, bound(w, r, *length)),
    ];
    w.ext(r, instruction::DEBUG_TYPE_STRING, &args)
}

/// A basic type of this encoding with no name and no size (or 0): what stands for a string's
/// encoding as its Base Type.
fn encoding_basic(w: &Writer, e: Encoding) -> Option<Handle<Type>> {
    w.m.types
        .iter()
        .find(|(_, t)| {
            t.name.is_none()
                && matches!(t.size, None | Some(Bound::Const(0)))
                && matches!(t.kind, TypeKind::Basic { encoding } if encoding == e)
        })
        .map(|(h, _)| h)
}

/// An array's whole-array stride and Fortran descriptor (data location, associated,
/// allocated, rank).
pub(super) fn array_extras(w: &Writer, h: Handle<Type>) -> (Option<Bound>, [Option<Bound>; 4]) {
    match &w.m.types.get(h).kind {
        TypeKind::Array {
            stride,
            data_location,
            associated,
            allocated,
            rank,
            ..
        } => (*stride, [*data_location, *associated, *allocated, *rank]),
        _ => (None, [None; 4]),
    }
}
