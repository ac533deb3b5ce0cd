//! LLVM offloading binaries (`llvm/Object/OffloadBinary.h`): what clang's new offload driver
//! and `clang-offload-packager` wrap device images in, one after another in a host object's
//! `.llvm.offloading` section.
//!
//! Layout (little-endian; offsets from the binary's first byte):
//! header `10 FF 10 AD`, version u32, size u64 (the whole binary, padding included), entry
//! offset u64, entry size u64; entry: image kind u16, offload kind u16, flags u32, string-map
//! offset u64, string count u64, image offset u64, image size u64; string map: (key offset,
//! value offset) u64 pairs of NUL-terminated strings (`triple`, `arch`, …).

use super::{Damage, Reader};

pub const MAGIC: &[u8] = &[0x10, 0xFF, 0x10, 0xAD];

/// One offloading binary's image and what its entry says of it.
#[derive(Clone, Debug)]
pub struct Image {
    /// `hip`, `openmp`, `cuda`, `sycl`, or `kind<N>`.
    pub offload_kind: String,
    /// `object`, `bitcode`, `cubin`, `fatbinary`, `ptx`, `spirv`, or `kind<N>`.
    pub image_kind: String,
    pub triple: String,
    pub arch: String,
    /// From the binary's first byte.
    pub offset: u64,
    pub size: u64,
    /// The whole binary's size (the next binary starts there).
    pub binary_size: u64,
}

impl Image {
    /// The name the image goes by: clang's bundle spelling of a target
    /// (`hip-amdgcn-amd-amdhsa--gfx90a`: kind, four-part triple, arch).
    pub fn name(&self) -> String {
        let dashes = self.triple.matches('-').count();
        let pad = if dashes == 2 { "-" } else { "" };
        format!("{}-{}{pad}-{}", self.offload_kind, self.triple, self.arch)
    }
}

fn offload_kind(k: u16) -> String {
    match k {
        1 => "openmp".into(),
        2 => "cuda".into(),
        // LLVM 19 numbers the kinds 1, 2, 3; later LLVMs as bits 1, 2, 4, 8.
        3 | 4 => "hip".into(),
        8 => "sycl".into(),
        k => format!("kind{k}"),
    }
}

fn image_kind(k: u16) -> String {
    match k {
        1 => "object".into(),
        2 => "bitcode".into(),
        3 => "cubin".into(),
        4 => "fatbinary".into(),
        5 => "ptx".into(),
        6 => "spirv".into(),
        k => format!("kind{k}"),
    }
}

/// Reads the offloading binary at the start of `b`.
pub fn parse(b: &[u8], place: &str) -> Result<Image, Damage> {
    let mut r = Reader::new(b, place);
    r.expect(MAGIC, "the offloading binary magic 0x10FF10AD")?;
    let version = r.u32("the version")?;
    if version == 0 {
        return Err(r.damage("offloading binary version 0".into()));
    }
    let size = r.u64("the binary size")?;
    let entry_offset = r.u64("the entry offset")?;
    let _entry_size = r.u64("the entry size")?;
    if size > b.len() as u64 || size < r.pos() as u64 {
        return Err(r.damage(format!(
            "binary size {size:#x} is not between its header ({} bytes) and the end of the input \
             ({:#x} bytes)",
            r.pos(),
            b.len()
        )));
    }
    let b = &b[..size as usize];
    let mut r = Reader::new(b, place);
    r.seek(entry_offset, "the entry")?;
    let ik = r.u16("the image kind")?;
    let ok = r.u16("the offload kind")?;
    let _flags = r.u32("the flags")?;
    let strings = r.u64("the string map offset")?;
    let count = r.u64("the string count")?;
    let offset = r.u64("the image offset")?;
    let image_size = r.u64("the image size")?;
    let end = offset.checked_add(image_size).ok_or_else(|| {
        r.damage(format!(
            "image offset {offset:#x} + size {image_size:#x} overflows"
        ))
    })?;
    if end > size {
        return Err(r.damage(format!(
            "image offset {offset:#x} + size {image_size:#x} runs past the binary's end \
             ({size:#x} bytes)"
        )));
    }
    let (mut triple, mut arch) = (String::new(), String::new());
    r.seek(strings, "the string map")?;
    for k in 0..count {
        let key = r.u64(&format!("string {k} key offset"))?;
        let value = r.u64(&format!("string {k} value offset"))?;
        let key = cstr(b, key, place, k)?;
        let value = cstr(b, value, place, k)?;
        match key {
            "triple" => triple = value.to_string(),
            "arch" => arch = value.to_string(),
            _ => {}
        }
    }
    Ok(Image {
        offload_kind: offload_kind(ok),
        image_kind: image_kind(ik),
        triple,
        arch,
        offset,
        size: image_size,
        binary_size: size,
    })
}

/// The NUL-terminated string at `at` (lossy: a non-UTF-8 string reads as empty).
fn cstr<'a>(b: &'a [u8], at: u64, place: &str, k: u64) -> Result<&'a str, Damage> {
    let rest = usize::try_from(at)
        .ok()
        .and_then(|at| b.get(at..))
        .ok_or_else(|| Damage {
            place: place.to_string(),
            message: format!("string {k}: offset {at:#x} past the binary's end"),
        })?;
    let len = rest.iter().position(|&c| c == 0).ok_or_else(|| Damage {
        place: place.to_string(),
        message: format!("string {k} at {at:#x}: no terminating NUL"),
    })?;
    Ok(std::str::from_utf8(&rest[..len]).unwrap_or(""))
}
