mod batch;
mod every_verb;
mod strip_attach;
