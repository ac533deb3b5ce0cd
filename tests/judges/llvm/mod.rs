mod corpus;
mod into;
mod read;
