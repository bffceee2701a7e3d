//! `extract --jsonl`: the oracle's record for every line of a corpus, made in parallel and
//! printed in the order of the lines.
//!
//! Lines are taken in batches of what has arrived: what a read gives without waiting (a
//! read of a file fills the buffer, a pipe gives what was written), capped at 1 MiB. A
//! batch's records are made on every core, then written in order, so a file is read at the
//! speed of the cores and a slow pipe still gets each record soon after its line.
//!
//! A batch is one buffer of input, its lines slices of it, and an output buffer per line of
//! a batch, all kept from batch to batch: memory that a batch frees and the next asks for
//! again would be handed back to the system and faulted in afresh, which costs more than
//! reading the records. (A buffer per input line, as before, grew to the longest line it
//! ever held: twice the memory.)

use std::borrow::Cow;
use std::io::{ErrorKind, Read, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use rayon::prelude::*;

use crate::read::lex;

use super::record::{self, Input, Offsets};

/// What is read at once, and so the most a batch holds beside the end of a line carried
/// over: a batch small enough that its lines, their text and their records stay in the
/// cache while they are made (batches of 8 MiB were a fifth slower).
const READ: usize = 1 << 20;
/// An output buffer that grew past this (every candidate of a long reply) is not kept.
const KEPT_OUTPUT: usize = 8 << 20;

/// Prints, for each JSONL record `{"id", "text", "fields"?}` of `input` (`-` for stdin),
/// exactly what the reference oracle prints; a line that is not such a record is an error
/// line, and makes the exit status 1.
pub fn run(input: &str, offsets: Offsets, keys: Option<&[String]>, out: &mut dyn Write) -> Result<u8> {
    let source: Box<dyn Read> = if input == "-" {
        Box::new(std::io::stdin())
    } else {
        let path = PathBuf::from(input);
        Box::new(std::fs::File::open(&path).with_context(|| format!("opening {}", path.display()))?)
    };
    records(source, input, offsets, keys, out)
}

/// [`run`] over `source`, named `input` in errors.
fn records(
    mut source: impl Read,
    input: &str,
    offsets: Offsets,
    keys: Option<&[String]>,
    out: &mut dyn Write,
) -> Result<u8> {
    let mut batch = Batch { buf: vec![0; READ], filled: 0, first: 1, errors: 0, outs: Vec::new() };
    loop {
        if batch.buf.len() - batch.filled < READ {
            // The end of a line carried over is long: the buffer grows to hold the line.
            batch.buf.resize(batch.filled + READ, 0);
        }
        let n = match source.read(&mut batch.buf[batch.filled..batch.filled + READ]) {
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e).with_context(|| format!("reading {input} line {}", batch.first)),
        };
        let read = batch.filled..batch.filled + n;
        batch.filled += n;
        // Each read that ends a line is a batch: a file gives a buffer's worth, a pipe what
        // has arrived. (Only what was just read is searched, so a long line costs one pass.)
        let eof = n == 0;
        if eof || memchr::memchr(b'\n', &batch.buf[read]).is_some() {
            batch.records(eof, offsets, keys, out)?;
        }
        if eof {
            break;
        }
    }
    Ok(u8::from(batch.errors > 0))
}

/// The input read so far and the output buffers, kept from batch to batch.
struct Batch {
    buf: Vec<u8>,
    /// `buf[..filled]` is read and not yet made into records.
    filled: usize,
    /// The line number of `buf`'s first line.
    first: usize,
    errors: usize,
    outs: Vec<String>,
}

impl Batch {
    /// Makes and writes the records of the complete lines read (with `eof`, of every line),
    /// and keeps the rest of a line for the next read.
    fn records(&mut self, eof: bool, offsets: Offsets, keys: Option<&[String]>, out: &mut dyn Write) -> Result<()> {
        let held = &self.buf[..self.filled];
        let end = if eof { held.len() } else { memchr::memrchr(b'\n', held).map_or(0, |i| i + 1) };
        if end == 0 {
            return Ok(());
        }
        // Split with `memchr`: a byte-by-byte split was an eighth of the command's time.
        let held = &held[..end];
        let mut lines: Vec<&[u8]> = Vec::new();
        let mut from = 0;
        for newline in memchr::memchr_iter(b'\n', held) {
            lines.push(&held[from..=newline]);
            from = newline + 1;
        }
        if from < held.len() {
            lines.push(&held[from..]);
        }
        if self.outs.len() < lines.len() {
            self.outs.resize_with(lines.len(), String::new);
        }
        let first = self.first;
        let errors: usize = self.outs[..lines.len()]
            .par_iter_mut()
            .zip(&lines)
            .enumerate()
            .map(|(i, (text, line))| {
                text.clear();
                usize::from(record_of(first + i, line, offsets, keys, text))
            })
            .sum();
        for text in &mut self.outs[..lines.len()] {
            out.write_all(text.as_bytes()).context("writing a record")?;
            // A run far larger than most (every candidate of a long reply) is not kept.
            if text.capacity() > KEPT_OUTPUT {
                *text = String::new();
            }
        }
        self.errors += errors;
        self.first += lines.len();
        self.buf.copy_within(end..self.filled, 0);
        self.filled -= end;
        if self.buf.len() > 2 * READ && self.filled < READ {
            // The line that made it grow is done with.
            self.buf.truncate(2 * READ);
            self.buf.shrink_to_fit();
        }
        Ok(())
    }
}

/// Appends to `out` the record printed for line `n`, newline included (nothing for a blank
/// line); whether it is an error line.
fn record_of(n: usize, line: &[u8], offsets: Offsets, keys: Option<&[String]>, out: &mut String) -> bool {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let text = match std::str::from_utf8(line) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(line),
    };
    if lex::trim(&text).is_empty() {
        return false;
    }
    let failed = match Input::parse(&text) {
        Ok(input) => {
            record::write(out, &input, offsets, keys);
            false
        }
        Err(message) => {
            out.push_str(&record::error_line(n, &message));
            true
        }
    };
    out.push('\n');
    failed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gives its bytes a few at a time, as a slow pipe does.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.1.min(buf.len()).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    fn printed(source: impl Read, keys: Option<&[String]>) -> (String, u8) {
        let mut out = Vec::new();
        let status = records(source, "test", Offsets::Utf16, keys, &mut out).unwrap();
        (String::from_utf8(out).unwrap(), status)
    }

    #[test]
    fn every_record_is_printed_in_order_however_the_lines_arrive() {
        let mut input = String::new();
        for i in 0..300 {
            match i % 7 {
                3 => input.push_str("not json\n"),
                5 => input.push('\n'),
                _ => input.push_str(&format!("{{\"id\":\"r{i}\",\"text\":\"x {{\\\"a\\\":{i}}} é\"}}\n")),
            }
        }
        input.push_str("{\"id\":\"last\",\"text\":\"no newline after me {}\"}");
        let keys = ["id".to_owned(), "extract_json".to_owned()];
        let (whole, status) = printed(input.as_bytes(), Some(&keys));
        assert_eq!(status, 1, "the error lines make the status 1");
        let lines: Vec<&str> = whole.lines().collect();
        // A record for every line but the blank ones (none for them), and the last.
        let blank = (0..300).filter(|i| i % 7 == 5).count();
        assert_eq!(lines.len(), 300 - blank + 1);
        assert_eq!(lines[0], "{\"id\":\"r0\",\"extract_json\":{\"a\":0}}");
        assert_eq!(lines[3], "{\"id\":4,\"error\":\"not JSON: unexpected token 'o' at byte 1\"}");
        assert_eq!(*lines.last().unwrap(), "{\"id\":\"last\",\"extract_json\":{}}");
        for step in [1, 7, 4096] {
            assert_eq!(printed(Trickle(input.as_bytes(), step), Some(&keys)), (whole.clone(), 1), "{step} at a time");
        }
    }

    #[test]
    fn a_line_longer_than_a_batch_is_read_whole() {
        let long = "y".repeat(8 * READ + 12345);
        let input = format!(
            "{{\"id\":\"a\",\"text\":\"{{}}\"}}\n{{\"id\":\"long\",\"text\":\"{long} {{\\\"k\\\":1}}\"}}\nnope\n"
        );
        let keys = ["id".to_owned(), "extract_json".to_owned()];
        for step in [usize::MAX, 1 << 16] {
            let (out, status) = printed(Trickle(input.as_bytes(), step), Some(&keys));
            assert_eq!(
                out,
                "{\"id\":\"a\",\"extract_json\":{}}\n{\"id\":\"long\",\"extract_json\":{\"k\":1}}\n\
                 {\"id\":3,\"error\":\"not JSON: unexpected token 'o' at byte 1\"}\n"
            );
            assert_eq!(status, 1);
        }
    }
}
