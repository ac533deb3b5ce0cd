mod inkwell_step;
mod translate;
