//! The floor under the session check's figure with many plugins, for
//! scripts/bench-hooks.sh: a process that does nothing but read the files
//! given as arguments, each with the fewest system calls Rust's std allows
//! (open, fstat, one read, close), and exits. The session check reads at
//! least these files; what it costs beyond this process is gk's own work.
//! Not part of the gk crate: compiled on its own with rustc.
//!
//! Usage: bench-read FILE…

use std::io::Read;

fn main() {
    let mut total = 0usize;
    for path in std::env::args_os().skip(1) {
        let Ok(mut f) = std::fs::File::open(&path) else { continue };
        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
        let mut buf = vec![0u8; usize::try_from(len).unwrap_or(0) + 1];
        total += f.read(&mut buf).unwrap_or(0);
    }
    // Used, so the reads cannot be optimised away.
    std::process::exit(i32::from(total == usize::MAX));
}
