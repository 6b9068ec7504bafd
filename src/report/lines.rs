//! Physical lines of a transcript, streamed: split on `\n` only (a raw
//! U+2028 inside a record is not a line end), each line at most a bound
//! long. The buffer is a fixed size, grown only to hold the longest line
//! within the bound, so memory does not grow with the file; a longer line
//! is skipped to its end unread and reported as such.

use std::io::Read;

/// How much is asked of the reader at once.
const CHUNK: usize = 256 << 10;

/// What the reader hands on for each physical line.
#[derive(Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// A whole line, without its `\n` (and without a `\r` before it).
    Text(&'a [u8]),
    /// A line longer than the bound: its length (with a `\r` before its
    /// `\n`, if any), never its bytes.
    TooLong(u64),
}

/// Why the stream stopped early.
#[derive(Debug)]
pub enum Stop {
    /// More than the file bound was read: the rest is left unread.
    FileBound,
    Io(std::io::Error),
}

/// Call `each` with every line of `input`, in order; at most `max_line`
/// bytes of one line are held, and at most `max_file` bytes are read.
/// The last line need not end in `\n`. `scratch` is the buffer, kept by
/// the caller from one file to the next: it starts at a fixed size and
/// grows only while a line longer than it is still within the bound.
/// Returns the bytes read.
pub fn for_each_line(
    mut input: impl Read,
    max_line: usize,
    max_file: u64,
    scratch: &mut Vec<u8>,
    mut each: impl FnMut(Line<'_>),
) -> Result<u64, Stop> {
    // Room for the longest line, its `\r` and one byte more (which tells
    // "too long" while the line's end is not yet read).
    let limit = max_line.saturating_add(2).clamp(CHUNK, 64 << 20);
    if scratch.len() < CHUNK {
        scratch.resize(CHUNK, 0);
    }
    let buf = scratch;
    // buf[..held] holds the unfinished line; `skipping` is the length of
    // an overlong line being passed over.
    let mut held = 0usize;
    let mut skipping: Option<u64> = None;
    let mut total = 0u64;
    loop {
        if held == buf.len() {
            if buf.len() < limit {
                // A long line, still within the bound: room for more.
                let grown = buf.len().saturating_mul(2).min(limit);
                buf.resize(grown, 0);
            } else {
                skipping = Some(held as u64);
                held = 0;
            }
        }
        let n = loop {
            match input.read(&mut buf[held..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Stop::Io(e)),
            }
        };
        if n == 0 {
            if let Some(len) = skipping {
                each(Line::TooLong(len + held as u64));
            } else if held > 0 {
                emit(&buf[..held], max_line, &mut each);
            }
            return Ok(total);
        }
        total += n as u64;
        let end = held + n;
        let mut start = 0usize;
        let mut from = held;
        while let Some(i) = memchr::memchr(b'\n', &buf[from..end]) {
            let nl = from + i;
            match skipping.take() {
                Some(len) => each(Line::TooLong(len + (nl - start) as u64)),
                None => emit(&buf[start..nl], max_line, &mut each),
            }
            start = nl + 1;
            from = start;
        }
        if let Some(len) = skipping.as_mut() {
            *len += (end - start) as u64;
            held = 0;
        } else {
            buf.copy_within(start..end, 0);
            held = end - start;
            // One byte over the bound may be the `\r` before the `\n`.
            if held > max_line.saturating_add(1) {
                skipping = Some(held as u64);
                held = 0;
            }
        }
        if total > max_file {
            return Err(Stop::FileBound);
        }
    }
}

fn emit(raw: &[u8], max_line: usize, each: &mut impl FnMut(Line<'_>)) {
    let line = raw.strip_suffix(b"\r").unwrap_or(raw);
    if line.len() > max_line {
        each(Line::TooLong(raw.len() as u64));
    } else {
        each(Line::Text(line));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    fn lines(input: &[u8], step: usize, max_line: usize) -> Vec<String> {
        let mut out = Vec::new();
        for_each_line(
            Trickle(input, step),
            max_line,
            u64::MAX,
            &mut Vec::new(),
            |l| {
                out.push(match l {
                    Line::Text(t) => String::from_utf8_lossy(t).into_owned(),
                    Line::TooLong(n) => format!("<{n}>"),
                })
            },
        )
        .unwrap();
        out
    }

    #[test]
    fn splits_on_newline_only_whatever_the_read_sizes() {
        let input = "a\u{2028}b\nc\r\n\nlast".as_bytes();
        for step in [1, 2, 3, 7, 1000] {
            assert_eq!(
                lines(input, step, 100),
                ["a\u{2028}b", "c", "", "last"],
                "step {step}"
            );
        }
    }

    #[test]
    fn a_line_past_the_bound_is_reported_by_length_only() {
        let mut input = b"ok\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', 700_000));
        input.extend(b"\nafter\n");
        input.extend(std::iter::repeat_n(b'y', 20));
        for step in [1 << 20, 4096, 333] {
            assert_eq!(
                lines(&input, step, 10),
                ["ok", "<700000>", "after", "<20>"],
                "step {step}"
            );
        }
    }

    #[test]
    fn a_line_longer_than_the_buffer_but_within_the_bound_is_whole() {
        let long = "x".repeat(3 * CHUNK + 5);
        let input = format!("a\n{long}\nb");
        for step in [CHUNK, 4096, 1 << 20] {
            let got = lines(input.as_bytes(), step, 4 * CHUNK);
            assert_eq!(got.len(), 3, "step {step}");
            assert!(
                got[0] == "a" && got[1] == long && got[2] == "b",
                "step {step}"
            );
        }
    }

    #[test]
    fn a_line_at_the_bound_split_before_its_crlf_is_whole() {
        for step in [1, 2, 5, 6, 7] {
            assert_eq!(lines(b"abcde\r\nx", step, 5), ["abcde", "x"], "step {step}");
            assert_eq!(lines(b"abcdef\r\nx", step, 5), ["<7>", "x"], "step {step}");
        }
    }

    #[test]
    fn the_file_bound_stops_the_read() {
        let input = vec![b'\n'; 1 << 20];
        let mut n = 0;
        let r = for_each_line(&input[..], 100, 1000, &mut Vec::new(), |_| n += 1);
        assert!(matches!(r, Err(Stop::FileBound)), "{r:?}");
        assert!(n > 0);
    }
}
