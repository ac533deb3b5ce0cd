// The CLI allocates and frees millions of small nodes (IR entities, gimli DIEs and attribute
// values); mimalloc is markedly faster at that than glibc's malloc, and its v2 with transparent
// huge pages touches the least memory of the variants measured (bench/README.md).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // SAFETY: sets a process-wide allocator option before any thread is started.
    unsafe {
        libmimalloc_sys::mi_option_set_enabled(libmimalloc_sys::mi_option_large_os_pages, true)
    };
    std::process::exit(dwarv::cli::main());
}
