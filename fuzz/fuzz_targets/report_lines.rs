//! `gk report`'s line reader against the rule it implements: lines are
//! the bytes between `\n`s (a `\r` before a `\n` dropped), each longer
//! than the bound reported by its length only (`\r` included), whatever
//! sizes the reads come in; and every line it hands on goes through the
//! line parser without a panic.
//!
//! Input: a byte for the read size, a byte for the line bound, then the
//! stream.
#![no_main]

use std::io::Read;

use gk::testing::report::{for_each_line, read_line, Line};
use libfuzzer_sys::fuzz_target;

/// A reader that gives at most `step` bytes a call.
struct Trickle<'a>(&'a [u8], usize);

impl Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.0.len().min(self.1).min(out.len());
        out[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

#[derive(Debug, PartialEq)]
enum Want {
    Text(Vec<u8>),
    TooLong(u64),
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let step = usize::from(data[0]) + 1;
    let max_line = usize::from(data[1]);
    let stream = &data[2..];

    let mut want = Vec::new();
    let mut parts: Vec<&[u8]> = stream.split(|b| *b == b'\n').collect();
    if parts.last().is_some_and(|p| p.is_empty()) {
        parts.pop();
    }
    for raw in parts {
        let part = raw.strip_suffix(b"\r").unwrap_or(raw);
        want.push(if part.len() > max_line {
            Want::TooLong(raw.len() as u64)
        } else {
            Want::Text(part.to_vec())
        });
    }

    let mut got = Vec::new();
    for_each_line(
        Trickle(stream, step),
        max_line,
        u64::MAX,
        &mut Vec::new(),
        |l| {
            got.push(match l {
                Line::Text(t) => {
                    let _ = read_line(t);
                    Want::Text(t.to_vec())
                }
                Line::TooLong(n) => Want::TooLong(n),
            })
        },
    )
    .unwrap();
    assert_eq!(got, want);
});
