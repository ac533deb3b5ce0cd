mod corpus_coverage;
mod merge;
mod text;
mod text_hostile;
