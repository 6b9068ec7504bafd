//! The one output and input handle: every command writes through a
//! [`Console`] and reads its answers (the install question, the hooks'
//! event) from it. `commands::main` binds it to the real stdout, stderr and
//! stdin; `testing::run` binds it to buffers. Nothing below `main` touches
//! the process's own handles (`print_stdout` and `print_stderr` are denied
//! for the library, and scripts/check-layers.py refuses `std::io::stdout`
//! and kin outside `src/env.rs` and `src/commands/mod.rs`).

use std::io::{Read, Write};

/// A file's identity (device, inode), to tell whether stdout is a given file.
pub type FileId = (u64, u64);

/// Where a run's output goes and its input comes from.
pub struct Console<'a> {
    pub out: &'a mut dyn Write,
    pub err: &'a mut dyn Write,
    pub input: &'a mut dyn Read,
    /// The regular file stdout writes to, when it is one (Unix; `gk rules >
    /// gk.json`). Asked only by the command that needs it (Unix only:
    /// see `commands::rules`).
    #[cfg_attr(not(unix), allow(dead_code))]
    pub out_file: &'a dyn Fn() -> Option<FileId>,
}

impl Console<'_> {
    /// Write to stdout; a failed write (a closed pipe) is dropped, as the
    /// run has nowhere to say so.
    pub fn out_fmt(&mut self, args: std::fmt::Arguments<'_>) {
        let _ = self.out.write_fmt(args);
    }

    /// Write to stderr; a failed write is dropped.
    pub fn err_fmt(&mut self, args: std::fmt::Arguments<'_>) {
        let _ = self.err.write_fmt(args);
    }

    /// Flush stdout (before a question, before reading stdin).
    pub fn flush(&mut self) {
        let _ = self.out.flush();
    }
}

/// `print!` through a [`Console`].
macro_rules! out {
    ($c:expr, $($arg:tt)*) => {
        $crate::console::Console::out_fmt($c, format_args!($($arg)*))
    };
}

/// `println!` through a [`Console`].
macro_rules! outln {
    ($c:expr) => {
        $crate::console::Console::out_fmt($c, format_args!("\n"))
    };
    ($c:expr, $($arg:tt)*) => {
        $crate::console::Console::out_fmt($c, format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprintln!` through a [`Console`].
macro_rules! errln {
    ($c:expr, $($arg:tt)*) => {
        $crate::console::Console::err_fmt($c, format_args!("{}\n", format_args!($($arg)*)))
    };
}

pub(crate) use {errln, out, outln};
