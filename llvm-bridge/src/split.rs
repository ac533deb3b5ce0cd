//! One parse, two products: a module's debug-info model and its code without debug info — the
//! SPIR-V the translator's library of the reading LLVM makes of it in process, or the stripped
//! module's bitcode for a translator run as a program. Both come from the crash-containment
//! child, the model first: the caller lowers it while the child translates.

use std::ffi::{c_void, CString};

use crate::shim::{self, WriteFn};
use crate::{contain, model, with_readers, Error, Model};

/// What makes the code of a split module.
#[derive(Clone, Copy, Debug)]
pub enum Writer<'a> {
    /// The translator's library of the LLVM that reads the module, in process, with these
    /// options (`key=value` lines: `ext`, `max-version`, `allow-unknown-intrinsics`,
    /// `fp-contract`, as the translator's flags of those names); where this build carries no such
    /// writer, or its library is not installed, the stripped bitcode instead.
    Spirv(&'a str),
    /// The stripped module's bitcode.
    Bitcode,
}

/// The code of a split module.
#[derive(Debug)]
pub enum Code {
    /// SPIR-V, written by the translator library named.
    Spirv {
        bytes: Vec<u8>,
        translator: &'static str,
    },
    /// The stripped module's bitcode; with [`Writer::Spirv`], why no library wrote SPIR-V.
    Bitcode { bytes: Vec<u8>, why: Option<String> },
}

/// A split module.
#[derive(Debug)]
pub struct Split<T> {
    /// What the caller's `on_model` made of the model.
    pub lowered: T,
    pub code: Code,
    /// `llvm-config --version` of the LLVM that read the module.
    pub llvm: &'static str,
}

/// A model as [`split`] hands it over: the module's debug info, or, when LLVM rejected only
/// that (its verifier, or the bitcode reader's upgrade), its message — the code is written all
/// the same.
pub type ModelOrRejection = Result<Model, String>;

/// The shim's first-part status for "debug info rejected, code written" (bridge.cpp).
const DEBUG_INFO_REJECTED: u8 = 3;
/// The shim's code-part status for "the process making the code died" (bridge.cpp), its
/// message how.
const CODE_CRASHED: u8 = 4;

/// Parses `bytes` once, in a child process: hands the model to `on_model` as soon as it is read
/// (in this process, while the child strips and translates), then returns the code.
pub fn split<T>(
    bytes: &[u8],
    name: &str,
    writer: Writer<'_>,
    on_model: impl FnOnce(ModelOrRejection) -> T,
) -> Result<Split<T>, Error> {
    let cname = CString::new(name.replace('\0', "?")).unwrap_or_default();
    let options = CString::new(match writer {
        Writer::Spirv(o) => o.replace('\0', ""),
        Writer::Bitcode => String::new(),
    })
    .unwrap_or_default();
    let mut on_model = Some(on_model);
    let mut lowered = None;
    let mut code = None;
    // A reader that rejected only the debug info: its message and code, used when no later
    // reader accepts the module whole.
    let mut fallback: Option<(String, Code, &'static str)> = None;
    let read = with_readers(bytes, |index, s| {
        let (write_fn, why) = writer_of(index, writer);
        let mut parts = Parts::default();
        let run = contain::run_parts(
            |reply| {
                let mut reply: &mut dyn FnMut(u8, &[u8]) = reply;
                // SAFETY: the shim reads `bytes` and the two strings, and calls `emit` with
                // buffers valid for the call; `ctx` is `reply`, live for the call.
                unsafe {
                    (s.split)(
                        bytes.as_ptr(),
                        bytes.len(),
                        cname.as_ptr(),
                        1,
                        write_fn,
                        options.as_ptr(),
                        emit,
                        (&mut reply as *mut &mut dyn FnMut(u8, &[u8])).cast(),
                    );
                }
            },
            &mut || (),
            &mut |status, body| {
                parts.receive(status, body, index, &mut |m| {
                    let f = on_model.take().expect("one model per split");
                    lowered = Some(f(Ok(m)));
                })
            },
        );
        if let Some(e) = parts.broken {
            return Err(e);
        }
        let first = parts.first.take();
        match (run, first) {
            (Ok(_), Some((0, _))) => {
                code = Some(code_of(parts.second, write_fn, why, index)?);
                Ok((0, Vec::new()))
            }
            (Ok(_), Some((DEBUG_INFO_REJECTED, message))) => {
                let message = String::from_utf8_lossy(&message).into_owned();
                let made = code_of(parts.second, write_fn, why, index)?;
                let version = shim::CARRIED[index].version;
                fallback.get_or_insert((message.clone(), made, version));
                Ok((2, message.into_bytes()))
            }
            (Ok(_), Some(other)) => Ok(other),
            (Ok(_), None) => Err(Error::Crashed("the LLVM reader replied nothing".into())),
            // Died after the model: the translator, not the reader.
            (Err(Error::Crashed(m)), Some(_)) => Err(Error::Translator(format!(
                "{} crashed ({m})",
                translator_name(index, write_fn)
            ))),
            (Err(e), _) => Err(e),
        }
    });
    let llvm = match read {
        Ok((_, llvm)) => llvm,
        Err(e @ (Error::Rejected(_) | Error::Misidentified(_))) => match fallback {
            Some((message, made, version)) => {
                let f = on_model.take().expect("one model per split");
                lowered = Some(f(Err(message)));
                code = Some(made);
                version
            }
            None => return Err(e),
        },
        Err(e) => return Err(e),
    };
    match (lowered, code) {
        (Some(lowered), Some(code)) => Ok(Split {
            lowered,
            code,
            llvm,
        }),
        _ => Err(Error::Crashed("the LLVM reader replied nothing".into())),
    }
}

/// [`split`] of a module that lives in this process (an `LLVMModuleRef` of LLVM `major`, as
/// inkwell hands one over): nothing is parsed; the child's copy of the module is the one
/// stripped and translated, the caller's stays as it is.
///
/// # Safety
/// As [`crate::model_of_module`].
pub unsafe fn split_module<T>(
    module: *mut c_void,
    major: u32,
    writer: Writer<'_>,
    on_model: impl FnOnce(Model) -> T,
) -> Result<Split<T>, Error> {
    let index = crate::carried_index(major)?;
    let s = shim::get(index).map_err(|m| crate::shim_error(index, m))?;
    let (write_fn, why) = writer_of(index, writer);
    let options = CString::new(match writer {
        Writer::Spirv(o) => o.replace('\0', ""),
        Writer::Bitcode => String::new(),
    })
    .unwrap_or_default();
    let module = module as usize;
    let mut parts = Parts::default();
    let mut on_model = Some(on_model);
    let mut lowered = None;
    let run = contain::run_parts(
        |reply| {
            let mut reply: &mut dyn FnMut(u8, &[u8]) = reply;
            (s.split_module)(
                module as *mut c_void,
                write_fn,
                options.as_ptr(),
                emit,
                (&mut reply as *mut &mut dyn FnMut(u8, &[u8])).cast(),
            );
        },
        &mut || (),
        &mut |status, body| {
            parts.receive(status, body, index, &mut |m| {
                let f = on_model.take().expect("one model per split");
                lowered = Some(f(m));
            })
        },
    );
    if let Some(e) = parts.broken {
        return Err(e);
    }
    match (run, parts.first) {
        (Ok(_), Some((0, _))) => Ok(Split {
            lowered: lowered.expect("the model was lowered"),
            code: code_of(parts.second, write_fn, why, index)?,
            llvm: shim::CARRIED[index].version,
        }),
        (Ok(_), Some((_, message))) => Err(Error::Rejected(
            String::from_utf8_lossy(&message).into_owned(),
        )),
        (Ok(_), None) => Err(Error::Crashed("the LLVM reader replied nothing".into())),
        (Err(Error::Crashed(m)), Some(_)) => Err(Error::Translator(format!(
            "{} crashed ({m})",
            translator_name(index, write_fn)
        ))),
        (Err(e), _) => Err(e),
    }
}

/// The parts a split child sent: the first (status and message, or `(0, [])` once the model
/// went to the caller), the second (the code, or the writer's status and message).
#[derive(Default)]
struct Parts {
    first: Option<(u8, Vec<u8>)>,
    second: Option<(u8, Vec<u8>)>,
    broken: Option<Error>,
}

impl Parts {
    /// Takes the next part from reader `index`'s child: a first part that carries the model
    /// hands it to `on_model` (its buffer freed first) and keeps only its status.
    fn receive(
        &mut self,
        status: u8,
        body: Vec<u8>,
        index: usize,
        on_model: &mut dyn FnMut(Model),
    ) {
        if self.first.is_some() {
            self.second = Some((status, body));
            return;
        }
        if status != 0 {
            self.first = Some((status, body));
            return;
        }
        let read = model(&body, shim::CARRIED[index].version);
        drop(body);
        match read {
            Ok(m) => {
                on_model(m);
                self.first = Some((0, Vec::new()));
            }
            Err(e) => self.broken = Some(e),
        }
    }
}

/// The in-process writer for reader `index`, or why there is none.
fn writer_of(index: usize, writer: Writer<'_>) -> (Option<WriteFn>, Option<String>) {
    let major = shim::CARRIED[index].major;
    match writer {
        Writer::Bitcode => (None, None),
        Writer::Spirv(_) => match shim::writer(index) {
            None => (
                None,
                Some(format!(
                    "this dwarv carries no SPIR-V translator library for LLVM {major}"
                )),
            ),
            Some(Err(e)) => (
                None,
                Some(format!(
                    "the SPIR-V translator library of LLVM {major} cannot be loaded (Debian \
                     package libllvmspirvlib{major}): {e}"
                )),
            ),
            Some(Ok(f)) => (Some(f), None),
        },
    }
}

fn translator_name(index: usize, write_fn: Option<WriteFn>) -> String {
    match (write_fn, &shim::CARRIED[index].writer) {
        (Some(_), Some(w)) => format!("the SPIR-V translator ({})", w.library),
        _ => format!("LLVM {}'s bitcode writer", shim::CARRIED[index].major),
    }
}

fn code_of(
    second: Option<(u8, Vec<u8>)>,
    write_fn: Option<WriteFn>,
    why: Option<String>,
    index: usize,
) -> Result<Code, Error> {
    let Some((status, bytes)) = second else {
        return Err(Error::Crashed(
            "the LLVM reader sent the model but no code".into(),
        ));
    };
    // The code itself is not text: only a message is read as one.
    let said = || String::from_utf8_lossy(&bytes).trim_end().to_string();
    match status {
        0 => {}
        CODE_CRASHED => {
            return Err(Error::Translator(format!(
                "{} crashed ({})",
                translator_name(index, write_fn),
                said()
            )))
        }
        _ => {
            return Err(Error::Translator(format!(
                "{} refused the module: {}",
                translator_name(index, write_fn),
                said()
            )))
        }
    }
    Ok(match (write_fn, &shim::CARRIED[index].writer) {
        (Some(_), Some(w)) => Code::Spirv {
            bytes,
            translator: w.library,
        },
        _ => Code::Bitcode { bytes, why },
    })
}

/// The shim's `emit`: hands a part to the containment child's reply.
unsafe extern "C" fn emit(ctx: *mut c_void, status: i32, data: *const u8, len: usize) {
    // SAFETY: `ctx` is the `&mut dyn FnMut` the job passed; `data` holds `len` bytes.
    unsafe {
        let reply = &mut *ctx.cast::<&mut dyn FnMut(u8, &[u8])>();
        let bytes = match data.is_null() {
            true => &[][..],
            false => std::slice::from_raw_parts(data, len),
        };
        reply(u8::try_from(status).unwrap_or(u8::MAX), bytes);
    }
}
