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
    // The lines of a batch, their buffers kept from batch to batch: `held` of them hold it.
    let mut lines: Vec<Vec<u8>> = Vec::new();
    let (mut held, mut first, mut bytes) = (0, 1, 0);
    loop {
        if held == lines.len() {
            lines.push(Vec::new());
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
            let printed: Vec<Option<(String, bool)>> = lines[..held]
                .par_iter()
                .enumerate()
                .map(|(i, line)| record_of(first + i, line, offsets, keys))
                .collect();
            for (text, failed) in printed.into_iter().flatten() {
                errors += usize::from(failed);
                out.write_all(text.as_bytes()).context("writing a record")?;
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

/// The record printed for line `n`, newline included, and whether it is an error line;
/// nothing for a blank line.
fn record_of(n: usize, line: &[u8], offsets: Offsets, keys: Option<&[String]>) -> Option<(String, bool)> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let text = match std::str::from_utf8(line) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(line),
    };
    if lex::trim(&text).is_empty() {
        return None;
    }
    let mut printed = String::new();
    let failed = match Input::parse(&text) {
        Ok(input) => {
            record::write(&mut printed, &input, offsets, keys);
            false
        }
        Err(message) => {
            printed.push_str(&record::error_line(n, &message));
            true
        }
    };
    printed.push('\n');
    Some((printed, failed))
}
