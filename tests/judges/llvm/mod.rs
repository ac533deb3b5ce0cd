mod corpus;
pub(crate) mod into;
mod read;
