//! The incremental JSONL reader: a file read line by line, from where the last read stopped,
//! across as many reads as a tail makes. A last line with no newline is held back until it
//! is a whole record (its writer may be in the middle of it). A listing gathers complete lines
//! into batches and reads each batch on every core while the next is gathered; each line is
//! skimmed (its long strings measured, not copied) where that is exact, else read whole.
//!
//! This is the loader's hot path: a 1 GB campaign is read through here.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::mpsc;

use rayon::prelude::*;
use serde_json::Value;

use crate::logs::bytes::json::{cut_short, parse_line};
use crate::logs::bytes::lines::{Blocks, Ending, LineAt, lines_of};
use crate::logs::bytes::nan;
use crate::logs::bytes::skim;
use crate::logs::formats::record::Record;
use crate::logs::formats::{self, Shape, classify, unknown};
use crate::logs::model::diagnostic::{Diagnostic, Offer, Problem};
use crate::logs::model::options::LoadOptions;
use crate::logs::model::reply::{Event, FileOut, Format, Item, Listed, Reply, reference};
use crate::logs::model::written::Measured;
use crate::logs::model::written::Written;
use crate::logs::pipeline::{ContextIndex, Out, RunLog};

/// What reading lines asks of the loader whose file it reads.
pub(crate) trait Host {
    fn options(&self) -> &LoadOptions;
    /// Whether the load was told to stop: no line is read past the one under way.
    fn stopped(&self) -> bool;
    /// A run log's reader, with what the campaign around `path` says about it.
    fn run_log(&self, path: &Path, tail: bool, emit: &mut dyn FnMut(FileOut)) -> RunLog;
    /// The reply or event one record of `shape` gives (several, for a record of many
    /// calls), or what is wrong with it. `base` names the record, for the ids of the calls
    /// inside it.
    fn convert(&self, path: &Path, value: Value, shape: Shape, base: &str) -> Record;
}

/// One file read line by line, across as many reads as a tail makes.
#[derive(Debug)]
pub(crate) struct JsonlReader {
    /// Where the next read starts: just past the last line read.
    offset: u64,
    /// The number of the last line read.
    line: usize,
    /// The last line read had no newline (it was a whole record already); the newline
    /// that completes it is not a new line.
    pending_newline: bool,
    run_log: Option<RunLog>,
    problems: usize,
    suppressed: usize,
    tail: bool,
    /// Read only the line that starts here (a reply read again, [`crate::logs::Locator`]).
    only: Option<u64>,
    /// A listing: lines are skimmed ([`skim`]), a batch at a time in parallel.
    list: bool,
    /// Lines skimmed and listed, lines skimmed in vain (read whole after all), and lines
    /// read whole (as `Value`s).
    skimmed: usize,
    skim_misses: usize,
    whole: usize,
    /// A record of no known shape has offered its likeliest text's `--text-path`: the
    /// file's others do not again.
    offered: bool,
    limits: Limits,
    /// The bytes read from the file, every pass counted.
    read_bytes: u64,
}

/// The sizes a read works in: the constants below, but in tests, where a small file takes
/// the paths of a large one.
#[derive(Debug, Clone, Copy)]
struct Limits {
    /// [`CHUNK_BYTES`].
    chunk: u64,
    /// [`BATCH_BYTES`].
    block: usize,
    /// [`HELD_MOST`].
    held: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { chunk: CHUNK_BYTES, block: BATCH_BYTES, held: HELD_MOST }
    }
}

/// The bytes of lines read at a time (a block) from a file too long to read in one call.
const BATCH_BYTES: usize = 4 << 20;
/// A run log's first pass reads smaller blocks: each is searched where it was read, while
/// it is still in the core's cache.
const FIRST_PASS_BYTES: usize = 256 << 10;
/// The rest of a file, from where a read starts, is read in one call where it is at most
/// this long: a run log's two passes, and the lines' batch, are made over that one read,
/// with no line copied. Longer, it is read a block at a time: a run log twice, but by a
/// listing ([`JsonlReader::read_once`]) or a load that shows no forward context.
const CHUNK_BYTES: u64 = crate::logs::ahead::ALONE_BYTES;
/// The most of a thread's scratch for decoding, and of its buffer for a chunk, kept between
/// lines and files.
const SCRATCH_KEPT: usize = 1 << 20;
const CHUNK_KEPT: usize = 16 << 20;

thread_local! {
    /// A thread's buffer for the chunks it reads: kept, so that a campaign's files are not
    /// each read into memory faulted in afresh, within reason.
    static CHUNK: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Complete lines to be read in parallel, in the bytes of the file as they were read (a
/// block, or the chunk that is the rest of the file).
#[derive(Default)]
struct Batch {
    bytes: Vec<u8>,
    /// Each line, and where its bytes start.
    lines: Vec<(LineAt, usize)>,
    /// Of a run log whose lines are read before their context is known (a chunk read whole,
    /// a log read once, [`JsonlReader::read_once`]): the forward context its lines hold,
    /// found from what they are read into.
    context: Option<ContextIndex>,
}

impl Batch {
    fn line(&self, i: usize) -> &[u8] {
        let (at, start) = &self.lines[i];
        &self.bytes[*start..*start + at.len as usize]
    }

    /// Its lines read, in parallel, and their forward context found where it is asked for:
    /// in the lines whose values may be context, which are all a first pass would read
    /// ([`ContextIndex::scan_line`]).
    fn prepare(&mut self, how: How) -> Vec<Prepared> {
        let prepared = self.prepare_lines(how);
        if let Some(context) = &mut self.context {
            for (i, p) in prepared.iter().enumerate() {
                if p.may_be_context() {
                    let (at, start) = &self.lines[i];
                    context.scan_line(at.number, &self.bytes[*start..*start + at.len as usize]);
                }
            }
        }
        prepared
    }

    fn prepare_lines(&self, how: How) -> Vec<Prepared> {
        thread_local! {
            /// Where a thread decodes long strings: kept, so that it is not grown afresh
            /// for every line, within reason.
            static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        (0..self.lines.len())
            .into_par_iter()
            .map(|i| {
                SCRATCH.with_borrow_mut(|scratch| {
                    let prepared = prepare(self.line(i), &self.lines[i].0, how, scratch);
                    scratch.clear();
                    scratch.shrink_to(SCRATCH_KEPT);
                    prepared
                })
            })
            .collect()
    }
}

/// A file's blocks: the one being read from the file, and the one before it, its lines being
/// read in parallel meanwhile.
#[derive(Default)]
struct Batches {
    gathering: Batch,
    reading: Option<mpsc::Receiver<(Batch, Vec<Prepared>)>>,
}

/// How a batch's lines are read.
#[derive(Debug, Clone, Copy)]
struct How {
    /// For a listing: long strings are measured, not held.
    list: bool,
    /// Lines with long strings are skimmed.
    skims: bool,
}

/// A line as the parallel part of reading leaves it.
enum Prepared {
    /// Skimmed for a listing: the small line's value, and its long strings' measures.
    Skimmed(Value, Vec<Measured>),
    /// Skimmed for a load: the line's value, its long strings decoded straight into it.
    Loaded(Value),
    Whole(Result<(Value, Option<Problem>), Problem>),
}

impl Prepared {
    /// Whether the line may be a run log's forward context, as its value says: a record of
    /// one of the kinds a first pass reads, or one that is not an object, or none read.
    fn may_be_context(&self) -> bool {
        match self {
            Prepared::Skimmed(value, _) | Prepared::Loaded(value) | Prepared::Whole(Ok((value, _))) => {
                ContextIndex::may_be_context(value)
            }
            Prepared::Whole(Err(_)) => true,
        }
    }
}

/// Reads `line`: skimmed where `how` says and it can be, else whole.
fn prepare(line: &[u8], at: &LineAt, how: How, scratch: &mut Vec<u8>) -> Prepared {
    // A line shorter than a long string holds none.
    if how.skims && line.len() >= skim::LONG {
        if !how.list {
            if let Some(value) = skim::load(line, scratch) {
                return Prepared::Loaded(value);
            }
        } else if let Some(s) = skim::skim(line, scratch)
            && let Ok(value) = nan::parse(&s.small)
        {
            return Prepared::Skimmed(value, s.long);
        }
    }
    Prepared::Whole(parse_line(line, at))
}

impl JsonlReader {
    pub(crate) fn new(tail: bool) -> JsonlReader {
        JsonlReader {
            offset: 0,
            line: 0,
            pending_newline: false,
            run_log: None,
            problems: 0,
            suppressed: 0,
            tail,
            only: None,
            list: false,
            skimmed: 0,
            skim_misses: 0,
            whole: 0,
            offered: false,
            limits: Limits::default(),
            read_bytes: 0,
        }
    }

    /// Where the next read starts: just past the last line read.
    pub(crate) fn offset(&self) -> u64 {
        self.offset
    }

    /// Lines are read for a listing from now on: replies whose texts lines hold are listed,
    /// their texts measured, not held.
    pub(crate) fn listing(&mut self) {
        self.list = true;
    }

    /// The file is a run log, read with what its campaign says about it.
    pub(crate) fn reads_a_run_log(&mut self, run_log: RunLog) {
        self.run_log = Some(run_log);
    }

    /// The next read reads the one line at byte `offset`, line number `line`, alone.
    pub(crate) fn one_line(&mut self, offset: u64, line: usize) {
        self.offset = offset;
        self.line = line.saturating_sub(1);
        self.only = Some(offset);
    }

    /// Whether the line at `offset` is past what this read is to read.
    fn past(&self, offset: u64) -> bool {
        self.only.is_some_and(|only| offset > only)
    }

    pub(crate) fn problem(&mut self, opts: &LoadOptions, d: Diagnostic, emit: &mut dyn FnMut(FileOut)) {
        self.problems += 1;
        if self.problems <= opts.max_problems_per_file {
            emit(FileOut::Item(Item::Diagnostic(d)));
        } else {
            self.suppressed += 1;
        }
    }

    pub(crate) fn finish(&mut self, path: &Path, emit: &mut dyn FnMut(FileOut)) {
        if self.suppressed > 0 {
            let d = Diagnostic::new(path, Problem::TooManyProblems { count: self.suppressed });
            emit(FileOut::Item(Item::Diagnostic(d)));
            self.suppressed = 0;
        }
        if self.tail {
            self.problems = 0;
        }
    }

    /// Reads every complete line from `offset` on, and pushes what they hold.
    pub(crate) fn read(&mut self, host: &dyn Host, path: &Path, file: &File, emit: &mut dyn FnMut(FileOut)) {
        if let Err(e) = self.read_lines(host, path, file, emit) {
            let d = Diagnostic::new(path, Problem::from_io(&e, true)).at_offset(self.offset);
            emit(FileOut::Item(Item::Diagnostic(d)));
        }
        self.finish(path, emit);
    }

    fn read_lines(
        &mut self,
        host: &dyn Host,
        path: &Path,
        mut file: &File,
        emit: &mut dyn FnMut(FileOut),
    ) -> io::Result<()> {
        if self.pending_newline {
            file.seek(SeekFrom::Start(self.offset))?;
            let mut b = [0u8; 1];
            if file.read(&mut b)? == 0 {
                return Ok(());
            }
            self.pending_newline = false;
            if b[0] == b'\n' {
                self.offset += 1;
            }
        }
        let rest = file.metadata()?.len().saturating_sub(self.offset);
        let chunk_most = self.limits.chunk;
        if self.only.is_none() && rest <= chunk_most {
            let mut chunk = CHUNK.with_borrow_mut(std::mem::take);
            file.seek(SeekFrom::Start(self.offset))?;
            // What the file holds now: it may have grown since it was looked at.
            let read = file.take(2 * chunk_most).read_to_end(&mut chunk);
            self.read_bytes += chunk.len() as u64;
            if read.is_ok() && (chunk.len() as u64) < 2 * chunk_most {
                let mut batch = Batch { bytes: chunk, ..Batch::default() };
                self.read_chunk(host, path, &mut batch, emit);
                if batch.bytes.capacity() <= CHUNK_KEPT {
                    batch.bytes.clear();
                    CHUNK.with_borrow_mut(|kept| *kept = batch.bytes);
                }
                return Ok(());
            }
            read?;
        }
        self.read_blocks(host, path, file, emit)
    }

    /// The lines of `batch.bytes`, the file from where this read starts, read in one call:
    /// a run log's first pass over them, then each complete line gathered, read in parallel
    /// and pushed.
    fn read_chunk(&mut self, host: &dyn Host, path: &Path, batch: &mut Batch, emit: &mut dyn FnMut(FileOut)) {
        let mut lines: Vec<(LineAt, usize)> =
            lines_of(&batch.bytes, self.offset, self.line, host.options().max_line).collect();
        if let Some(run_log) = &mut self.run_log {
            // A last line cut short is not read, by either pass, until it is whole.
            if lines.last().is_some_and(|(at, start)| at.ending == Ending::Eof && !holds(&batch.bytes, at, *start)) {
                lines.pop();
            }
            run_log.index.clear();
            if host.options().forward_context {
                // Where every line is a complete one of the batch, read in parallel before
                // any is pushed, their context is found from what they are read into
                // (`Batch::prepare`), the index sealed as they are pushed; else first.
                if lines.iter().all(|(at, _)| !at.too_long && at.ending == Ending::Newline) {
                    batch.context = Some(ContextIndex::default());
                } else {
                    run_log.index.scan_lines(&batch.bytes, &lines);
                }
            }
            run_log.index.seal();
        }
        self.read_in_place(host, path, batch, lines, emit);
    }

    /// Reads and pushes `lines`, the lines of `batch.bytes`: the complete ones gathered and
    /// read in parallel, the others alone in their place. False where reading stops.
    fn read_in_place(
        &mut self,
        host: &dyn Host,
        path: &Path,
        batch: &mut Batch,
        lines: Vec<(LineAt, usize)>,
        emit: &mut dyn FnMut(FileOut),
    ) -> bool {
        let how = self.how();
        batch.lines.clear();
        for (at, start) in lines {
            if host.stopped() {
                return false;
            }
            let line = start..start + if at.too_long { 0 } else { at.len as usize };
            if !at.too_long && at.ending == Ending::Newline && !self.past(at.offset) {
                self.advance(&at);
                if !batch.bytes[line].iter().all(u8::is_ascii_whitespace) {
                    batch.lines.push((at, start));
                }
                continue;
            }
            // Read alone, once the lines before it have gone.
            self.push_batch(host, path, batch, how, emit);
            let buf = batch.bytes[line].to_vec();
            if !self.alone(host, path, &buf, at, emit) {
                return false;
            }
        }
        self.push_batch(host, path, batch, how, emit);
        true
    }

    /// Reads and pushes the lines a batch has gathered.
    fn push_batch(&mut self, host: &dyn Host, path: &Path, batch: &mut Batch, how: How, emit: &mut dyn FnMut(FileOut)) {
        if !batch.lines.is_empty() {
            let prepared = batch.prepare(how);
            self.push_prepared(host, path, batch, prepared, emit);
            batch.lines.clear();
        }
    }

    /// The lines from `offset` on, of a file too long to read in one call, read a block at
    /// a time, each block read in parallel while the next is read. A run log's forward
    /// context is found first, in a pass of its own, but where a listing reads it once
    /// ([`JsonlReader::read_once`]).
    fn read_blocks(
        &mut self,
        host: &dyn Host,
        path: &Path,
        mut file: &File,
        emit: &mut dyn FnMut(FileOut),
    ) -> io::Result<()> {
        let max = host.options().max_line;
        // A line read again alone needs no more than a small block.
        let block = if self.only.is_some() { 1 << 16 } else { self.limits.block };
        let mut held = None;
        if self.reads_once(host) {
            let mut outs = Vec::new();
            file.seek(SeekFrom::Start(self.offset))?;
            let read = self.read_once(host, path, file, &mut outs);
            if !matches!(read, Ok(Once::Over)) {
                self.release(host, outs, emit);
                return read.map(|_| ());
            }
            held = Some(outs);
        }
        // The first pass of a run log: forward context, and where this read ends. A load
        // that shows no forward context needs none (a last line cut short is read by neither
        // pass).
        let mut end = None;
        let first = host.options().forward_context || self.only.is_some();
        if let Some(run_log) = self.run_log.as_mut().filter(|_| held.is_none()) {
            run_log.index.clear();
        }
        if let Some(run_log) = self.run_log.as_mut().filter(|_| first) {
            let rest = file.metadata()?.len().saturating_sub(self.offset);
            let last = match self.only {
                None if rest >= SPLIT_BYTES && rayon::current_num_threads() > 1 => {
                    let parts = rayon::current_num_threads() as u64;
                    first_pass_split(file, self.offset, rest, parts, self.line, max, &mut run_log.index)?
                }
                only => {
                    file.seek(SeekFrom::Start(self.offset))?;
                    let to = Bounds { to: None, only };
                    let (last, _, read) = first_pass(file, self.offset, self.line, to, max, &mut run_log.index)?;
                    (last, read)
                }
            };
            let (last, read) = last;
            self.read_bytes += read;
            run_log.index.seal();
            end = Some(last);
        }
        if let Some(outs) = held {
            self.release(host, outs, emit);
        }
        file.seek(SeekFrom::Start(self.offset))?;
        let input: Box<dyn Read + '_> = match end {
            Some(end) => Box::new(file.take(end.saturating_sub(self.offset))),
            None => Box::new(file),
        };
        self.read_through(host, path, Blocks::new(input, self.offset, self.line, max, block), None, emit)?;
        Ok(())
    }

    /// Whether a read reads a run log's lines once, finding their forward context as it
    /// goes: a listing from the start of a file, whose lines it reads to its end. A tail's
    /// context amends what it has pushed, and a line read again alone is read as before.
    fn reads_once(&self, host: &dyn Host) -> bool {
        self.list
            && !self.tail
            && self.only.is_none()
            && self.offset == 0
            && self.run_log.is_some()
            && host.options().forward_context
    }

    /// A run log read once: its lines read as [`JsonlReader::read_through`] reads them,
    /// their forward context found in each block as it is read, and what they give held in
    /// `outs` until the context is whole. Past [`HELD_MOST`] held, it stops after a block,
    /// so that a log of any length is held within bounds.
    fn read_once(&mut self, host: &dyn Host, path: &Path, file: &File, outs: &mut Vec<FileOut>) -> io::Result<Once> {
        if let Some(run_log) = &mut self.run_log {
            run_log.index.clear();
            run_log.hold();
        }
        let blocks = Blocks::new(file, self.offset, self.line, host.options().max_line, self.limits.block);
        let (held, most) = (std::cell::Cell::new(0), self.limits.held);
        let full = || held.get() >= most;
        let whole = self.read_through(host, path, blocks, Some(&full), &mut |out| {
            held.set(held.get() + 1);
            outs.push(out);
        })?;
        Ok(if whole { Once::Whole } else { Once::Over })
    }

    /// Pushes what a run log read once has held, given its forward context: its index,
    /// sealed, is whole for the lines read.
    fn release(&mut self, host: &dyn Host, mut outs: Vec<FileOut>, emit: &mut dyn FnMut(FileOut)) {
        if let Some(run_log) = &mut self.run_log {
            run_log.index.seal();
            run_log.settle(outs.iter_mut().filter_map(FileOut::line_and_meta));
        }
        for out in outs {
            if host.stopped() {
                break;
            }
            emit(out);
        }
    }

    /// Reads and pushes the lines of `blocks`, each block read in parallel while the next is
    /// read. Where `full` is given, the lines of each block are a run log's first pass too
    /// (read once), and reading stops after a block once `full` says so. False where it
    /// stopped so, with every line before pushed; true where it read to the end (or was
    /// told to stop).
    fn read_through(
        &mut self,
        host: &dyn Host,
        path: &Path,
        mut blocks: Blocks<impl Read>,
        full: Option<&dyn Fn() -> bool>,
        emit: &mut dyn FnMut(FileOut),
    ) -> io::Result<bool> {
        let read = self.read_blocks_of(host, path, &mut blocks, full, emit);
        self.read_bytes += blocks.read();
        read
    }

    /// [`JsonlReader::read_through`], the bytes read counted by `blocks`.
    fn read_blocks_of(
        &mut self,
        host: &dyn Host,
        path: &Path,
        blocks: &mut Blocks<impl Read>,
        full: Option<&dyn Fn() -> bool>,
        emit: &mut dyn FnMut(FileOut),
    ) -> io::Result<bool> {
        let mut batches = Batches::default();
        let mut lines = Vec::new();
        loop {
            if host.stopped() {
                break;
            }
            if full.is_some_and(|full| full()) {
                self.drain(host, path, &mut batches, emit);
                return Ok(false);
            }
            let batch = &mut batches.gathering;
            let read = match blocks.next_block(&mut batch.bytes, &mut lines) {
                Ok(read) => read,
                Err(e) => {
                    self.drain(host, path, &mut batches, emit);
                    return Err(e);
                }
            };
            if !read {
                break;
            }
            let only = self.only;
            let complete = lines
                .iter()
                .all(|(at, _)| !at.too_long && at.ending == Ending::Newline && only.is_none_or(|o| at.offset <= o));
            if !complete {
                // A line to be read alone: the blocks before go first, then this one in place.
                let lines = std::mem::take(&mut lines);
                let mut batch = std::mem::take(&mut batches.gathering);
                self.drain(host, path, &mut batches, emit);
                if full.is_some()
                    && let Some(run_log) = &mut self.run_log
                {
                    run_log.index.scan_lines(&batch.bytes, &lines);
                }
                let go_on = self.read_in_place(host, path, &mut batch, lines, emit);
                batches.gathering = batch;
                if !go_on {
                    break;
                }
                continue;
            }
            if let Some((at, _)) = lines.last() {
                self.advance(at);
            }
            batch.lines.clear();
            batch.lines.extend(lines.drain(..).filter(|(at, start)| {
                !batch.bytes[*start..*start + at.len as usize].iter().all(u8::is_ascii_whitespace)
            }));
            if full.is_some() && self.run_log.is_some() {
                batch.context = Some(ContextIndex::default());
            }
            self.send(host, path, &mut batches, emit);
        }
        self.drain(host, path, &mut batches, emit);
        Ok(true)
    }

    /// A line that is not a complete one of a batch, read alone: past what this read is to
    /// read, too long, blank, or the last, with no newline. False where reading stops here.
    fn alone(&mut self, host: &dyn Host, path: &Path, buf: &[u8], at: LineAt, emit: &mut dyn FnMut(FileOut)) -> bool {
        let opts = host.options();
        if self.past(at.offset) {
            return false;
        }
        if at.too_long {
            if at.ending == Ending::Eof {
                return false;
            }
            self.advance(&at);
            let d = Diagnostic::new(path, Problem::LineTooLong { len: at.len, max: opts.max_line })
                .at_line(at.number, at.offset);
            self.problem(opts, d, emit);
            return true;
        }
        let blank = buf.iter().all(u8::is_ascii_whitespace);
        if at.ending == Ending::Eof {
            // A last line with no newline is held back until it is a whole record: the
            // writer may be in the middle of it. One that no more bytes could make JSON
            // is broken now, and said so.
            if blank {
                return false;
            }
            match parse_line(buf, &at) {
                Ok((value, bad)) => {
                    self.advance(&at);
                    self.pending_newline = true;
                    self.record(Source { host, path }, value, &at, bad, None, emit);
                }
                Err(p) if !cut_short(buf) => {
                    self.advance(&at);
                    self.pending_newline = true;
                    self.problem(opts, Diagnostic::new(path, p).at_line(at.number, at.offset), emit);
                }
                Err(_) => {}
            }
            return false;
        }
        self.advance(&at);
        if !blank {
            self.parsed(host, path, parse_line(buf, &at), &at, emit);
        }
        true
    }

    /// A line read as JSON (or what stood in the way), pushed.
    fn parsed(
        &mut self,
        host: &dyn Host,
        path: &Path,
        parsed: Result<(Value, Option<Problem>), Problem>,
        at: &LineAt,
        emit: &mut dyn FnMut(FileOut),
    ) {
        self.whole += 1;
        match parsed {
            Ok((value, bad)) => self.record(Source { host, path }, value, at, bad, None, emit),
            Err(p) => self.problem(host.options(), Diagnostic::new(path, p).at_line(at.number, at.offset), emit),
        }
    }

    /// Sends the batch gathered to be read in parallel while the next is read, once the one
    /// read before it is pushed.
    fn send(&mut self, host: &dyn Host, path: &Path, batches: &mut Batches, emit: &mut dyn FnMut(FileOut)) {
        let spare = match batches.reading.take().and_then(|r| r.recv().ok()) {
            Some((mut batch, prepared)) => {
                self.push_prepared(host, path, &mut batch, prepared, emit);
                batch
            }
            None => Batch::default(),
        };
        let mut batch = std::mem::replace(&mut batches.gathering, spare);
        let how = self.how();
        let (done, reading) = mpsc::channel();
        // On a thread of the pool, that thread waiting for the pool could leave it none.
        if rayon::current_thread_index().is_some() {
            let prepared = batch.prepare(how);
            let _ = done.send((batch, prepared));
        } else {
            rayon::spawn(move || {
                let mut batch = batch;
                let prepared = batch.prepare(how);
                let _ = done.send((batch, prepared));
            });
        }
        batches.reading = Some(reading);
    }

    /// Pushes the batch being read, if one is.
    fn drain(&mut self, host: &dyn Host, path: &Path, batches: &mut Batches, emit: &mut dyn FnMut(FileOut)) {
        if let Some((mut batch, prepared)) = batches.reading.take().and_then(|r| r.recv().ok()) {
            self.push_prepared(host, path, &mut batch, prepared, emit);
        }
    }

    fn how(&self) -> How {
        How { list: self.list, skims: self.skims_pay() }
    }

    /// Skimming stops paying in a listing of a file whose long lines are all to be read
    /// whole after all (records of a format whose texts are not taken as they are). A load
    /// uses every skim.
    fn skims_pay(&self) -> bool {
        self.skim_misses < 16 || self.skimmed > self.skim_misses
    }

    /// Pushes what a batch's lines hold, in order, and adds the forward context found in
    /// them to the run log's.
    fn push_prepared(
        &mut self,
        host: &dyn Host,
        path: &Path,
        batch: &mut Batch,
        prepared: Vec<Prepared>,
        emit: &mut dyn FnMut(FileOut),
    ) {
        if let Some(context) = batch.context.take()
            && let Some(run_log) = &mut self.run_log
        {
            run_log.index.append(context, 0);
            // A log read once is sealed once its index is whole.
            if !run_log.holds() {
                run_log.index.seal();
            }
        }
        for (i, prepared) in prepared.into_iter().enumerate() {
            if host.stopped() {
                break;
            }
            let at = batch.lines[i].0;
            match prepared {
                Prepared::Skimmed(value, long) => {
                    if self.record_skimmed(host, path, value, &long, &at, emit) {
                        self.skimmed += 1;
                    } else {
                        self.skim_misses += 1;
                        self.parsed(host, path, parse_line(batch.line(i), &at), &at, emit);
                    }
                }
                Prepared::Loaded(value) => {
                    self.skimmed += 1;
                    self.record(Source { host, path }, value, &at, None, None, emit);
                }
                Prepared::Whole(parsed) => self.parsed(host, path, parsed, &at, emit),
            }
        }
    }

    /// A skimmed line's records, pushed with the texts stood in for listed; false, with
    /// nothing pushed, when only the whole line can say what it holds (see
    /// [`Record::listed`]).
    fn record_skimmed(
        &mut self,
        host: &dyn Host,
        path: &Path,
        value: Value,
        long: &[Measured],
        at: &LineAt,
        emit: &mut dyn FnMut(FileOut),
    ) -> bool {
        let opts = host.options();
        let line = Some(at.number);
        if !value.is_array() && is_event(opts, classify(&value)) {
            // A run log's reply, listed by its output's measure; its other events are short
            // lines, not skimmed.
            if self.run_log.is_none() {
                self.run_log = Some(host.run_log(path, self.tail, emit));
            }
            let Some(run_log) = &mut self.run_log else { return false };
            let mut problems = Vec::new();
            let listed = run_log
                .record_listed(&value, long, at.number, at.offset, path, &mut |out| push_out(out, &mut problems, emit));
            for p in problems {
                self.problem(opts, Diagnostic::new(path, p).at_line(at.number, at.offset), emit);
            }
            return listed;
        }
        let mut records = Vec::new();
        for (index, value) in elements(value, None) {
            let shape = classify(&value);
            let format = opts.format.or_else(|| shape.format());
            // A record of no known shape is read whole for the text it offers, once a file.
            let offers = shape == Shape::Unknown && format.is_none() && !self.offered;
            if is_event(opts, shape) || format.is_some_and(|f| !formats::takes_text_as_is(f)) || offers {
                return false;
            }
            let record = host.convert(path, value, shape, &name(path, line, index));
            match record.listed(long, &formats::takes_text_as_is) {
                Some(record) => records.push((index, record)),
                None => return false,
            }
        }
        for (index, record) in records {
            self.push(Source { host, path }, record, Place { line, offset: at.offset, index }, emit);
        }
        true
    }

    fn advance(&mut self, at: &LineAt) {
        self.offset = at.end();
        self.line = at.number;
    }

    /// One record (or, for a JSON array, each of its elements). `index` is the record's
    /// place in the document it is an element of.
    pub(crate) fn record(
        &mut self,
        Source { host, path }: Source<'_>,
        value: Value,
        at: &LineAt,
        bad: Option<Problem>,
        index: Option<usize>,
        emit: &mut dyn FnMut(FileOut),
    ) {
        let opts = host.options();
        let line = (at.number > 0).then_some(at.number);
        let locate = |d: Diagnostic| match line {
            Some(n) => d.at_line(n, at.offset),
            None => d,
        };
        if let Some(p) = bad {
            let first = match p {
                Problem::InvalidUtf8 { first, .. } => first,
                _ => at.offset,
            };
            let mut d = locate(Diagnostic::new(path, p));
            d.offset = Some(first);
            self.problem(opts, d, emit);
        }
        for (index, value) in elements(value, index) {
            let shape = classify(&value);
            if is_event(opts, shape) {
                if self.run_log.is_none() {
                    self.run_log = Some(host.run_log(path, self.tail, emit));
                }
                if let Some(run_log) = &mut self.run_log {
                    let mut problems = Vec::new();
                    run_log.record(value, at.number, at.offset, path, &mut |out| push_out(out, &mut problems, emit));
                    for p in problems {
                        self.problem(opts, locate(Diagnostic::new(path, p)), emit);
                    }
                }
                continue;
            }
            let base = name(path, line, index);
            let offer = (shape == Shape::Unknown && !self.offered).then(|| unknown::offer(&value)).flatten();
            let record = match host.convert(path, value, shape, &base) {
                Record::Problem(Problem::UnknownShape { what, offer: None }) if offer.is_some() => {
                    self.offered = matches!(offer, Some(Offer::Text { .. }));
                    Record::Problem(Problem::UnknownShape { what, offer })
                }
                other => other,
            };
            self.push(Source { host, path }, record, Place { line, offset: at.offset, index }, emit);
        }
    }

    /// What one record gave, pushed: replies and events under their own ids or, lacking
    /// one, `path:line` (`#index` for an element of a document, `#n` for the n-th call of
    /// a record of many).
    pub(crate) fn push(
        &mut self,
        Source { host, path }: Source<'_>,
        record: Record,
        Place { line, offset, index }: Place,
        emit: &mut dyn FnMut(FileOut),
    ) {
        let opts = host.options();
        let base = name(path, line, index);
        let records = match record {
            Record::Many(many) => many.into_iter().enumerate().map(|(k, r)| (Some(format!("{base}#{k}")), r)).collect(),
            one => vec![(None, one)],
        };
        for (sub, record) in records {
            let id = |own: Option<String>| own.or_else(|| sub.clone()).unwrap_or_else(|| base.clone());
            match record {
                Record::Reply { id: own, text, meta } => emit(FileOut::Item(Item::Reply(Reply {
                    id: id(own),
                    source: path.to_path_buf(),
                    line,
                    offset,
                    text,
                    meta,
                }))),
                Record::Event { id: own, kind, message, meta } => emit(FileOut::Item(Item::Event(Event {
                    id: id(own),
                    source: path.to_path_buf(),
                    line,
                    offset,
                    kind,
                    message,
                    meta,
                }))),
                Record::Listed { id: own, text, meta } => emit(FileOut::Listed(Listed {
                    id: id(own),
                    source: path.to_path_buf(),
                    line,
                    offset,
                    len: text.len,
                    hash: text.hash,
                    written: Written::of(offset, &text),
                    meta,
                })),
                Record::Context | Record::Many(_) => {}
                Record::Problem(p) => {
                    let p = match (p, index) {
                        (Problem::UnknownShape { what, offer }, Some(i)) => {
                            Problem::UnknownShape { what: format!("element {i}: {what}"), offer }
                        }
                        (Problem::BadRecord(s), Some(i)) => Problem::BadRecord(format!("element {i}: {s}")),
                        (p, _) => p,
                    };
                    let d = Diagnostic::new(path, p);
                    let d = match line {
                        Some(n) => d.at_line(n, offset),
                        None => d,
                    };
                    self.problem(opts, d, emit);
                }
            }
        }
    }
}

/// The file a record was read from, and the loader that reads it.
#[derive(Clone, Copy)]
pub(crate) struct Source<'a> {
    pub host: &'a dyn Host,
    pub path: &'a Path,
}

/// Where a record sits in its file: its line (none in a document), the byte it starts at,
/// and its place among the elements of the array it is one of.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Place {
    pub line: Option<usize>,
    pub offset: u64,
    pub index: Option<usize>,
}

impl Place {
    /// A record of a document read whole: no line, and the document's start.
    pub(crate) fn in_document(index: Option<usize>) -> Place {
        Place { line: None, offset: 0, index }
    }
}

/// A run log of at least this many bytes to read has its first pass split among the cores.
const SPLIT_BYTES: u64 = 64 << 20;

/// The most replies, events and problems a listing holds while it reads a run log once, its
/// forward context still to come: some 30 MB. Past them, the rest of the log is read in two
/// passes, its context first.
const HELD_MOST: usize = 1 << 16;

/// How a run log read once ended.
enum Once {
    /// Read to its end, or told to stop.
    Whole,
    /// Stopped with [`HELD_MOST`] held.
    Over,
}

/// Where a first pass stops: before the first line that starts at `to`, or past `only`.
#[derive(Debug, Clone, Copy)]
struct Bounds {
    to: Option<u64>,
    only: Option<u64>,
}

/// The first pass of a run log over the lines of `input`, which starts at byte `from` of
/// the file, the line before it being line `number`: their forward context into `index`.
/// A last line cut short ends it, as does `bounds`. Where the lines read end, the number of
/// the last, and the bytes read.
fn first_pass(
    input: impl Read,
    from: u64,
    number: usize,
    bounds: Bounds,
    max: usize,
    index: &mut ContextIndex,
) -> io::Result<(u64, usize, u64)> {
    // A line read again alone needs no more than a small block.
    let block = if bounds.only.is_some() { 1 << 16 } else { FIRST_PASS_BYTES };
    let mut blocks = Blocks::new(input, from, number, max, block);
    let (mut bytes, mut lines) = (Vec::new(), Vec::new());
    let (mut last, mut read) = (from, number);
    while blocks.next_block(&mut bytes, &mut lines)? {
        let ends = lines.iter().position(|(at, start)| {
            bounds.to.is_some_and(|to| at.offset >= to)
                || bounds.only.is_some_and(|o| at.offset > o)
                || (at.ending == Ending::Eof && !holds(&bytes, at, *start))
        });
        let scanned = &lines[..ends.unwrap_or(lines.len())];
        index.scan_lines(&bytes, scanned);
        if let Some((at, _)) = scanned.last() {
            (last, read) = (at.end(), at.number);
        }
        if ends.is_some() {
            break;
        }
    }
    Ok((last, read, blocks.read()))
}

/// [`first_pass`] over the `rest` bytes of `file` from `from`, in `parts` read on the
/// pool's threads: each reads the lines that start in its part, numbered from its start, and
/// the parts' context is put together in order, so that one large run log keeps every core
/// busy. Where the lines read end, and the bytes read.
#[cfg(unix)]
fn first_pass_split(
    file: &File,
    from: u64,
    rest: u64,
    parts: u64,
    number: usize,
    max: usize,
    index: &mut ContextIndex,
) -> io::Result<(u64, u64)> {
    let starts: Vec<u64> = (0..parts).map(|p| from + p * (rest / parts)).collect();
    let read: Vec<io::Result<(ContextIndex, u64, usize, u64)>> = (0..starts.len())
        .into_par_iter()
        .map(|p| {
            let to = starts.get(p + 1).copied();
            // A part starts at the first line that starts in it.
            let begin = if p == 0 { Some(from) } else { At(file, starts[p] - 1).past_newline()? };
            let mut part = ContextIndex::default();
            match begin.filter(|&b| to.is_none_or(|to| b < to)) {
                Some(begin) => {
                    let (last, lines, read) =
                        first_pass(At(file, begin), begin, 0, Bounds { to, only: None }, max, &mut part)?;
                    Ok((part, last, lines, read))
                }
                None => Ok((part, from, 0, 0)),
            }
        })
        .collect();
    let (mut base, mut end, mut bytes) = (number, from, 0);
    for part in read {
        let (part, last, lines, read) = part?;
        bytes += read;
        if lines > 0 {
            index.append(part, base);
            base += lines;
            end = last;
        }
    }
    Ok((end, bytes))
}

#[cfg(not(unix))]
fn first_pass_split(
    mut file: &File,
    from: u64,
    _rest: u64,
    _parts: u64,
    number: usize,
    max: usize,
    index: &mut ContextIndex,
) -> io::Result<(u64, u64)> {
    file.seek(SeekFrom::Start(from))?;
    let (end, _, read) = first_pass(file, from, number, Bounds { to: None, only: None }, max, index)?;
    Ok((end, read))
}

/// A file read from a byte on, by positioned reads: the parts of a first pass share the file
/// without sharing a position in it.
#[cfg(unix)]
struct At<'f>(&'f File, u64);

#[cfg(unix)]
impl At<'_> {
    /// The offset just past the first newline from here on, if there is one.
    fn past_newline(mut self) -> io::Result<Option<u64>> {
        let mut buf = vec![0; 1 << 16];
        loop {
            let n = self.read(&mut buf)?;
            if n == 0 {
                return Ok(None);
            }
            if let Some(i) = memchr::memchr(b'\n', &buf[..n]) {
                return Ok(Some(self.1 - n as u64 + i as u64 + 1));
            }
        }
    }
}

#[cfg(unix)]
impl Read for At<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = std::os::unix::fs::FileExt::read_at(self.0, buf, self.1)?;
        self.1 += n as u64;
        Ok(n)
    }
}

/// Whether the last line of a read, with no newline, holds a whole record (else it is held
/// back, for either pass of a run log, until it does).
fn holds(bytes: &[u8], at: &LineAt, start: usize) -> bool {
    !at.too_long && !cut_short(&bytes[start..start + at.len as usize])
}

/// Pushes what a run log's record gave, but its problems, kept for the file to count.
fn push_out(out: Out, problems: &mut Vec<Problem>, emit: &mut dyn FnMut(FileOut)) {
    emit(match out {
        Out::Reply(r) => FileOut::Item(Item::Reply(r)),
        Out::Listed(l) => FileOut::Listed(l),
        Out::Event(e) => FileOut::Item(Item::Event(e)),
        Out::Amended { line, meta } => FileOut::Amended { line, meta },
        Out::Problem(p) => return problems.push(p),
    })
}

/// A record, or (for a JSON array not an element itself) each of its elements with its
/// index.
fn elements(value: Value, index: Option<usize>) -> Vec<(Option<usize>, Value)> {
    match (value, index) {
        (Value::Array(items), None) => items.into_iter().enumerate().map(|(i, v)| (Some(i), v)).collect(),
        (other, index) => vec![(index, other)],
    }
}

/// Whether a record of `shape` is a run-log event, which the run log reads.
fn is_event(opts: &LoadOptions, shape: Shape) -> bool {
    opts.format == Some(Format::RunLog) || (opts.format.is_none() && shape == Shape::RunLogEvent)
}

/// A record's name when it has none of its own: `path:line`, `#index` for an element.
fn name(path: &Path, line: Option<usize>, index: Option<usize>) -> String {
    let base = reference(path, line);
    match index {
        Some(i) => format!("{base}#{i}"),
        None => base,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::loader::{Loader, Start};
    use crate::logs::model::reply::{Listing, Meta};

    #[test]
    fn no_line_of_long_records_is_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("long.jsonl");
        let text = r#"{\"html\":\"<p>caf\u00e9</p>\"}\n"#.repeat(500);
        let lines: String = (0..300).map(|i| format!("{{\"id\":\"r{i}\",\"text\":\"{text}\"}}\n")).collect();
        std::fs::write(&path, lines).unwrap();
        let loader = Loader::new(LoadOptions::default());
        let read = |list: bool| {
            let mut replies = 0;
            let Start::Jsonl(file, mut state) = loader.start(&path, false, &mut |_| {}) else { panic!("JSONL") };
            state.list = list;
            state.read(&loader, &path, &file, &mut |out| {
                replies += usize::from(matches!(out, FileOut::Listed(_) | FileOut::Item(Item::Reply(_))));
            });
            (replies, state.whole, state.skimmed)
        };
        // Loading reads each text once too, decoded straight into its string.
        assert_eq!(read(true), (300, 0, 300));
        assert_eq!(read(false), (300, 0, 300));
    }

    /// A run log's first pass split into parts, each read by a thread of its own, finds the
    /// context reading it in one pass finds, and ends where it ends, wherever the parts'
    /// bounds fall: inside lines, on their newlines, in a line too long to hold, in a last
    /// line cut short.
    #[cfg(unix)]
    #[test]
    fn a_first_pass_in_parts_is_the_first_pass() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        let mut lines = String::new();
        for i in 0..40 {
            lines.push_str(&format!(
                "{{\"ts\":\"t\",\"type\":\"agent_call\",\"image\":\"p{i}.png\",\"output\":\"{}\"}}\n",
                "w".repeat(i * 7 % 90)
            ));
            match i % 4 {
                0 => lines.push_str(&format!("{{\"type\":\"page_verify_ok\",\"image\":\"p{i}.png\"}}\n")),
                1 => lines.push_str(&format!("{{\"type\":\"reader\",\"iteration\":{i}}}\n")),
                2 => lines.push_str(&format!("{{\"type\":\"page_verify_failed\",\"image\":\"p{}.png\"}}\n", i - 1)),
                _ => lines.push('\n'),
            }
            if i == 20 {
                lines.push_str(&format!("{{\"type\":\"run_failed\",\"error\":\"{}\"}}\n", "x".repeat(400)));
            }
        }
        lines.push_str("{\"type\":\"run_complete\"}\n{\"type\":\"reader\",\"iter");
        std::fs::write(&path, &lines).unwrap();
        let file = File::open(&path).unwrap();
        let rest = lines.len() as u64;
        for max in [300, 1 << 20] {
            for from in [0, 37] {
                let mut whole = ContextIndex::default();
                let mut input = &file;
                input.seek(SeekFrom::Start(from)).unwrap();
                let (end, _, _) = first_pass(input, from, 3, Bounds { to: None, only: None }, max, &mut whole).unwrap();
                whole.seal();
                assert!(end < rest, "the last line, cut short, is not read");
                for parts in 1..=9 {
                    let mut split = ContextIndex::default();
                    assert_eq!(first_pass_split(&file, from, rest - from, parts, 3, max, &mut split).unwrap().0, end);
                    split.seal();
                    assert_eq!(split, whole, "{parts} parts from {from}, lines of at most {max}");
                }
            }
        }
    }

    /// A run log's replies are listed and loaded from their skims too: only its short events
    /// (the model calls, the verifications) are read whole, and what is listed is what
    /// loading gives.
    #[test]
    fn a_listing_reads_no_reply_of_a_run_log_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        let text = r#"{\"html\":\"<p>caf\u00e9</p>\"}\n"#.repeat(100);
        let mut lines = String::new();
        for i in 0..200 {
            lines.push_str(&format!(
                "{{\"ts\":\"t{i}\",\"type\":\"model_call\",\"agent\":\"page\",\"model\":\"m\",\"ok\":true}}\n"
            ));
            lines.push_str(&format!(
                "{{\"ts\":\"t{i}\",\"type\":\"agent_call\",\"agent\":\"page.md\",\"image\":\"d-p{i}.png\",\"output\":\"{text}\"}}\n"
            ));
            lines.push_str(&format!("{{\"ts\":\"t{i}\",\"type\":\"page_verify_ok\",\"image\":\"d-p{i}.png\"}}\n"));
        }
        lines.push_str("{\"ts\":\"t\",\"type\":\"run_complete\"}\n");
        std::fs::write(&path, lines).unwrap();
        let loader = Loader::new(LoadOptions::default());
        let read = |list: bool| {
            let mut got = Vec::new();
            let Start::Jsonl(file, mut state) = loader.start(&path, false, &mut |_| {}) else { panic!("JSONL") };
            state.list = list;
            state.read(&loader, &path, &file, &mut |out| match out {
                FileOut::Listed(l) => got.push(Listed { written: None, ..l }),
                FileOut::Item(Item::Reply(r)) => got.push(Listed::of(&r)),
                _ => {}
            });
            (got, state.whole, state.skimmed)
        };
        let (listed, whole, skimmed) = read(true);
        assert_eq!((listed.len(), whole, skimmed), (200, 401, 200));
        assert!(listed.iter().all(|l| l.meta.model.is_some() && l.meta.page_verified == Some(true)));
        let (loaded, whole, skimmed) = read(false);
        assert_eq!((whole, skimmed), (401, 200));
        assert_eq!(listed, loaded);
    }

    /// A run log of every kind of forward context and of lines that only look like it: the
    /// log a listing that reads it once must list as two passes list it. An `editor` event
    /// carries `pad` bytes (a long string, or a line too long to read), and `last` ends it.
    fn awkward_run_log(pad: usize, last: &str) -> String {
        let long = |i: usize| format!("{{\\\"html\\\":\\\"<p>page {i} {}</p>\\\"}}", "caf\\u00e9 ".repeat(60 + i % 7));
        let mut lines = String::new();
        for i in 0..60 {
            let (agent, phase) = if i % 5 == 4 { ("reader", "review") } else { ("page", "extraction") };
            lines.push_str(&format!(
                "{{\"ts\":\"t{i}\",\"type\":\"model_call\",\"agent\":\"{agent}\",\"model\":\"m{i}\",\"ok\":true}}\n"
            ));
            let output = if i % 3 == 0 { format!("short {i}") } else { long(i) };
            lines.push_str(&format!(
                "{{\"ts\":\"t{i}\",\"type\":\"agent_call\",\"agent\":\"{agent}.md\",\"phase\":\"{phase}\",\"image\":\"d-p{}.png\",\"output\":\"{output}\"}}\n",
                i % 9
            ));
            let ts = format!("\"ts\":\"u{i}\"");
            match i % 8 {
                0 => lines.push_str(&format!("{{{ts},\"type\":\"page_verify_ok\",\"image\":\"d-p{}.png\"}}\n", i % 9)),
                1 => lines.push_str(&format!("{{{ts},\"type\":\"reader\",\"iteration\":{i}}}\n")),
                2 => lines.push_str(&format!("{{{ts},\"type\":\"page_verify_failed\",\"image\":\"d-p{}.png\"}}\n", (i + 1) % 9)),
                3 => lines.push_str(&format!(
                    "{{{ts},\"type\":\"model_call\",\"agent\":\"page\",\"ok\":false,\"error\":\"hit the output ceiling and was truncated\",\"image\":\"d-p{i}.png\"}}\n"
                )),
                // Lines a needle is in that are no context, and context no needle finds.
                4 => lines.push_str(&format!(
                    "[\"editor\", null, {i}, null]\n{{{ts},\"type\":\"read\\u0065r\",\"iteration\":{}}}\n",
                    i + 100
                )),
                5 => lines.push_str(&format!(
                    "{{{ts},\"type\":\"editor\",\"type\":\"note\",\"iteration\":{i}}}\n{{{ts},\"type\":\"note\",\"text\":\"\\\"reader\\\" run_complete\"}}\n"
                )),
                6 => lines.push_str(&format!("\n{{{ts},\"type\":\"editor\",\"iteration\":\n")),
                _ => lines.push_str(&format!("{{{ts},\"type\":\"editor\",\"iteration\":{i},\"pad\":\"{}\"}}\n", "x".repeat(pad))),
            }
            if i == 30 {
                lines.push_str(&format!("{{{ts},\"type\":\"run_failed\",\"error\":\"{}\"}}\n", "boom ".repeat(120)));
            }
        }
        lines.push_str("{\"ts\":\"v\",\"type\":\"run_complete\"}\n");
        lines.push_str(last);
        lines
    }

    /// A listing reads a large run log once, finding its forward context as it reads, and
    /// lists what reading it in two passes lists: replies, events and problems, each with its
    /// round, verification and outcome, in the same order. So it does where it stops holding
    /// what it has read after a few replies and reads the rest in two passes, with blocks of
    /// any size, and so does a file read in one call, whose context is found from its lines'
    /// values where each is a complete line. Only reading it once reads each byte once.
    #[test]
    fn a_listing_reads_a_run_log_once_and_lists_what_two_passes_list() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        let options = LoadOptions { max_line: 2000, ..LoadOptions::default() };
        let (loader, blind) =
            (Loader::new(options.clone()), Loader::new(LoadOptions { forward_context: false, ..options }));
        let read_by = |loader: &Loader, list: bool, limits: Limits| {
            let mut got = Vec::new();
            let Start::Jsonl(file, mut state) = loader.start(&path, false, &mut |_| {}) else { panic!("JSONL") };
            state.list = list;
            state.limits = limits;
            state.read(loader, &path, &file, &mut |out| match out {
                FileOut::Listed(l) => got.push(Listing::Listed(l)),
                FileOut::Item(item) => got.push(Listing::Item(item)),
                FileOut::Amended { .. } => panic!("no amendment outside a tail"),
            });
            (got, state.read_bytes)
        };
        let read = |list: bool, limits: Limits| read_by(&loader, list, limits);
        let once = |block, held| Limits { chunk: 0, block, held };
        let cut = "{\"ts\":\"v\",\"type\":\"reader\",\"iter";
        let late = "{\"ts\":\"v\",\"type\":\"run_failed\",\"error\":\"late\"}";
        for (pad, last, outcome) in [(3000, cut, "complete"), (1000, cut, "complete"), (1000, late, "failed: late")] {
            let lines = awkward_run_log(pad, last);
            std::fs::write(&path, &lines).unwrap();
            // Two passes, the first searching every byte for the needles.
            let (listed, _) = read(true, once(1 << 20, 0));
            let metas: Vec<&Meta> = listed
                .iter()
                .filter_map(|l| match l {
                    Listing::Listed(l) => Some(&l.meta),
                    Listing::Item(Item::Reply(r)) => Some(&r.meta),
                    Listing::Item(Item::Event(e)) => Some(&e.meta),
                    Listing::Item(Item::Diagnostic(_)) => None,
                })
                .collect();
            assert_eq!(metas.len(), 60 + 8, "60 replies and 8 calls cut short");
            assert!(metas.iter().any(|m| m.page_verified == Some(false)));
            assert!(metas.iter().any(|m| m.page_verified == Some(true)));
            assert!(metas.iter().any(|m| m.iteration == Some(9)) && metas.iter().any(|m| m.iteration == Some(49)));
            assert!(!metas.iter().any(|m| m.iteration.is_some_and(|it| it >= 100)), "no needle, no context");
            // The last line with the run's end is the log's outcome, for its first line too.
            assert!(metas.iter().all(|m| m.run_outcome.as_deref() == Some(outcome)));
            let problem = |p: fn(&Problem) -> bool| {
                listed.iter().filter(|l| matches!(l, Listing::Item(Item::Diagnostic(d)) if p(&d.problem))).count()
            };
            assert_eq!(problem(|p| matches!(p, Problem::LineTooLong { .. })), if pad > 2000 { 7 } else { 0 });
            assert_eq!(problem(|p| matches!(p, Problem::MalformedJson(_))), 7);

            // Read in one call, both passes over that read.
            let (got, read_bytes) = read(true, Limits::default());
            assert_eq!(got, listed, "one call, pad {pad}");
            assert_eq!(read_bytes, lines.len() as u64);
            let loaded = read(false, Limits::default()).0;
            for block in [64, 700, 5000, 1 << 20] {
                let (got, read_bytes) = read(true, once(block, usize::MAX));
                assert_eq!(got, listed, "read once, blocks of {block}, pad {pad}");
                assert_eq!(read_bytes, lines.len() as u64, "read once, blocks of {block}");
                for held in [1, 7, 40] {
                    let (got, read_bytes) = read(true, once(block, held));
                    assert_eq!(got, listed, "{held} held, blocks of {block}, pad {pad}");
                    if block < lines.len() {
                        assert!(read_bytes > lines.len() as u64, "{held} held, blocks of {block}: the rest read twice");
                    }
                }
                // A load reads a large run log in two passes, but one that shows no forward
                // context.
                let (got, read_bytes) = read(false, once(block, usize::MAX));
                assert_eq!(got, loaded, "a load, blocks of {block}, pad {pad}");
                assert!(read_bytes > lines.len() as u64);
                let (got, read_bytes) = read_by(&blind, false, once(block, usize::MAX));
                assert_eq!(got, read_by(&blind, false, Limits::default()).0, "no forward context, blocks of {block}");
                assert_eq!(read_bytes, lines.len() as u64);
            }
        }
    }
}
