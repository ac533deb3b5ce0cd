mod hostile;
mod tables;
