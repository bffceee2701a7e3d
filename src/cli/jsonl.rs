//! `extract --jsonl`: the oracle's record for every line of a corpus, made in parallel and
//! printed in the order of the lines.
//!
//! Three stages run at once, so that no core waits on another's work: a thread reads the
//! input into chunks of whole lines, the cores make a chunk's records, and the calling thread
//! writes the chunk before while they do. A chunk is what a read gives without waiting (a
//! read of a file fills the buffer, a pipe gives what was written), capped at 1 MiB, so a
//! slow pipe still gets each record soon after its line.
//!
//! A chunk is one buffer of input, its lines slices of it, and a chunk's records an output
//! buffer per line; all are handed back and used again: memory that a chunk frees and the
//! next asks for again would be handed back to the system and faulted in afresh, which
//! costs more than reading the records.

use std::borrow::Cow;
use std::io::{ErrorKind, IoSlice, Read, Write};
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, SyncSender, TryRecvError};

use anyhow::{Context, Result};
use rayon::prelude::*;

use crate::exact::{js, lex};

use super::record::{self, Input, Offsets};

/// What is read at once, and so the most a chunk holds beside the end of a line carried
/// over: a chunk small enough that its lines, their text and their records stay in the
/// cache while they are made (chunks of 8 MiB were a fifth slower).
const READ: usize = 1 << 20;
/// A buffer's size: a read, and room before it for the end of a line carried over. A
/// buffer that has to grow for it is moved, and memory moved from is handed back to the
/// system and the next buffer faulted in afresh, which costs more than the read: only a
/// line longer than a read grows one.
const BUFFER: usize = 2 * READ;
/// A buffer that grew for a line longer than a read is kept up to this size, for the next
/// such line: replies of a megabyte come many together, and a buffer fresh for each is
/// faulted in afresh.
const KEPT_INPUT: usize = 8 << 20;
/// An output buffer that grew past this (every candidate of a long reply) is not kept.
const KEPT_OUTPUT: usize = 8 << 20;

/// Prints, for each JSONL record `{"id", "text", "fields"?}` of `input` (`-` for stdin),
/// exactly what the reference oracle prints; a line that is not such a record is an error
/// line, and makes the exit status 1.
pub fn run(input: &str, offsets: Offsets, keys: Option<&[String]>, out: &mut dyn Write) -> Result<u8> {
    let source: Box<dyn Read + Send> = if input == "-" {
        Box::new(std::io::stdin())
    } else {
        let path = PathBuf::from(input);
        Box::new(std::fs::File::open(&path).with_context(|| format!("opening {}", path.display()))?)
    };
    records(source, input, offsets, keys, out)
}

/// Gives the pipe standard output is, if it is one, room for a chunk's records (Linux; where
/// the system refuses, or elsewhere, the pipe stays as it was). A pipe holds 64 KiB unless
/// asked, and a chunk's records would go in sixteen turns, the writer waiting each time for
/// the reader at the other end (docs/PERFORMANCE.md, the batch command, has the figures).
pub fn widen_stdout_pipe() {
    #[cfg(target_os = "linux")]
    {
        let room = nix::fcntl::FcntlArg::F_SETPIPE_SZ(READ as nix::libc::c_int);
        let _ = nix::fcntl::fcntl(std::io::stdout(), room);
    }
}

/// Whole lines of input: `buf[..len]`, ending with a newline unless it is the last.
struct Chunk {
    buf: Vec<u8>,
    len: usize,
}

/// [`run`] over `source`, named `input` in errors.
fn records(
    source: impl Read + Send + 'static,
    input: &str,
    offsets: Offsets,
    keys: Option<&[String]>,
    out: &mut dyn Write,
) -> Result<u8> {
    // One chunk waits while one is made: the reader is never more than two ahead.
    let (chunks, read) = mpsc::sync_channel(1);
    let (free, freed) = mpsc::channel();
    // Not joined: a reader blocked on a pipe that never writes again must not keep the
    // command from ending once the output is closed or fails. It ends when its chunks
    // have nowhere to go.
    std::thread::spawn(move || read_chunks(source, &chunks, &freed));
    let mut first = 1;
    let mut errors = 0;
    // The chunk being made and the one being written, swapped after each.
    let (mut making, mut made) = (Records::default(), Records::default());
    loop {
        let chunk = match read.try_recv() {
            Ok(chunk) => chunk,
            // Nothing more has arrived: what is made goes out now, not with the next chunk.
            Err(TryRecvError::Empty) => {
                made.write(out)?;
                out.flush().context("writing a record")?;
                match read.recv() {
                    Ok(chunk) => chunk,
                    Err(_) => break,
                }
            }
            Err(TryRecvError::Disconnected) => break,
        };
        let chunk: Chunk = chunk.with_context(|| format!("reading {input} line {first}"))?;
        let written = rayon::in_place_scope(|scope| {
            scope.spawn(|_| making.make(&chunk.buf[..chunk.len], first, offsets, keys));
            made.write(out)
        });
        written?;
        let _ = free.send(chunk.buf);
        first += making.lines;
        errors += making.errors;
        std::mem::swap(&mut making, &mut made);
    }
    made.write(out)?;
    Ok(u8::from(errors > 0))
}

/// Reads `source` into chunks of whole lines, sent in order, taking buffers back from
/// `freed` (a line longer than a buffer grows it); a read error is sent last.
fn read_chunks(mut source: impl Read, chunks: &SyncSender<std::io::Result<Chunk>>, freed: &Receiver<Vec<u8>>) {
    // A new buffer is made the size the longest lines so far made one grow to (up to what is
    // kept): grown afresh, each would be copied and faulted in at every size it passed.
    let mut size = BUFFER;
    let fresh = |freed: &Receiver<Vec<u8>>, size: usize| freed.try_recv().unwrap_or_else(|_| vec![0; size]);
    let mut buf = fresh(freed, size);
    let mut filled = 0;
    // Where the one line a full read ended ends, while the next is waited for.
    let mut ended: Option<usize> = None;
    loop {
        if buf.len() - filled < READ {
            // The end of a line carried over is long: the buffer grows to hold the line.
            buf.resize(filled + READ, 0);
            size = size.max(buf.len().min(KEPT_INPUT));
        }
        let n = match source.read(&mut buf[filled..filled + READ]) {
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => {
                let _ = chunks.send(Err(e));
                return;
            }
        };
        let just_read = filled..filled + n;
        filled += n;
        let eof = n == 0;
        // Each read that ends a line makes a chunk: a file gives a buffer's worth, a pipe
        // what has arrived. A full read that ends only one line waits for the next to end
        // too, so that lines longer than a read (replies of a megabyte) are made two at a
        // time, on both cores, not one by one; a pipe's read gives what it holds, short of
        // a buffer, and is a chunk at once. (Only what was just read is searched, so a long
        // line costs one pass.)
        let end = if eof {
            filled
        } else {
            let last = memchr::memrchr(b'\n', &buf[just_read.clone()]).map(|i| just_read.start + i + 1);
            let lines_before =
                ended.is_some() || last.is_some_and(|l| memchr::memchr(b'\n', &buf[just_read.start..l - 1]).is_some());
            match last {
                Some(end) if n < READ || lines_before => end,
                Some(end) => {
                    ended = Some(end);
                    continue;
                }
                None => continue,
            }
        };
        ended = None;
        if end > 0 {
            let mut next = fresh(freed, size);
            if next.len() > KEPT_INPUT {
                // The line that made it grow so far is done with.
                next = vec![0; size];
            }
            let rest = filled - end;
            if next.len() < rest + READ {
                next.resize(rest + READ, 0);
            }
            next[..rest].copy_from_slice(&buf[end..filled]);
            let chunk = Chunk { buf: std::mem::replace(&mut buf, next), len: end };
            filled = rest;
            if chunks.send(Ok(chunk)).is_err() {
                return;
            }
        }
        if eof {
            return;
        }
    }
}

/// A chunk's records: one output buffer per line, kept from chunk to chunk.
#[derive(Default)]
struct Records {
    outs: Vec<String>,
    /// The chunk's lines, and how many were error lines.
    lines: usize,
    errors: usize,
}

impl Records {
    /// Makes the records of `chunk`'s lines, the first numbered `first`, on every core.
    fn make(&mut self, chunk: &[u8], first: usize, offsets: Offsets, keys: Option<&[String]>) {
        // Split with `memchr`: a byte-by-byte split was an eighth of the command's time.
        let mut lines: Vec<&[u8]> = Vec::new();
        let mut from = 0;
        for newline in memchr::memchr_iter(b'\n', chunk) {
            lines.push(&chunk[from..=newline]);
            from = newline + 1;
        }
        if from < chunk.len() {
            lines.push(&chunk[from..]);
        }
        if self.outs.len() < lines.len() {
            self.outs.resize_with(lines.len(), String::new);
        }
        self.lines = lines.len();
        self.errors = self.outs[..lines.len()]
            .par_iter_mut()
            .zip(&lines)
            .enumerate()
            .map(|(i, (text, line))| {
                text.clear();
                usize::from(record_of(first + i, line, offsets, keys, text))
            })
            .sum();
    }

    /// Writes the records made, and forgets them.
    fn write(&mut self, out: &mut dyn Write) -> Result<()> {
        // The chunk's records in one call where the output takes them so (a pipe, a file):
        // a write of each was a call, and a wakeup of the reader at the other end of a pipe,
        // per record. (`Write::write_all_vectored` is not stable: the loop is its own.)
        let mut slices: Vec<IoSlice> =
            self.outs[..self.lines].iter().filter(|t| !t.is_empty()).map(|t| IoSlice::new(t.as_bytes())).collect();
        let mut rest = slices.as_mut_slice();
        while !rest.is_empty() {
            match out.write_vectored(rest) {
                Ok(0) => return Err(std::io::Error::from(ErrorKind::WriteZero)).context("writing a record"),
                Ok(n) => IoSlice::advance_slices(&mut rest, n),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e).context("writing a record"),
            }
        }
        for text in &mut self.outs[..self.lines] {
            // A run far larger than most (every candidate of a long reply) is not kept.
            if text.capacity() > KEPT_OUTPUT {
                *text = String::new();
            }
        }
        self.lines = 0;
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
    // The line's text is no longer than the line.
    js::reserve_recycled(line.len());
    let failed = match Input::parse(&text) {
        Ok(input) => {
            record::write(out, &input, offsets, keys);
            js::recycle(input.text);
            false
        }
        Err(e) => {
            out.push_str(&record::error_line(n, &e.to_string()));
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
    struct Trickle(Vec<u8>, usize, usize);

    impl Trickle {
        fn new(bytes: &[u8], step: usize) -> Trickle {
            Trickle(bytes.to_vec(), 0, step)
        }
    }

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let rest = &self.0[self.1..];
            let n = self.2.min(buf.len()).min(rest.len());
            buf[..n].copy_from_slice(&rest[..n]);
            self.1 += n;
            Ok(n)
        }
    }

    fn printed(source: impl Read + Send + 'static, keys: Option<&[String]>) -> (String, u8) {
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
        let (whole, status) = printed(Trickle::new(input.as_bytes(), usize::MAX), Some(&keys));
        assert_eq!(status, 1, "the error lines make the status 1");
        let lines: Vec<&str> = whole.lines().collect();
        // A record for every line but the blank ones (none for them), and the last.
        let blank = (0..300).filter(|i| i % 7 == 5).count();
        assert_eq!(lines.len(), 300 - blank + 1);
        assert_eq!(lines[0], "{\"id\":\"r0\",\"extract_json\":{\"a\":0}}");
        assert_eq!(lines[3], "{\"id\":4,\"error\":\"not JSON: unexpected token 'o' at byte 1\"}");
        assert_eq!(*lines.last().unwrap(), "{\"id\":\"last\",\"extract_json\":{}}");
        for step in [1, 7, 4096] {
            assert_eq!(
                printed(Trickle::new(input.as_bytes(), step), Some(&keys)),
                (whole.clone(), 1),
                "{step} at a time"
            );
        }
    }

    /// A pipe that gives one line, then the next only once the first's record is out.
    struct Waiting(Vec<&'static [u8]>, mpsc::Receiver<()>);

    impl Read for Waiting {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let Some(line) = self.0.pop() else { return Ok(0) };
            if self.0.is_empty() {
                // The last line waits for the first record, for ten seconds at most.
                self.1
                    .recv_timeout(std::time::Duration::from_secs(10))
                    .map_err(|_| std::io::Error::other("the first record never came"))?;
            }
            buf[..line.len()].copy_from_slice(line);
            Ok(line.len())
        }
    }

    /// An output that says when a record has come.
    struct Told(Vec<u8>, mpsc::Sender<()>);

    impl Write for Told {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.extend_from_slice(buf);
            if buf.contains(&b'\n') {
                let _ = self.1.send(());
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_record_goes_out_before_the_next_line_comes() {
        let (tell, told) = mpsc::channel();
        let source = Waiting(vec![b"{\"id\":2,\"text\":\"{}\"}\n", b"{\"id\":1,\"text\":\"{}\"}\n"], told);
        let mut out = Told(Vec::new(), tell);
        let keys = ["id".to_owned(), "extract_json".to_owned()];
        let status = records(source, "pipe", Offsets::Utf16, Some(&keys), &mut out).unwrap();
        assert_eq!(status, 0);
        assert_eq!(
            String::from_utf8(out.0).unwrap(),
            "{\"id\":1,\"extract_json\":{}}\n{\"id\":2,\"extract_json\":{}}\n"
        );
    }

    /// The lines of each chunk `read_chunks` makes of `source`.
    fn chunked(source: impl Read) -> Vec<usize> {
        let (chunks, made) = mpsc::sync_channel(64);
        let (_free, freed) = mpsc::channel();
        read_chunks(source, &chunks, &freed);
        drop(chunks);
        made.iter().map(|c| c.unwrap()).map(|c| memchr::memchr_iter(b'\n', &c.buf[..c.len]).count()).collect()
    }

    #[test]
    fn lines_longer_than_a_read_are_made_two_at_a_time() {
        let line = format!("{{\"id\":1,\"text\":\"{}\"}}\n", "z".repeat(READ + 10));
        let input = line.repeat(4);
        // A file's reads fill the buffer: two lines to a chunk, for both cores.
        assert_eq!(chunked(Trickle::new(input.as_bytes(), usize::MAX)), [2, 2]);
        // A pipe's reads give what it holds: each line is a chunk as soon as it has come.
        assert_eq!(chunked(Trickle::new(input.as_bytes(), 4096)), [1, 1, 1, 1]);
    }

    #[test]
    fn a_line_longer_than_a_batch_is_read_whole() {
        let long = "y".repeat(8 * READ + 12345);
        let input = format!(
            "{{\"id\":\"a\",\"text\":\"{{}}\"}}\n{{\"id\":\"long\",\"text\":\"{long} {{\\\"k\\\":1}}\"}}\nnope\n"
        );
        let keys = ["id".to_owned(), "extract_json".to_owned()];
        for step in [usize::MAX, 1 << 16] {
            let (out, status) = printed(Trickle::new(input.as_bytes(), step), Some(&keys));
            assert_eq!(
                out,
                "{\"id\":\"a\",\"extract_json\":{}}\n{\"id\":\"long\",\"extract_json\":{\"k\":1}}\n\
                 {\"id\":3,\"error\":\"not JSON: unexpected token 'o' at byte 1\"}\n"
            );
            assert_eq!(status, 1);
        }
    }
}
