//! gk: Claude Code hooks (prompt, stop, the session check, the status line)
//! and the tool that installs, diagnoses and removes them. Everything is in
//! the library; see `commands::main`.
//!
//! On Linux with glibc the process starts at a C-level `main`, not Rust's: the
//! standard start-up finds the main thread's stack bounds for its overflow
//! guard by reading and parsing `/proc/self/maps`, a sixth of a hook's
//! instructions and a file read on every prompt. What the rest of that
//! start-up does that gk relies on is done here: `SIGPIPE` ignored (a
//! closed pipe is a write error, as everywhere else) and file descriptors
//! 0, 1 and 2 held open (so no file gk opens can become its stdout). A
//! stack overflow is then a plain `SIGSEGV` instead of a message and an
//! abort. Release builds abort on panic, so there is no unwinding to stop
//! at this boundary.

#![cfg_attr(all(target_os = "linux", target_env = "gnu", not(test)), no_main)]

#[cfg(any(not(all(target_os = "linux", target_env = "gnu")), test))]
fn main() -> std::process::ExitCode {
    gk::main()
}

#[cfg(all(target_os = "linux", target_env = "gnu", not(test)))]
#[unsafe(no_mangle)]
extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    start::ignore_sigpipe();
    start::hold_standard_fds();
    std::ffi::c_int::from(gk::main_code())
}

#[cfg(all(target_os = "linux", target_env = "gnu", not(test)))]
mod start {
    use std::os::fd::{AsRawFd, IntoRawFd};

    pub fn ignore_sigpipe() {
        // SAFETY: setting a signal's disposition to "ignore" runs no code
        // of ours in a handler.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        }
    }

    /// Open `/dev/null` until it lands above 2: a closed 0, 1 or 2 is then
    /// `/dev/null`, and the last open (on 3 or above) is closed again.
    pub fn hold_standard_fds() {
        for _ in 0..3 {
            match std::fs::File::open("/dev/null") {
                Ok(f) if f.as_raw_fd() <= 2 => {
                    let _ = f.into_raw_fd();
                }
                _ => return,
            }
        }
    }
}
