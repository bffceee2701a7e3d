//! `extract --jsonl`: the oracle's record for every line of a corpus, made in parallel and
//! printed in the order of the lines.
//!
//! Lines are taken in batches of what has arrived: what the reader holds without waiting
//! (a read of a file fills the buffer, a pipe gives what was written), capped in bytes. A
//! batch's records are made on every core, then written in order, so a file is read at the
//! speed of the cores and a slow pipe still gets each record soon after its line.

use std::borrow::Cow;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use rayon::prelude::*;

use crate::read::lex;

use super::record::{self, Input, Offsets};

/// What is read from the input at once, and so the most a batch holds without waiting.
const READ: usize = 1 << 20;
/// A batch is cut here even where more has arrived.
const BATCH_BYTES: usize = 8 << 20;

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
    let mut reader = BufReader::with_capacity(READ, source);
    let mut errors = 0usize;
    // The lines of a batch and their records, in buffers kept from batch to batch (`held` of
    // them hold the batch): memory a batch frees and the next asks for again would be handed
    // back to the system and faulted in afresh, which costs more than reading the records.
    let (mut lines, mut records): (Vec<Vec<u8>>, Vec<String>) = (Vec::new(), Vec::new());
    let (mut held, mut first, mut bytes) = (0, 1, 0);
    loop {
        if held == lines.len() {
            lines.push(Vec::new());
            records.push(String::new());
        }
        let line = &mut lines[held];
        line.clear();
        let n = first + held;
        let read = reader.read_until(b'\n', line).with_context(|| format!("reading {input} line {n}"))?;
        if read > 0 {
            bytes += read;
            held += 1;
        }
        if read == 0 || reader.buffer().is_empty() || bytes >= BATCH_BYTES {
            let failed: Vec<bool> = records[..held]
                .par_iter_mut()
                .zip(&lines[..held])
                .enumerate()
                .map(|(i, (record, line))| record_of(first + i, line, offsets, keys, record))
                .collect();
            for (record, failed) in records[..held].iter_mut().zip(failed) {
                errors += usize::from(failed);
                out.write_all(record.as_bytes()).context("writing a record")?;
                // A record far larger than most (every candidate of a long reply) is not kept.
                if record.capacity() > BATCH_BYTES {
                    *record = String::new();
                }
            }
            first += held;
            (held, bytes) = (0, 0);
        }
        if read == 0 {
            break;
        }
    }
    Ok(u8::from(errors > 0))
}

/// The record printed for line `n`, newline included, into `record` (nothing for a blank
/// line); whether it is an error line.
fn record_of(n: usize, line: &[u8], offsets: Offsets, keys: Option<&[String]>, record: &mut String) -> bool {
    record.clear();
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
            record::write(record, &input, offsets, keys);
            false
        }
        Err(message) => {
            record.push_str(&record::error_line(n, &message));
            true
        }
    };
    record.push('\n');
    failed
}
