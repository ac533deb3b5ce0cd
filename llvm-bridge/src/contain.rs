//! Crash containment: run a job in a forked child and get its bytes back through a pipe.
//!
//! fork() rather than re-executing a binary, so that a library user is as safe as the CLI. The
//! child only runs the job, writes `status byte, length, bytes` to the pipe and `_exit`s, so no
//! destructor or atexit handler of the parent runs twice. glibc keeps malloc usable in the child
//! of a multi-threaded parent. LLVM's own stderr output (e.g. `LLVM ERROR: …`) is captured in a
//! memfd and becomes part of the error.

use crate::Error;

fn sys(what: &str) -> Error {
    Error::System(format!("{what}: {}", std::io::Error::last_os_error()))
}

/// Runs `job` in a child process; the job hands its outcome to the reply it is given
/// (`reply(0, bytes)` / `reply(status, message)`, the shim's status), which writes it to the pipe
/// as it is (no copy). Ok((0, bytes)) / Ok((status, message)); a child that dies is Crashed.
/// `beside` is called in this process once the child is started and before its reply is read:
/// work of the parent's that then shares the machine with the child's.
pub fn run(
    job: impl FnOnce(&mut dyn FnMut(u8, &[u8])),
    beside: &mut dyn FnMut(),
) -> Result<(u8, Vec<u8>), Error> {
    let mut first = None;
    run_parts(job, beside, &mut |status, bytes| {
        first.get_or_insert((status, bytes));
    })?;
    first.ok_or_else(|| Error::Crashed("the child replied nothing".into()))
}

/// [`run`] for a job that replies several times (a model, then code): each reply is handed to
/// `on_part` as soon as it has arrived, while the child goes on with the next. A child that dies
/// after some replies is Crashed, after `on_part` has had them.
pub fn run_parts(
    job: impl FnOnce(&mut dyn FnMut(u8, &[u8])),
    beside: &mut dyn FnMut(),
    on_part: &mut dyn FnMut(u8, Vec<u8>),
) -> Result<usize, Error> {
    let mut fds = [0i32; 2];
    // SAFETY: plain POSIX calls on descriptors this function owns.
    unsafe {
        if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return Err(sys("pipe"));
        }
        let errfd = libc::memfd_create(c"dwarv-llvm-stderr".as_ptr(), libc::MFD_CLOEXEC);
        let pid = libc::fork();
        if pid < 0 {
            libc::close(fds[0]);
            libc::close(fds[1]);
            if errfd >= 0 {
                libc::close(errfd);
            }
            return Err(sys("fork"));
        }
        if pid == 0 {
            libc::close(fds[0]);
            // A crash must kill the child, not run a handler the parent installed (a fuzzer's,
            // a runtime's) in a process that is about to be thrown away.
            for sig in [
                libc::SIGSEGV,
                libc::SIGBUS,
                libc::SIGILL,
                libc::SIGFPE,
                libc::SIGABRT,
            ] {
                libc::signal(sig, libc::SIG_DFL);
            }
            if errfd >= 0 {
                libc::dup2(errfd, 2);
            }
            let fd = fds[1];
            let mut replied = false;
            job(&mut |status, bytes| {
                let mut header = [0u8; 9];
                header[0] = status;
                header[1..].copy_from_slice(&(bytes.len() as u64).to_le_bytes());
                for part in [&header[..], bytes] {
                    let mut off = 0;
                    while off < part.len() {
                        let n = libc::write(fd, part[off..].as_ptr().cast(), part.len() - off);
                        if n <= 0 {
                            libc::_exit(3);
                        }
                        off += n as usize;
                    }
                }
                replied = true;
            });
            libc::_exit(if replied { 0 } else { 3 });
        }
        libc::close(fds[1]);
        beside();
        // Each reply: its header, then its body read straight into a buffer of its announced
        // size (no zeroing pass over a buffer of model size).
        let mut parts = 0;
        let mut complete = true;
        loop {
            let mut header = [0u8; 9];
            let got = read_full(fds[0], header.as_mut_ptr(), header.len());
            if got == 0 {
                break;
            }
            let len = u64::from_le_bytes(header[1..].try_into().unwrap_or_default());
            let Ok(len) = usize::try_from(len) else {
                complete = false;
                break;
            };
            if got != header.len() {
                complete = false;
                break;
            }
            let mut body = Vec::new();
            body.reserve_exact(len);
            let spare = body.spare_capacity_mut();
            let n = read_full(fds[0], spare.as_mut_ptr().cast(), len);
            // SAFETY: `read_full` initialised the first `n` bytes.
            body.set_len(n);
            if n != len {
                complete = false;
                break;
            }
            parts += 1;
            on_part(header[0], body);
        }
        libc::close(fds[0]);
        let mut wstatus = 0;
        while libc::waitpid(pid, &mut wstatus, 0) < 0 {
            if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                return Err(sys("waitpid"));
            }
        }
        let stderr = read_memfd(errfd);
        if libc::WIFEXITED(wstatus) && libc::WEXITSTATUS(wstatus) == 0 && complete && parts > 0 {
            return Ok(parts);
        }
        let how = if libc::WIFSIGNALED(wstatus) {
            format!("signal {}", libc::WTERMSIG(wstatus))
        } else {
            format!("exit status {}", libc::WEXITSTATUS(wstatus))
        };
        let detail = stderr.trim();
        Err(Error::Crashed(if detail.is_empty() {
            how
        } else {
            format!(
                "{how}: {}",
                detail.lines().take(3).collect::<Vec<_>>().join(" / ")
            )
        }))
    }
}

/// Reads `len` bytes to `buf` or until the pipe ends; how many bytes it got.
unsafe fn read_full(fd: i32, buf: *mut u8, len: usize) -> usize {
    let mut off = 0;
    while off < len {
        let n = libc::read(fd, buf.add(off).cast(), len - off);
        if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        if n <= 0 {
            break;
        }
        off += n as usize;
    }
    off
}

/// The captured stderr of the child (and closes the memfd).
unsafe fn read_memfd(fd: i32) -> String {
    if fd < 0 {
        return String::new();
    }
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    libc::lseek(fd, 0, libc::SEEK_SET);
    while out.len() < 1 << 16 {
        let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
        if n <= 0 {
            break;
        }
        out.extend_from_slice(&buf[..n as usize]);
    }
    libc::close(fd);
    String::from_utf8_lossy(&out).into_owned()
}
