//! The DWARF low-level layer shared by the DWARF reader (`front::dwarf`) and writer
//! (`back::dwarf`): the location-expression and call-frame-instruction codecs, both directions,
//! table-driven from `spec::dwarf`. gimli knows neither AMD's heterogeneous-debugging operations
//! (seed 002) nor their `DW_OP_LLVM_user` form nor the aspace CFA instructions, so both formats
//! go through here.

pub(crate) mod bytes;
pub mod cfa;
pub mod expr;

pub use cfa::{decode_cfa, encode_cfa};
pub use expr::LLVM_USER_SUBOPS;
pub use expr::{decode_expr, encode_expr, OffsetRefs, RefKind, Refs};

/// How AMD's heterogeneous-debugging operations are spelled in the bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AmdOps {
    /// Seed 002's one-byte opcodes 0xe1–0xec (0xe9 = `DW_OP_LLVM_aspace_implicit_pointer`).
    #[default]
    Raw,
    /// `DW_OP_LLVM_user` (0xe9) followed by a ULEB128 sub-opcode (LLVM's `Dwarf.def`); the bytes
    /// 0xe1–0xec other than 0xe9 are then unknown vendor ops.
    User,
}

/// ELF `e_machine` of AMDGPU code.
pub const EM_AMDGPU: u16 = object::elf::EM_AMDGPU.0;

/// The AMD operation encoding a unit's producer and ELF machine imply: AMD's own clang emits the
/// `DW_OP_LLVM_user` form by default from version 17; everything else (upstream clang, dwarv's
/// default) the raw one. The reader also falls back to the other encoding for an expression that
/// only decodes completely in it.
pub fn amd_ops_for(machine: u16, producer: Option<&str>) -> AmdOps {
    let amd_clang = producer.and_then(|p| p.split("AMD clang version ").nth(1));
    match amd_clang.and_then(|v| v.split('.').next()?.parse::<u32>().ok()) {
        Some(major) if machine == EM_AMDGPU && major >= 17 => AmdOps::User,
        _ => AmdOps::Raw,
    }
}

/// What the byte form of an expression or CFA program depends on. Little-endian only (x86-64
/// and AMDGPU are).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Encoding {
    /// Size of a target address (DW_OP_addr, DW_CFA_set_loc).
    pub address_size: u8,
    /// 4 for 32-bit DWARF, 8 for 64-bit DWARF (DW_OP_call_ref, DW_OP_implicit_pointer).
    pub offset_size: u8,
    pub amd: AmdOps,
}

impl Default for Encoding {
    fn default() -> Self {
        Encoding {
            address_size: 8,
            offset_size: 4,
            amd: AmdOps::Raw,
        }
    }
}

/// Malformed bytes or an operation the encoding cannot express: the byte offset (from the start
/// of the expression or program) and what was wrong. Callers add the section and its offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodecError {
    pub offset: usize,
    pub message: String,
}

impl std::fmt::Display for CodecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "byte {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for CodecError {}

pub type CodecResult<T> = Result<T, CodecError>;

/// Address and offset sizes the codecs can lay out.
pub(crate) fn check_encoding(enc: &Encoding) -> CodecResult<()> {
    if !matches!(enc.address_size, 1 | 2 | 4 | 8) || !matches!(enc.offset_size, 4 | 8) {
        return codec_err(
            0,
            format!(
                "address size {} / offset size {} not supported",
                enc.address_size, enc.offset_size
            ),
        );
    }
    Ok(())
}

pub(crate) fn codec_err<T>(offset: usize, message: impl Into<String>) -> CodecResult<T> {
    Err(CodecError {
        offset,
        message: message.into(),
    })
}

/// Whether a location is static storage: it starts with DW_OP_addr/addrx, or ends with a
/// thread-local address operation (DW_OP_form_tls_address, GNU's push_tls_address). A
/// function's variable with such a location is a static one (a global scoped in the function).
pub fn is_static_location(ops: &[crate::ir::Op]) -> bool {
    let code = |op: Option<&crate::ir::Op>| op.map_or(0, |o| o.code.0);
    matches!(code(ops.first()), 0x03 | 0xa1) || matches!(code(ops.last()), 0x9b | 0xe0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amd_encoding_by_producer_and_machine() {
        let amd18 = Some("AMD clang version 18.0.0git (https://github.com/RadeonOpenCompute/llvm-project roc-6.2.0)");
        assert_eq!(amd_ops_for(EM_AMDGPU, amd18), AmdOps::User);
        assert_eq!(amd_ops_for(62, amd18), AmdOps::Raw);
        assert_eq!(
            amd_ops_for(EM_AMDGPU, Some("AMD clang version 16.0.0")),
            AmdOps::Raw
        );
        assert_eq!(
            amd_ops_for(EM_AMDGPU, Some("Debian clang version 14.0.6")),
            AmdOps::Raw
        );
        assert_eq!(amd_ops_for(EM_AMDGPU, None), AmdOps::Raw);
    }
}
