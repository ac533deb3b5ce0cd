mod corpus;
mod crosscheck;
mod flags;
mod inkwell_step;
mod into;
mod read;
mod versions;
