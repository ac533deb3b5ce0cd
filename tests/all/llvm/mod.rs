mod corpus;
mod flags;
mod into;
mod read;
mod versions;
