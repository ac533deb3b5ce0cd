mod cfi;
mod hostile;
mod read;
mod write;
