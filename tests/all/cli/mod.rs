mod batch;
mod contract;
mod crosscheck;
mod hostile_inputs;
mod huge_input;
mod input_paths;
mod output_files;
mod strip_attach;
