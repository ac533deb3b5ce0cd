//! Work a caller need not wait for.

/// Drops `value` on a short-lived thread. A converted module or a writer's DIE tree is millions
/// of small allocations whose freeing takes a noticeable share of a conversion; the caller goes
/// on (writing the output) on the other core. Falls back to dropping in place when no thread
/// can be started.
pub fn drop_later<T: Send + 'static>(value: T) {
    // On failure `spawn` drops the closure, and the value with it, before returning.
    let _ = std::thread::Builder::new()
        .name("dwarv-drop".into())
        .spawn(move || drop(value));
}
