mod emitter;
mod inkwell_step;
