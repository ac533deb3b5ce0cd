mod corpus;
mod flags;
mod inkwell_step;
mod into;
mod read;
mod versions;
