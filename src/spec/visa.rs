//! How vISA debug tables are spelled in the IR: DWARF register numbers, the address space of
//! absolute scratch memory, CFA columns, and the dwarv vendor attributes that keep what the IR
//! has no field for (docs/visa.md explains each).

use crate::visa::RegFile;

/// DWARF register number of register 0 of each file, as IGC numbers them (IGC's
/// `RegisterNumbering`: GRFBase 16, A0Base 272, F0Base 288).
pub const REG_BASE: [(RegFile, u32); 3] = [
    (RegFile::Address, 272),
    (RegFile::Flag, 288),
    (RegFile::Grf, 16),
];

/// How many registers each file may number before running into the next base.
pub const REG_COUNT: [(RegFile, u32); 3] = [
    (RegFile::Address, 16),
    (RegFile::Flag, 16),
    (RegFile::Grf, GRF_COUNT),
];

pub const GRF_COUNT: u32 = 256;

/// Bytes per GRF register (seed 004: r1.0 is byte 32 of the file).
pub const GRF_BYTES: u32 = 32;

/// Size assumed for the last instruction of an object when its code range is closed (an
/// uncompacted Gen instruction).
pub const INSN_BYTES: u64 = 16;

/// DWARF address space of absolute scratch offsets (`DW_OP_LLVM_form_aspace_address`): the
/// per-thread private space, numbered as AMD's DW_ASPACE_LLVM_AMDGPU_private_lane.
pub const SCRATCH_ASPACE: u32 = 5;

/// CFA columns: the return address (IGC's `RegisterNumbering::IP`) and a pseudo register for
/// the caller's BE_FP, above every register IGC numbers.
pub const RA_COLUMN: u32 = 0;
pub const BEFP_COLUMN: u32 = 1024;

/// The CIE every vISA FDE uses.
pub const CIE_VERSION: u8 = 4;
pub const CIE_ADDRESS_SIZE: u8 = 8;

/// ELF machine of Intel GPU code (EM_INTELGT).
pub const MACHINE: u16 = 205;

/// dwarv vendor attributes (DW_AT_lo_user range) holding vISA facts the IR has no field for; all
/// with form DW_FORM_block (0x09), little-endian contents.
pub const FORM_BLOCK: u16 = 0x09;
/// On an object's function: the offset map, `(visa u32, gen u32)` pairs.
pub const AT_OFFSET_MAP: u16 = 0x3f40;
/// On an object's function: the index map, `(visa u32, gen u32)` pairs.
pub const AT_INDEX_MAP: u16 = 0x3f41;
/// On an object's function: frame size (u16), befpValid, callerbefpValid, retAddrValid (u8
/// each), then the virtual type (u8) of every BE_FP, caller BE_FP and return-address interval.
pub const AT_FRAME: u16 = 0x3f42;
/// On a variable: per interval, vISA start and end (u16 each) and virtual type (u8).
pub const AT_VAR_INTERVALS: u16 = 0x3f43;
/// On a subroutine's function: first and last vISA index (u32 each), then the virtual type of
/// each return-value interval (u8).
pub const AT_SUB: u16 = 0x3f44;
/// On an object's FDE: the caller-save table exactly as encoded in the stream (count included).
pub const AT_CALLER_SAVES: u16 = 0x3f45;
/// On every FDE: the table order of its CFA program's steps (docs/visa.md).
pub const AT_CFA_ORDER: u16 = 0x3f46;
