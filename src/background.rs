//! Work a caller need not wait for.

/// Drops `value` on a short-lived thread. A converted module or a writer's DIE tree is millions
/// of small allocations whose freeing takes a noticeable share of a conversion; the caller goes
/// on (writing the output) on the other core. Falls back to dropping in place when no thread
/// can be started.
pub fn drop_later<T: Send + 'static>(value: T) {
    if LEFT_TO_EXIT.load(std::sync::atomic::Ordering::Relaxed) {
        std::mem::forget(value);
        return;
    }
    // On failure `spawn` drops the closure, and the value with it, before returning.
    let _ = std::thread::Builder::new()
        .name("dwarv-drop".into())
        .spawn(move || drop(value));
}

static LEFT_TO_EXIT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// From now on [`drop_later`] leaves its values to the end of the process instead of freeing
/// them: for a command that ends once its output is written (`convert`), whose memory the
/// system takes back whole, as clang's `-disable-free` does. Freeing the DWARF writer's DIE
/// tree was 3 % of the instructions of `convert --to dwarf` (linked sqlite program).
pub fn leave_drops_to_exit() {
    LEFT_TO_EXIT.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// What the allocator does with the pages a phase frees (`set_freed_pages`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FreedPages {
    /// Kept for the phase's own later allocations: a phase that frees and allocates again
    /// (the DWARF writer's DIE fill) would otherwise give pages back only to fault them in
    /// anew.
    Keep,
    /// Given back to the system at once, those kept so far included: the next phase's
    /// allocations should not stack on what the last one freed.
    Return,
}

static FREED_PAGES: std::sync::OnceLock<fn(FreedPages)> = std::sync::OnceLock::new();

/// Sets how the allocator treats freed pages, through the function the binary registered
/// (`register_freed_pages`: dwarv's own allocator's options); nothing for a library user.
fn set_freed_pages(p: FreedPages) {
    if let Some(f) = FREED_PAGES.get() {
        f(p);
    }
}

static KEEPING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

static HOLDING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Until the guard is dropped, phases that end ([`keep_freed_pages`]'s guard) or step aside
/// ([`return_freed_pages_meanwhile`]) keep their freed pages rather than return them: for a
/// reader whose pages the next phase reuses (a DWARF to DWARF conversion: what the DWARF
/// reader frees, the writer's DIE fill takes again, whose own guard returns them all when it
/// ends). Dropping the guard returns nothing: the next phase's guard decides.
pub fn hold_freed_pages() -> Held {
    HOLDING.store(true, std::sync::atomic::Ordering::Relaxed);
    Held(())
}

/// Lets phases return their freed pages again when dropped ([`hold_freed_pages`]).
pub struct Held(());

impl Drop for Held {
    fn drop(&mut self) {
        HOLDING.store(false, std::sync::atomic::Ordering::Relaxed);
    }
}

fn holding() -> bool {
    HOLDING.load(std::sync::atomic::Ordering::Relaxed)
}

/// Inside a phase that keeps freed pages ([`keep_freed_pages`]), returns them at once (those
/// kept so far included) until the guard is dropped, which keeps them again: for a vector that
/// grows by doubling, whose old blocks nothing else reuses.
pub fn return_freed_pages_meanwhile() -> Meanwhile {
    let keeping = KEEPING.load(std::sync::atomic::Ordering::Relaxed) && !holding();
    if keeping {
        set_freed_pages(FreedPages::Return);
    }
    Meanwhile(keeping)
}

/// Keeps freed pages again when dropped, if they were kept ([`return_freed_pages_meanwhile`]).
pub struct Meanwhile(bool);

impl Drop for Meanwhile {
    fn drop(&mut self) {
        if self.0 {
            set_freed_pages(FreedPages::Keep);
        }
    }
}

/// Keeps freed pages until the returned guard is dropped, which returns them. The setting is the
/// process's: conversions on several threads at once (`batch`) may return each other's pages
/// early, which costs time, never memory.
pub fn keep_freed_pages() -> KeptPages {
    KEEPING.store(true, std::sync::atomic::Ordering::Relaxed);
    set_freed_pages(FreedPages::Keep);
    KeptPages(())
}

/// Returns the freed pages when dropped ([`keep_freed_pages`]).
pub struct KeptPages(());

impl Drop for KeptPages {
    fn drop(&mut self) {
        KEEPING.store(false, std::sync::atomic::Ordering::Relaxed);
        if !holding() {
            set_freed_pages(FreedPages::Return);
        }
    }
}

/// Registers the function [`keep_freed_pages`] and its guard call (once; later calls are
/// ignored).
pub fn register_freed_pages(f: fn(FreedPages)) {
    let _ = FREED_PAGES.set(f);
}
