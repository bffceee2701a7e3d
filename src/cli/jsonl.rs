//! `extract --jsonl`: the oracle's record for every line of a corpus, made in parallel and
//! printed in the order of the lines.
//!
//! Lines are taken in batches of what has arrived: what a read gives without waiting (a
//! read of a file fills the buffer, a pipe gives what was written), capped in bytes. A
//! batch's records are made on every core, then written in order, so a file is read at the
//! speed of the cores and a slow pipe still gets each record soon after its line.
//!
//! A batch is one buffer of input and a few of output, kept from batch to batch: lines are
//! slices of the input buffer, and the records of a run of lines are written one after
//! another into one output buffer. Memory that a batch frees and the next asks for again
//! would be handed back to the system and faulted in afresh, and a buffer per line grows
//! to the longest line it ever held; either costs more than reading the records.

use std::borrow::Cow;
use std::io::{ErrorKind, Read, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use rayon::prelude::*;

use crate::read::lex;

use super::record::{self, Input, Offsets};

/// A batch is cut here even where more has arrived; a line longer than this makes the
/// input buffer grow to hold it.
const BATCH_BYTES: usize = 8 << 20;
/// Runs of lines per thread in a batch: enough for the threads to even out long and short
/// replies, few enough that each run's output buffer is large and kept.
const RUNS_PER_THREAD: usize = 4;

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
    let mut batch = Batch { buf: vec![0; BATCH_BYTES], filled: 0, first: 1, errors: 0, outs: Vec::new() };
    loop {
        if batch.filled == batch.buf.len() {
            // One line fills the buffer: it grows to hold the line.
            batch.buf.resize(batch.buf.len() * 2, 0);
        }
        let spare = batch.buf.len() - batch.filled;
        let n = match source.read(&mut batch.buf[batch.filled..]) {
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e).with_context(|| format!("reading {input} line {}", batch.first)),
        };
        batch.filled += n;
        let eof = n == 0;
        // A read that gave less than it was asked for gave what had arrived.
        if eof || n < spare || batch.filled >= BATCH_BYTES {
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
        let lines: Vec<&[u8]> = held[..end].split_inclusive(|&b| b == b'\n').collect();
        let per_run = lines.len().div_ceil(rayon::current_num_threads() * RUNS_PER_THREAD).max(1);
        let runs = lines.len().div_ceil(per_run);
        if self.outs.len() < runs {
            self.outs.resize_with(runs, String::new);
        }
        let first = self.first;
        let errors: usize = self.outs[..runs]
            .par_iter_mut()
            .zip(lines.par_chunks(per_run))
            .enumerate()
            .map(|(r, (text, run))| {
                text.clear();
                let n = first + r * per_run;
                run.iter()
                    .enumerate()
                    .map(|(i, line)| usize::from(record_of(n + i, line, offsets, keys, text)))
                    .sum::<usize>()
            })
            .sum();
        for text in &mut self.outs[..runs] {
            out.write_all(text.as_bytes()).context("writing a record")?;
            // A run far larger than most (every candidate of a long reply) is not kept.
            if text.capacity() > 2 * BATCH_BYTES {
                *text = String::new();
            }
        }
        self.errors += errors;
        self.first += lines.len();
        self.buf.copy_within(end..self.filled, 0);
        self.filled -= end;
        if self.buf.len() > BATCH_BYTES && self.filled <= BATCH_BYTES {
            // The line that made it grow is done with.
            self.buf.truncate(BATCH_BYTES);
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
        let long = "y".repeat(BATCH_BYTES + 12345);
        let input = format!(
            "{{\"id\":\"a\",\"text\":\"{{}}\"}}\n{{\"id\":\"long\",\"text\":\"{long} {{\\\"k\\\":1}}\"}}\nnope\n"
        );
        let keys = ["id".to_owned(), "extract_json".to_owned()];
        for step in [usize::MAX, 1 << 20] {
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
