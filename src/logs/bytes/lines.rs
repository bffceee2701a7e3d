//! Lines of a file read as a stream: one reusable buffer, byte offsets counted exactly,
//! a line over the limit skipped without being held, and a last line with no newline
//! reported as such so the caller can hold it back.

use std::io::{self, BufRead, Read};

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

/// A file's lines read a block at a time, found where they were read, none copied: each
/// block is the complete lines its reads gave (some `block` bytes; a line begun at its end
/// is carried into the next block, and a line longer than a block makes its block longer),
/// each as [`Lines`] reads it. A line over `max` is skipped without being held: it is among
/// the block's lines, too long, its bytes not in the block.
pub(crate) struct Blocks<R> {
    inner: R,
    /// The file offset of the line under way (carried, or being skipped).
    offset: u64,
    number: usize,
    max: usize,
    block: usize,
    /// The line under way, begun in the last block and not ended.
    carry: Vec<u8>,
    /// The length so far of a line over `max`, being skipped.
    skipping: Option<u64>,
    done: bool,
    /// The bytes read from `inner` so far.
    read: u64,
}

impl<R: Read> Blocks<R> {
    /// Blocks of `inner`, which starts at byte `offset` of the file, the line before it
    /// being line `number`.
    pub fn new(inner: R, offset: u64, number: usize, max: usize, block: usize) -> Blocks<R> {
        Blocks { inner, offset, number, max, block, carry: Vec::new(), skipping: None, done: false, read: 0 }
    }

    /// The bytes read from the input so far.
    pub fn read(&self) -> u64 {
        self.read
    }

    /// The next block: its lines' bytes into `bytes`, each line and where its bytes start
    /// into `lines` (both cleared first). False at the end of input.
    pub fn next_block(&mut self, bytes: &mut Vec<u8>, lines: &mut Vec<(LineAt, usize)>) -> io::Result<bool> {
        bytes.clear();
        lines.clear();
        bytes.extend_from_slice(&self.carry);
        self.carry.clear();
        // `bytes[line..]` is the line under way; newlines are searched for from `searched`.
        let (mut line, mut searched) = (0, bytes.len());
        while !self.done && (lines.is_empty() || bytes.len() < self.block) {
            let read = loop {
                match (&mut self.inner).take(self.block as u64).read_to_end(bytes) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    other => break other?,
                }
            };
            self.done = read == 0;
            self.read += read as u64;
            while let Some(newline) = memchr::memchr(b'\n', &bytes[searched..]).map(|i| searched + i) {
                let skipped = self.skipping.take();
                let len = skipped.unwrap_or(0) + (newline - line) as u64;
                self.number += 1;
                let at = LineAt {
                    number: self.number,
                    offset: self.offset,
                    ending: Ending::Newline,
                    len,
                    too_long: len > self.max as u64,
                };
                self.offset = at.end();
                lines.push((at, line));
                if at.too_long {
                    bytes.drain(line..=newline);
                } else {
                    line = newline + 1;
                }
                searched = line;
            }
            searched = bytes.len();
            let under_way = (bytes.len() - line) as u64;
            if self.skipping.is_some() || under_way > self.max as u64 {
                *self.skipping.get_or_insert(0) += under_way;
                bytes.truncate(line);
                searched = line;
            }
        }
        if self.done {
            // The last line, with no newline.
            let len = self.skipping.take().unwrap_or(0) + (bytes.len() - line) as u64;
            if len > 0 {
                self.number += 1;
                let at = LineAt {
                    number: self.number,
                    offset: self.offset,
                    ending: Ending::Eof,
                    len,
                    too_long: len > self.max as u64,
                };
                self.offset = at.end();
                lines.push((at, line));
            }
        } else {
            self.carry.extend_from_slice(&bytes[line..]);
            bytes.truncate(line);
        }
        Ok(!lines.is_empty())
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

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config { cases: 2000, ..Default::default() })]
        /// Lines read a block at a time are the lines read as a stream, whatever the blocks'
        /// size and the longest line held.
        #[test]
        fn lines_read_in_blocks_are_the_lines_read(
            lines in proptest::collection::vec((0usize..40, proptest::bool::ANY), 0..30),
            last in proptest::bool::ANY,
            max in 1usize..30,
            block in 1usize..50,
        ) {
            let mut input = Vec::new();
            for (i, (len, blank)) in lines.iter().enumerate() {
                input.extend(std::iter::repeat_n(if *blank { b' ' } else { b'a' + (i % 26) as u8 }, *len));
                input.push(b'\n');
            }
            if last {
                input.extend_from_slice(b"tail");
            }
            let want = all(&input, max);
            let mut blocks = Blocks::new(&input[..], 5, 2, max, block);
            let (mut bytes, mut found) = (Vec::new(), Vec::new());
            let mut got = Vec::new();
            while blocks.next_block(&mut bytes, &mut found).unwrap() {
                for (at, start) in &found {
                    let held = if at.too_long { Vec::new() } else { bytes[*start..*start + at.len as usize].to_vec() };
                    got.push((*at, held));
                }
            }
            let want: Vec<_> = want.into_iter().map(|(at, b)| (LineAt { offset: at.offset + 5, number: at.number + 2, ..at }, b)).collect();
            proptest::prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn a_line_over_the_limit_is_measured_not_held() {
        let got = all(b"0123456789\nok\n", 5);
        assert!(got[0].0.too_long && got[0].1.is_empty() && got[0].0.len == 10);
        assert_eq!((got[1].0.offset, got[1].1.as_slice()), (11, b"ok".as_slice()));
    }
}
