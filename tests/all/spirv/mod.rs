mod conformance;
mod hostile;
mod own_set;
mod read;
mod set_to_set;
mod sets;
mod shader200;
mod write;
