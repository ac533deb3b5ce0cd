//! The Intel vISA debug-information stream (seed 004, magic 0xdeadd010) as plain Rust data, with
//! a checked little-endian decoder ([`decode`]) and its encoder ([`encode`]).
//!
//! The layout is the seed's structs packed, little-endian; docs/visa.md records where the seed
//! leaves it implicit (the Memory bitfield, the `Mapping` union of save entries) and how IGC's own
//! decoder differs.

pub mod forms;
mod read;
mod write;

pub(crate) use read::decode_saves;
pub use read::{decode, DecodeError};
pub(crate) use write::encode_saves;
pub use write::{encode, EncodeError};

/// The stream's magic number.
pub const MAGIC: u32 = 0xdead_d010;

/// The whole stream: one entry per compiled object.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tables {
    pub objects: Vec<Object>,
}

/// A kernel (`reloc_offset` 0) or a stack-call function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Object {
    pub name: String,
    /// Offset of the object's first instruction in the binary buffer; the Gen offsets of its
    /// tables are relative to it.
    pub reloc_offset: u32,
    /// vISA byte offset → Gen byte offset.
    pub offset_map: Vec<MapEntry>,
    /// vISA instruction index → Gen byte offset.
    pub index_map: Vec<MapEntry>,
    pub vars: Vec<Var>,
    pub subs: Vec<Subroutine>,
    pub frame: Frame,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MapEntry {
    pub visa: u32,
    pub gen: u32,
}

/// A virtual variable and where it lives, over vISA instruction indices.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Var {
    pub name: String,
    pub intervals: Vec<Interval<u16>>,
}

/// A live interval: `u16` vISA indices (IntervalVISA) or `u32` Gen offsets (IntervalGenISA).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval<T> {
    pub start: T,
    pub end: T,
    pub virt: VirtType,
    pub loc: Storage,
}

/// The kind of the vISA variable (`virtualType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VirtType {
    Address = 0,
    Flag = 1,
    General = 2,
}

impl VirtType {
    pub const ALL: [VirtType; 3] = [VirtType::Address, VirtType::Flag, VirtType::General];
}

/// A register file of the Gen machine that holds variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegFile {
    Address = 0,
    Flag = 1,
    Grf = 2,
}

impl RegFile {
    pub const ALL: [RegFile; 3] = [RegFile::Address, RegFile::Flag, RegFile::Grf];
}

/// Where a value is: a register (`physicalType` 0–2) or memory (3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Storage {
    /// Register `num`, sub-register offset `sub` in bytes.
    Reg {
        file: RegFile,
        num: u16,
        sub: u16,
    },
    Mem(Memory),
}

/// A scratch-memory location: BE_FP-relative (`absolute == false`) or an absolute scratch
/// offset; `offset` is a signed 31-bit byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Memory {
    pub absolute: bool,
    pub offset: i32,
}

impl Memory {
    pub const MIN_OFFSET: i32 = -(1 << 30);
    pub const MAX_OFFSET: i32 = (1 << 30) - 1;

    /// The 4-byte bitfield word: bit 0 isBaseOffBEFP, bits 1–31 the signed offset.
    pub fn to_word(self) -> u32 {
        ((self.offset as u32) << 1) | self.absolute as u32
    }
    pub fn from_word(w: u32) -> Memory {
        Memory {
            absolute: w & 1 != 0,
            offset: (w as i32) >> 1,
        }
    }
}

/// A subroutine of the object (vISA `call`/`ret`), with the live intervals of the variable
/// holding its return address.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Subroutine {
    pub name: String,
    /// vISA index of the first instruction.
    pub start: u32,
    /// vISA index of the last instruction.
    pub end: u32,
    pub ret_val: Vec<Interval<u32>>,
}

/// Call-frame information. `None` lists are absent (their `…Valid` byte is 0).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Frame {
    pub size: u16,
    pub befp: Option<Vec<Interval<u32>>>,
    pub caller_befp: Option<Vec<Interval<u32>>>,
    pub ret_addr: Option<Vec<Interval<u32>>>,
    pub callee_saves: Vec<SaveAtIp>,
    pub caller_saves: Vec<SaveAtIp>,
}

/// The caller/callee save entries in effect at a Gen IP.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SaveAtIp {
    pub gen_ip: u32,
    pub entries: Vec<SaveEntry>,
}

/// `num_bytes` of the GRF file from byte `src_reg_off` (r1.0 = 32) are saved at `dst`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SaveEntry {
    pub src_reg_off: u16,
    pub num_bytes: u16,
    pub dst: SaveDst,
}

/// The destination of a save: a GRF register and sub-register (`dstInReg` 1) or memory (0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SaveDst {
    Reg { num: u16, sub: u16 },
    Mem(Memory),
}

/// Table names used in error messages, in stream order.
pub mod table {
    pub const HEADER: &str = "header";
    pub const OBJECT: &str = "object header";
    pub const OFFSET_MAP: &str = "offset map";
    pub const INDEX_MAP: &str = "index map";
    pub const VARS: &str = "variables";
    pub const SUBS: &str = "subroutines";
    pub const FRAME: &str = "frame size";
    pub const BEFP: &str = "BE_FP intervals";
    pub const CALLER_BEFP: &str = "caller BE_FP intervals";
    pub const RET_ADDR: &str = "return address intervals";
    pub const CALLEE_SAVES: &str = "callee-save table";
    pub const CALLER_SAVES: &str = "caller-save table";
}
