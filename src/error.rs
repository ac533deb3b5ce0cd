//! dwarv's error type and the exit codes of the CLI contract.

use crate::ir::text::ParseError;
use crate::ir::verify::Findings;

/// Exit codes: 0 ok; 1 differences / findings / some batch inputs failed; 2 usage error or bad
/// input; 3 refused under `--strict` because of losses.
pub mod exit {
    pub const OK: i32 = 0;
    pub const DIFFERENT: i32 = 1;
    pub const BAD_INPUT: i32 = 2;
    pub const STRICT: i32 = 3;
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Parse(#[from] ParseError),
    #[error("{path}: the module breaks IR rules (run `dwarv validate` for the list):\n{findings}")]
    Invalid { path: String, findings: Findings },
    #[error("{path}: {format} input is not supported yet: {reason}")]
    UnsupportedInput {
        path: String,
        format: &'static str,
        reason: &'static str,
    },
    /// Malformed SPIR-V: the word offset of the damage and, when there is one, the id involved.
    #[error("{path}: word {offset}{}: {message}", id.map(|i| format!(" (%{i})")).unwrap_or_default())]
    Spirv {
        path: String,
        offset: usize,
        id: Option<u32>,
        message: String,
    },
    /// LLVM input LLVM rejected (does not parse, fails the verifier) or crashed on.
    #[error("{path}: {message}")]
    Llvm { path: String, message: String },
    /// Malformed vISA debug tables: the object, table and byte offset of the damage.
    #[error("{path}: {error}")]
    Visa {
        path: String,
        error: crate::visa::DecodeError,
    },
    /// A writer refused: what the target (a SPIR-V debug set, DWARF, vISA tables) cannot hold of
    /// the module, or a limit the writer met. `input` names the module's input when known.
    #[error("{}cannot write {target}: {message}", input.as_ref().map(|i| format!("{i}: ")).unwrap_or_default())]
    Unwritable {
        input: Option<String>,
        target: &'static str,
        message: String,
    },
    /// Malformed DWARF/ELF: the section and the byte offset in it of the damage.
    #[error("{path}: {section} offset {offset:#x}: {message}")]
    Dwarf {
        path: String,
        section: String,
        offset: u64,
        message: String,
    },
    /// A damaged offload container (bundle, compressed bundle, offloading binary, or the host
    /// section holding one): the entry or field, and what is wrong.
    #[error("{path}: {place}: {message}")]
    Container {
        path: String,
        place: String,
        message: String,
    },
    #[error("{path}: unrecognised input format (expected a .dwir text, SPIR-V, ELF, LLVM IR or bitcode, or vISA debug tables)")]
    UnknownFormat { path: String },
    /// The SPIR-V translator program `dwarv translate` ran failed, or wrote no module.
    #[error("the SPIR-V translator {translator} {message}")]
    Translator { translator: String, message: String },
    #[error("{0}")]
    Usage(String),
    /// `--strict`: losses an option or the input can avoid (`inherent` more pass).
    #[error("refused under --strict: {count} loss(es) an option or the input can avoid{}; the first: {first}",
        match inherent { 0 => String::new(), n => format!(" ({n} more the target cannot hold)") })]
    Strict {
        count: usize,
        inherent: usize,
        first: String,
    },
}

impl Error {
    /// `--strict`'s refusal of a conversion's losses, when any is avoidable.
    pub fn strict(diagnostics: &crate::diag::Diagnostics) -> Option<Error> {
        let first = diagnostics.avoidable().next()?;
        let count = diagnostics.avoidable().count();
        Some(Error::Strict {
            count,
            inherent: diagnostics.losses.len() - count,
            first: format!("{}: {}", first.place, first.message),
        })
    }

    /// A writer's refusal (see [`Error::Unwritable`]).
    pub fn unwritable(target: &'static str, message: impl Into<String>) -> Error {
        Error::Unwritable {
            input: None,
            target,
            message: message.into(),
        }
    }

    /// The error, naming `input` if it is a writer's refusal that does not yet.
    pub fn of_input(self, input: &str) -> Error {
        match self {
            Error::Unwritable {
                input: None,
                target,
                message,
            } => Error::Unwritable {
                input: Some(input.to_string()),
                target,
                message,
            },
            e => e,
        }
    }

    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Strict { .. } => exit::STRICT,
            _ => exit::BAD_INPUT,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
