//! The conversion's last edits: the head finished (the import renamed,
//! `SPV_KHR_non_semantic_info` declared or dropped, the added instructions placed) and a
//! `DebugFunctionDefinition` in each defined function's entry block.

use rspirv::spirv::NonsemanticShaderDebuginfo100Op as ShaderOp;
use rspirv::spirv::Op;

use crate::spirv::binary::first_word;

use super::super::head::Head;
use super::super::tables::Tables;
use super::super::words::{string_words, words_of, Declined, Edit};
use super::Target;

const NON_SEMANTIC_INFO: &str = "SPV_KHR_non_semantic_info";

impl Target {
    /// The head finished: the import renamed, `SPV_KHR_non_semantic_info` declared, the
    /// constants (and their type) before the first debug instruction.
    /// (`shift`: words inserted before the first debug instruction since it was written.)
    pub(in super::super) fn finish(
        &mut self,
        head: &mut Head<'_>,
        out: &mut Vec<u32>,
        shift: usize,
    ) -> Result<(), Declined> {
        let mut edits = Vec::with_capacity(3);
        if let Some(at) = self.first_debug.map(|at| at + shift) {
            let mut added = Vec::with_capacity(self.constant_words.len() + 4);
            // (Into the OpenCL.100 family no constant is added; a DebugInfoNone may be.)
            if self.into_literals {
            } else if self.uint_added {
                added.extend([first_word(4, Op::TypeInt), self.uint, 32, 0]);
            } else if head.tables.def[self.uint as usize] as usize > head.tables.first_debug {
                return Err(Declined(
                    "the module's OpTypeInt 32 0 follows its debug info",
                ));
            }
            if self.bool_added != 0 {
                added.extend([first_word(2, Op::TypeBool), self.bool_added]);
            }
            added.extend_from_slice(&self.constant_words);
            edits.push(Edit {
                at,
                remove: 0,
                words: added,
            });
        }
        // The import and the extensions precede everything the pass moved.
        let (mut i, mut import, mut declared) = (5, None, None);
        // Another NonSemantic import, which needs the extension.
        let mut other_non_semantic = false;
        // Where an extension goes: before the first extension, else the first import.
        let mut extension = None;
        while i < out.len() {
            let count = (out[i] >> 16) as usize;
            match (out[i] & 0xffff) as u16 {
                o if o == Op::Extension as u16 => {
                    if string_words(&out[i + 1..i + count]) == NON_SEMANTIC_INFO {
                        declared = Some(i);
                    }
                    extension.get_or_insert(i);
                }
                o if o == Op::ExtInstImport as u16 => {
                    extension.get_or_insert(i);
                    if out[i + 1] == head.tables.set {
                        import = Some(i);
                    } else {
                        other_non_semantic |=
                            string_words(&out[i + 2..i + count]).starts_with("NonSemantic.");
                    }
                }
                o if o == Op::MemoryModel as u16 => break,
                _ => {}
            }
            i += count.max(1);
        }
        let import = import.ok_or(Declined("the debug import after the memory model"))?;
        let mut renamed = vec![0, head.tables.set];
        renamed.extend(words_of(self.to.import_name()));
        renamed[0] = first_word(renamed.len(), Op::ExtInstImport);
        edits.push(Edit {
            at: import,
            remove: (out[import] >> 16) as usize,
            words: renamed,
        });
        match declared {
            // Into the OpenCL.100 family, the extension goes unless another import needs it.
            Some(at) if !self.to.non_semantic() && !other_non_semantic => edits.push(Edit {
                at,
                remove: (out[at] >> 16) as usize,
                words: Vec::new(),
            }),
            _ => {}
        }
        if declared.is_none() && self.to.non_semantic() {
            let mut ext = vec![0];
            ext.extend(words_of(NON_SEMANTIC_INFO));
            ext[0] = first_word(ext.len(), Op::Extension);
            edits.push(Edit {
                at: extension.unwrap_or(import),
                remove: 0,
                words: ext,
            });
        }
        // One copy of the head rather than a move of it per edit.
        edits.sort_by_key(|e| (e.at, e.remove));
        let added: usize = edits.iter().map(|e| e.words.len()).sum();
        let mut head = Vec::with_capacity(out.len() + added);
        let mut from = 0;
        for e in edits {
            head.extend_from_slice(&out[from..e.at]);
            head.extend(e.words);
            from = e.at + e.remove;
        }
        head.extend_from_slice(&out[from..]);
        *out = head;
        Ok(())
    }

    /// The definitions in the functions' entry blocks, after their OpVariables.
    pub(in super::super) fn definitions(&self, t: &Tables<'_>) -> Result<Vec<Edit>, Declined> {
        let mut edits = Vec::with_capacity(self.definitions.len());
        let mut seen = std::collections::HashSet::with_capacity(self.definitions.len());
        for &[function, debug, id] in &self.definitions {
            if !seen.insert(function) {
                return Err(Declined("two DebugFunctions of one OpFunction"));
            }
            let at = t.entry_insertion(function)?;
            if id == 0 {
                continue;
            }
            edits.push(Edit {
                at,
                remove: 0,
                words: vec![
                    first_word(7, Op::ExtInst),
                    t.void,
                    id,
                    t.set,
                    ShaderOp::DebugFunctionDefinition as u32,
                    debug,
                    function,
                ],
            });
        }
        Ok(edits)
    }
}
