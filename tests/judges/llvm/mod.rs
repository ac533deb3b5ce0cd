mod build_step;
mod corpus;
mod inkwell_step;
mod into;
mod read;
