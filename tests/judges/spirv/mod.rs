mod conformance;
mod set_to_set;
mod shader200;
mod translator_consumer;
mod write;
