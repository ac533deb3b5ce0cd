mod emitter;
mod inkwell_step;
mod translate;
