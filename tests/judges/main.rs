#[path = "../support/mod.rs"]
mod support;

mod build_step;
mod cli;
mod container;
mod dwarf;
mod ir;
mod llvm;
mod spirv;
mod tools;
mod visa;
mod vulkan;
