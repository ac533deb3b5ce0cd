#[path = "../support/mod.rs"]
mod support;

mod build_step;
mod cli;
mod container;
mod docs_claims;
mod dwarf;
mod ir;
mod llvm;
mod snapshots;
mod spirv;
mod tools;
mod visa;
