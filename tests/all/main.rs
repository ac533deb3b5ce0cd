#[path = "../support/mod.rs"]
mod support;

mod cli;
mod docs_claims;
mod container;
mod dwarf;
mod ir;
mod llvm;
mod snapshots;
mod spirv;
mod tools;
mod visa;
