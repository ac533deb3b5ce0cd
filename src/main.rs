// The CLI allocates and frees millions of small nodes (IR entities, gimli DIEs and attribute
// values); mimalloc is markedly faster at that than glibc's malloc, and its v2 with transparent
// huge pages touches the least memory of the variants measured (bench/README.md).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc v2's `mi_option_purge_delay` (include/mimalloc.h; libmimalloc-sys names no constant
/// for it). 0 returns freed pages to the system at once rather than 10 ms later: a conversion
/// frees whole phases (the LLVM model once lowered, the code index once tied) just before the next
/// one allocates, and with the delay each phase's peak stacked on the last one's
/// (bench/README.md, "Figures behind code comments").
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

fn main() {
    // Like every Unix tool, end quietly when the reader of our output goes away (`dwarv dump x |
    // head`): Rust ignores SIGPIPE, which turns the next print into a panic (exit 101). dwarv
    // writes to no other pipe (the contained LLVM child writes to us, and dies the same way if
    // we are gone); output files are renamed into place only once complete.
    // SAFETY: sets a signal disposition before any thread is started.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    without_huge_pages_for_llvm_and_spirv();
    // SAFETY: sets a process-wide allocator option before any thread is started.
    unsafe {
        libmimalloc_sys::mi_option_set_enabled(libmimalloc_sys::mi_option_large_os_pages, true);
        libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0);
    };
    dwarv::unstable::background::register_freed_pages(freed_pages);
    let code = dwarv::unstable::cli::main();
    // Ends without the allocator's teardown (mimalloc collects and returns every page at exit:
    // about 3 % of a DWARF conversion's CPU time) or anything else registered with atexit;
    // every output file is complete and closed by now, and only Rust's stdout buffers a line.
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: ends the process; nothing runs after it.
    unsafe { libc::_exit(code) }
}

/// Keeps freed pages (a purge delay no conversion reaches) or returns them at once, those kept
/// included (purge delay 0 and a forced collection). The DWARF reader's and writer's DIE fills
/// and the writer's serialisation keep them: those phases free and allocate again all along,
/// and returning each freed page at once faulted it in anew (bench/README.md, "The DWARF
/// writer's CPU time").
fn freed_pages(p: dwarv::unstable::background::FreedPages) {
    use dwarv::unstable::background::FreedPages;
    const KEEP_MS: std::ffi::c_long = 1_000_000;
    // SAFETY: sets an allocator option (read at each use) and collects the calling thread's
    // heap; mimalloc allows both at any time.
    unsafe {
        match p {
            FreedPages::Keep => libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, KEEP_MS),
            FreedPages::Return => {
                libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0);
                libmimalloc_sys::mi_collect(true);
            }
        }
    }
}

/// For an LLVM or a SPIR-V input, the time the kernel spends zeroing transparent huge pages
/// outweighs what they save, while the DWARF round trip gains from them (bench/README.md,
/// "Figures behind code comments"). mimalloc madvises its arena for huge pages;
/// `PR_SET_THP_DISABLE` keeps the kernel from backing any of this process's memory (and its
/// forked LLVM child's) with them from now on, whatever was madvised — what
/// `MIMALLOC_ALLOW_THP=0` does at mimalloc's start, without starting again. Only inputs of at
/// least `LARGE` bytes (below, huge pages hardly matter).
fn without_huge_pages_for_llvm_and_spirv() {
    const LARGE: u64 = 4 << 20;
    if llvm_and_spirv_bytes() >= LARGE {
        // SAFETY: a process-wide flag; no pointers are passed.
        unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
    }
}

/// The size of the arguments that are files holding LLVM bitcode or text, or SPIR-V.
fn llvm_and_spirv_bytes() -> u64 {
    use std::io::Read;
    std::env::args_os()
        .skip(1)
        .filter_map(|a| {
            // Regular files only: reading a pipe or a device would take what the run needs.
            let meta = std::fs::metadata(&a).ok().filter(|m| m.is_file())?;
            let mut head = Vec::with_capacity(4096);
            std::fs::File::open(&a)
                .and_then(|f| f.take(4096).read_to_end(&mut head))
                .ok()?;
            matches!(
                dwarv::unstable::input::detect(&head),
                Some(
                    dwarv::unstable::input::Format::LlvmBitcode
                        | dwarv::unstable::input::Format::LlvmText
                        | dwarv::unstable::input::Format::Spirv
                )
            )
            .then_some(meta.len())
        })
        .sum()
}
