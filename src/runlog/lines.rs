//! Lines of a file read as a stream: one reusable buffer, byte offsets counted exactly,
//! a line over the limit skipped without being held, and a last line with no newline
//! reported as such so the caller can hold it back.

use std::io::{self, BufRead};

/// How a line ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// A `\n` ended it.
    Newline,
    /// The file ended first: the writer may still be writing it.
    Eof,
}

/// Where a line is, and what became of it. Its bytes (without the `\n`) are in the
/// caller's buffer unless it was too long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineAt {
    /// 1-based.
    pub number: usize,
    /// The byte offset of the line's first byte in the file.
    pub offset: u64,
    pub ending: Ending,
    /// The line's length in bytes, without the `\n`. Over `max`, the buffer is empty.
    pub len: u64,
    pub too_long: bool,
}

impl LineAt {
    /// The offset just past this line (and its `\n`).
    pub fn end(&self) -> u64 {
        self.offset + self.len + u64::from(self.ending == Ending::Newline)
    }
}

pub(crate) struct Lines<R> {
    inner: R,
    offset: u64,
    number: usize,
    max: usize,
}

impl<R: BufRead> Lines<R> {
    /// Lines of `inner`, which starts at byte `offset` of the file, the line before it
    /// being line `number`.
    pub fn new(inner: R, offset: u64, number: usize, max: usize) -> Lines<R> {
        Lines { inner, offset, number, max }
    }

    /// The next line into `buf` (cleared first); `None` at the end of input.
    pub fn next_line(&mut self, buf: &mut Vec<u8>) -> io::Result<Option<LineAt>> {
        buf.clear();
        self.next_line_onto(buf)
    }

    /// The next line appended to `buf` (whose bytes before it are kept): the line's bytes
    /// are `buf[start..]`, `start` being its length before.
    pub fn next_line_onto(&mut self, buf: &mut Vec<u8>) -> io::Result<Option<LineAt>> {
        let start = buf.len();
        let mut len: u64 = 0;
        let mut too_long = false;
        let ending = loop {
            let chunk = match self.inner.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                break Ending::Eof;
            }
            let (take, newline) = match memchr::memchr(b'\n', chunk) {
                Some(i) => (i, true),
                None => (chunk.len(), false),
            };
            if !too_long {
                if buf.len() - start + take > self.max {
                    too_long = true;
                    buf.truncate(start);
                } else {
                    buf.extend_from_slice(&chunk[..take]);
                }
            }
            len += take as u64;
            self.inner.consume(take + usize::from(newline));
            if newline {
                break Ending::Newline;
            }
        };
        if ending == Ending::Eof && len == 0 {
            return Ok(None);
        }
        self.number += 1;
        let at = LineAt { number: self.number, offset: self.offset, ending, len, too_long };
        self.offset = at.end();
        Ok(Some(at))
    }
}

/// The lines of `bytes`, a file's from byte `offset` on, the line before them being line
/// `number`, each as [`Lines`] reads it with where its bytes start in `bytes`: what a file
/// read in one call holds, found without copying a line.
pub(crate) fn lines_of(bytes: &[u8], offset: u64, number: usize, max: usize) -> impl Iterator<Item = (LineAt, usize)> {
    let mut newlines = memchr::memchr_iter(b'\n', bytes);
    let (mut start, mut number) = (0, number);
    std::iter::from_fn(move || {
        let (end, ending) = match newlines.next() {
            Some(end) => (end, Ending::Newline),
            None if start < bytes.len() => (bytes.len(), Ending::Eof),
            None => return None,
        };
        number += 1;
        let len = end - start;
        let at = LineAt { number, offset: offset + start as u64, ending, len: len as u64, too_long: len > max };
        let line = (at, start);
        start = end + 1;
        Some(line)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &[u8], max: usize) -> Vec<(LineAt, Vec<u8>)> {
        let mut lines = Lines::new(io::BufReader::with_capacity(4, input), 0, 0, max);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        while let Some(at) = lines.next_line(&mut buf).unwrap() {
            out.push((at, buf.clone()));
        }
        out
    }

    #[test]
    fn offsets_and_numbers_are_exact_across_buffer_refills() {
        let got = all(b"ab\n\nlonger line\ntail", 64);
        let summary: Vec<_> = got.iter().map(|(a, b)| (a.number, a.offset, a.ending, b.clone())).collect();
        assert_eq!(
            summary,
            vec![
                (1, 0, Ending::Newline, b"ab".to_vec()),
                (2, 3, Ending::Newline, b"".to_vec()),
                (3, 4, Ending::Newline, b"longer line".to_vec()),
                (4, 16, Ending::Eof, b"tail".to_vec()),
            ]
        );
    }

    /// Lines found in bytes read at once are the lines read as a stream.
    #[test]
    fn lines_found_in_a_chunk_are_the_lines_read() {
        for input in [&b"ab\n\nlonger line\ntail"[..], b"", b"\n", b"one\n", b"0123456789\nok\n", b"x"] {
            for max in [5, 64] {
                let read: Vec<LineAt> = all(input, max).into_iter().map(|(at, _)| at).collect();
                let found: Vec<(LineAt, usize)> = lines_of(input, 7, 3, max).collect();
                let offsets = |v: &[LineAt]| {
                    v.iter()
                        .map(|at| LineAt { offset: at.offset + 7, number: at.number + 3, ..*at })
                        .collect::<Vec<_>>()
                };
                assert_eq!(found.iter().map(|(at, _)| *at).collect::<Vec<_>>(), offsets(&read));
                for (at, start) in found {
                    assert_eq!(at.offset, 7 + start as u64);
                }
            }
        }
    }

    #[test]
    fn a_line_over_the_limit_is_measured_not_held() {
        let got = all(b"0123456789\nok\n", 5);
        assert!(got[0].0.too_long && got[0].1.is_empty() && got[0].0.len == 10);
        assert_eq!((got[1].0.offset, got[1].1.as_slice()), (11, b"ok".as_slice()));
    }
}
