mod cfi;
mod linked;
mod read;
mod spirv_roundtrip;
mod write;
