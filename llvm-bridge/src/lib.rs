//! llvm-bridge: the only dwarv crate that touches LLVM.
//!
//! Its job (the LLVM issue): load `.ll`/`.bc` modules through inkwell on LLVM 14 and a small C++
//! shim that walks the DI classes, and hand the core a plain model of the module's debug metadata
//! and per-instruction debug attachments. It is empty until then; the core recognises LLVM inputs
//! by content on its own (`dwarv::input::detect`) and reports them as not supported yet.
