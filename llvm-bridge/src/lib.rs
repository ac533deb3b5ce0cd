//! llvm-bridge: the only dwarv crate that touches LLVM.
//!
//! It will load `.ll`/`.bc` modules through inkwell (LLVM 14) and a small C++ shim, and hand the
//! core a plain model of their debug metadata (see the LLVM issue). Until then it only recognises
//! LLVM inputs, so the core can say precisely what it was given.

/// The two LLVM input encodings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LlvmInput {
    /// Bitcode: raw (`BC\xC0\xDE`) or in the bitcode wrapper (`0x0B17C0DE`).
    Bitcode,
    /// Textual IR (`.ll`).
    Text,
}

/// Recognises LLVM bitcode or textual IR by content.
pub fn detect(bytes: &[u8]) -> Option<LlvmInput> {
    if bytes.starts_with(b"BC\xC0\xDE") || bytes.starts_with(&[0xDE, 0xC0, 0x17, 0x0B]) {
        return Some(LlvmInput::Bitcode);
    }
    let head = &bytes[..bytes.len().min(4096)];
    let text = std::str::from_utf8(head).ok().or_else(|| {
        // A head cut inside a multi-byte character is still text.
        std::str::from_utf8(&head[..head.len().saturating_sub(3)]).ok()
    })?;
    let looks_like_ir = text.lines().map(str::trim_start).any(|l| {
        l.starts_with("; ModuleID")
            || l.starts_with("source_filename =")
            || l.starts_with("target triple =")
            || l.starts_with("target datalayout =")
            || l.starts_with("define ")
            || l.starts_with("declare ")
            || (l.starts_with('!') && l.contains("= !DI"))
    });
    looks_like_ir.then_some(LlvmInput::Text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_bitcode_and_text() {
        assert_eq!(detect(b"BC\xC0\xDE\x35\x14"), Some(LlvmInput::Bitcode));
        assert_eq!(
            detect(&[0xDE, 0xC0, 0x17, 0x0B, 0, 0]),
            Some(LlvmInput::Bitcode)
        );
        assert_eq!(
            detect(b"; ModuleID = 'k.bc'\nsource_filename = \"k.cl\"\n"),
            Some(LlvmInput::Text)
        );
        assert_eq!(
            detect(b"define i32 @main() {\n  ret i32 0\n}\n"),
            Some(LlvmInput::Text)
        );
        assert_eq!(detect(b"; dwarv-ir 1 source=ir\n"), None);
        assert_eq!(detect(b"\x7fELF"), None);
    }
}
