//! Reading one file: what it is (by content), then its replies, pushed as they are read.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

use rayon::prelude::*;
use serde::de::IgnoredAny;
use serde_json::Value;
use serde_json::value::RawValue;

use super::campaign::{Campaigns, is_run_context_file};
use super::diagnostic::{Diagnostic, Problem};
use super::discover::{Found, discover};
use super::document::{self, Flow};
use super::formats::{self, Record, Shape, classify, describe};
use super::lines::{Ending, LineAt, Lines};
use super::locator::Written;
use super::pipeline::{Out, RunLog};
use super::reply::{Event, Format, Item, Listed, Listing, Meta, Reply};
use super::skim::{self, Measured};
use super::{cohere, gemini, inspect, nan, ollama, otel, promptfoo, sse, stream};

/// How much of a file is looked at to tell text from binary.
const SNIFF: usize = 8192;

/// How files are read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadOptions {
    /// Read every file as this format instead of detecting it.
    pub format: Option<Format>,
    /// A JSON pointer to the reply text, for JSON records of no known shape.
    pub text_path: Option<String>,
    /// `(NAME, POINTER)` pairs: metadata to read off such records.
    pub meta: Vec<(String, String)>,
    /// The longest line read; a longer one is skipped with a diagnostic.
    pub max_line: usize,
    /// The largest file read whole (a text reply, a JSON document).
    pub max_whole: u64,
    /// Per-line diagnostics listed one by one per file (per read, in a tail); the rest are
    /// counted in one.
    pub max_problems_per_file: usize,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            format: None,
            text_path: None,
            meta: Vec::new(),
            // A reply may be as long on a line of a log as in a file of its own.
            max_line: 256 << 20,
            max_whole: 256 << 20,
            max_problems_per_file: 50,
        }
    }
}

/// Loads replies from files and directories. Shareable across threads: the campaign
/// ledgers it has read are cached inside.
#[derive(Debug, Default)]
pub struct Loader {
    opts: LoadOptions,
    campaigns: Campaigns,
    /// Set by [`Loader::stop`]: what a caller with nowhere left to put items says.
    stopped: AtomicBool,
}

/// What reading a file pushes: items, (only in a tail) amendments to earlier ones, and (only
/// in a listing) replies listed without their texts.
#[derive(Debug)]
pub(crate) enum FileOut {
    Item(Item),
    Amended { line: usize, meta: Meta },
    Listed(Listed),
}

/// How a file turned out to be read.
pub(crate) enum Start {
    /// Line by line, from the state's offset; the caller reads it.
    Jsonl(File, Box<JsonlState>),
    /// Read whole, already pushed.
    Whole,
    /// Not read (a diagnostic was pushed, or it is a run's context file).
    Skipped,
    /// A tail's file is empty or its first line is not complete yet.
    NotYet,
}

enum Plan {
    Text,
    /// A JSON document (one value, several, an array of records), read as a stream. Should
    /// it turn out not to be one, `look_on` says to look for a record on a later line.
    Document {
        look_on: bool,
    },
    Jsonl(Option<Shape>),
    /// A stream saved to a file, of this format.
    Stream(Format),
}

/// How reading a file as a JSON document went.
enum Doc {
    Done,
    /// It is one value of no known shape, in a file not named as JSON: a reply as written.
    Text,
    /// Not one record could be read: it is not a JSON document after all.
    NotJson,
}

impl Loader {
    pub fn new(opts: LoadOptions) -> Loader {
        Loader { opts, campaigns: Campaigns::default(), stopped: AtomicBool::new(false) }
    }

    /// Stops a load or a listing under way: no further file is opened, and a file of lines
    /// is read no further than the line it is at. A caller whose output went away (`list |
    /// head`) says so from its sink, and the rest of a campaign is not read for nothing.
    pub fn stop(&self) {
        self.stopped.store(true, Ordering::Relaxed);
    }

    fn stopped(&self) -> bool {
        self.stopped.load(Ordering::Relaxed)
    }

    pub fn options(&self) -> &LoadOptions {
        &self.opts
    }

    /// Every reply, event and diagnostic in `paths`, pushed to `sink` in path-then-line
    /// order.
    pub fn load(&self, paths: &[PathBuf], sink: &mut dyn FnMut(Item)) {
        discover(paths, &mut |found| match found {
            _ if self.stopped() => {}
            Found::File(path) => self.load_file(&path, sink),
            Found::Problem(d) => sink(Item::Diagnostic(d)),
        });
    }

    /// [`Loader::load`] for a listing: a reply whose text a line holds whole is pushed as
    /// [`Listed`], its text measured, not held (the rest as items, in the same order).
    pub fn list(&self, paths: &[PathBuf], sink: &mut dyn FnMut(Listing)) {
        discover(paths, &mut |found| match found {
            _ if self.stopped() => {}
            Found::File(path) => self.list_file(&path, sink),
            Found::Problem(d) => sink(Listing::Item(Item::Diagnostic(d))),
        });
    }

    /// [`Loader::load_file`] for a listing (see [`Loader::list`]).
    pub fn list_file(&self, path: &Path, sink: &mut dyn FnMut(Listing)) {
        let mut emit = |out: FileOut| match out {
            FileOut::Item(item) => sink(Listing::Item(item)),
            FileOut::Listed(listed) => sink(Listing::Listed(listed)),
            FileOut::Amended { .. } => {}
        };
        if let Start::Jsonl(file, mut state) = self.start(path, false, &mut emit) {
            state.list = true;
            state.read(self, path, &file, &mut emit);
        }
    }

    /// One file, as a walk found it (so a missing file is one that vanished).
    pub fn load_file(&self, path: &Path, sink: &mut dyn FnMut(Item)) {
        let mut emit = |out: FileOut| {
            if let FileOut::Item(item) = out {
                sink(item);
            }
        };
        if let Start::Jsonl(file, mut state) = self.start(path, false, &mut emit) {
            state.read(self, path, &file, &mut emit);
        }
    }

    /// Opens `path`, decides what it is, and reads it if it is read whole.
    pub(crate) fn start(&self, path: &Path, tail: bool, emit: &mut dyn FnMut(FileOut)) -> Start {
        let mut problem = |p: Problem| emit(FileOut::Item(Item::Diagnostic(Diagnostic::new(path, p))));
        let mut file = match File::open(path) {
            Ok(f) => f,
            Err(e) => {
                problem(Problem::from_io(&e, true));
                return Start::Skipped;
            }
        };
        let len = match file.metadata() {
            Ok(m) if m.is_file() => m.len(),
            Ok(_) => {
                problem(Problem::NotAFile);
                return Start::Skipped;
            }
            Err(e) => {
                problem(Problem::from_io(&e, true));
                return Start::Skipped;
            }
        };
        if len == 0 {
            if tail {
                return Start::NotYet;
            }
            problem(Problem::Empty);
            return Start::Skipped;
        }
        if is_run_context_file(path) {
            return Start::Skipped;
        }
        let head = match head(&mut file) {
            Ok(h) => h,
            Err(e) => {
                problem(Problem::from_io(&e, true));
                return Start::Skipped;
            }
        };
        let as_eval = matches!(self.opts.format, None | Some(Format::Inspect));
        if as_eval && head.starts_with(b"PK\x03\x04") && inspect::is_eval_archive(&file) {
            self.read_eval(path, &file, emit);
            return Start::Whole;
        }
        if let Some(what) = binary(&head) {
            problem(Problem::Binary(what.to_owned()));
            return Start::Skipped;
        }
        let plan = match self.plan(path, &mut file, &head, len) {
            Ok(p) => p,
            Err(e) => {
                problem(Problem::from_io(&e, true));
                return Start::Skipped;
            }
        };
        match plan {
            Plan::Jsonl(shape) => {
                let mut state = JsonlState::new(tail);
                if self.opts.format == Some(Format::RunLog) || shape == Some(Shape::RunLogEvent) {
                    state.run_log = Some(self.run_log(path, tail, emit));
                }
                if shape == Some(Shape::Ledger) && self.opts.format.is_none() {
                    // The ledger is context: read once, for the run logs beside it.
                    let dir = path.parent().unwrap_or(Path::new(""));
                    let _ =
                        self.campaigns.get(dir, self.opts.max_line, &mut |d| emit(FileOut::Item(Item::Diagnostic(d))));
                    return Start::Skipped;
                }
                Start::Jsonl(file, Box::new(state))
            }
            Plan::Text | Plan::Document { .. } if tail && self.may_be_unfinished_jsonl(path, &head, len) => {
                Start::NotYet
            }
            Plan::Text => {
                self.read_text(path, &mut file, len, emit);
                Start::Whole
            }
            Plan::Stream(format) => {
                self.read_stream(path, &file, format, emit);
                Start::Whole
            }
            Plan::Document { look_on } => match self.read_document(path, &file, emit) {
                Doc::Done => Start::Whole,
                Doc::Text => {
                    self.read_text(path, &mut file, len, emit);
                    Start::Whole
                }
                // A first line cut short, then records: JSONL whose first write was torn (or,
                // named as JSONL, lines each of which will say what is wrong with it).
                Doc::NotJson if is_line_named(path) || (look_on && self.later_record(&mut file)) => {
                    if let Err(e) = file.seek(SeekFrom::Start(0)) {
                        let d = Diagnostic::new(path, Problem::from_io(&e, true));
                        emit(FileOut::Item(Item::Diagnostic(d)));
                        return Start::Skipped;
                    }
                    Start::Jsonl(file, Box::new(JsonlState::new(tail)))
                }
                Doc::NotJson => {
                    self.read_whole(path, &mut file, len, emit);
                    Start::Whole
                }
            },
        }
    }

    fn run_log(&self, path: &Path, tail: bool, emit: &mut dyn FnMut(FileOut)) -> RunLog {
        let ctx =
            self.campaigns.context_for(path, self.opts.max_line, &mut |d| emit(FileOut::Item(Item::Diagnostic(d))));
        RunLog::new(ctx, tail)
    }

    /// A tail's file that looks like JSONL whose first line is still being written.
    fn may_be_unfinished_jsonl(&self, path: &Path, head: &[u8], len: u64) -> bool {
        let ext = extension(path);
        let jsonish = matches!(ext.as_str(), "jsonl" | "ndjson" | "json") || path.ends_with(super::campaign::RUN_LOG);
        jsonish && (len as usize) <= head.len() && !head.contains(&b'\n')
    }

    fn plan(&self, path: &Path, file: &mut File, head: &[u8], len: u64) -> io::Result<Plan> {
        let forced = self.opts.format;
        if forced == Some(Format::Text) {
            return Ok(Plan::Text);
        }
        if let Some(f) = forced.filter(|f| f.is_stream()) {
            return Ok(Plan::Stream(f));
        }
        if forced.is_none() && sse::looks_like_events(head) {
            let format = stream::sniff(BufReader::with_capacity(1 << 16, &*file), self.opts.max_line)?;
            file.seek(SeekFrom::Start(0))?;
            if let Some(f) = format {
                return Ok(Plan::Stream(f));
            }
        }
        let ext = extension(path);
        let json_ext = matches!(ext.as_str(), "json" | "jsonl" | "ndjson");
        let line_ext = matches!(ext.as_str(), "jsonl" | "ndjson");
        let text_ext = matches!(ext.as_str(), "txt" | "text" | "md" | "markdown" | "html" | "htm");
        let opens = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head).iter().find(|b| !b.is_ascii_whitespace());
        if forced.is_none() && !json_ext && !matches!(opens, Some(b'{' | b'[')) {
            return Ok(Plan::Text);
        }
        let first = first_record(file, self.opts.max_line, false)?;
        file.seek(SeekFrom::Start(0))?;
        // A first line that is JSON cut short is the start of a document spread over lines
        // (pretty-printed): read as one, whatever a later line happens to be on its own.
        if first.opens_a_value {
            return Ok(Plan::Document { look_on: true });
        }
        // An array, or an eval log, on one line is still a document of many records: read a
        // record at a time, not as one line held whole.
        let many = matches!(first.shape, Some(Shape::InspectLog | Shape::Promptfoo));
        if first.on_first_line && (first.opens_array || many) {
            return Ok(Plan::Document { look_on: false });
        }
        // A later line that is a record of a known shape makes a file JSONL whose first line
        // is broken; an unknown shape there proves nothing.
        let lines_by_name = line_ext || forced.is_some() || self.opts.text_path.is_some();
        let shape = first.shape.filter(|&s| first.on_first_line || lines_by_name || s != Shape::Unknown);
        Ok(match shape {
            Some(Shape::OllamaChunk) if forced.is_none() => Plan::Stream(Format::OllamaStream),
            Some(shape) => {
                let reads_as_text = forced.is_none()
                    && shape == Shape::Unknown
                    && (text_ext || (!json_ext && self.opts.text_path.is_none()));
                if reads_as_text { Plan::Text } else { Plan::Jsonl(Some(shape)) }
            }
            None if line_ext || len > self.opts.max_whole => Plan::Jsonl(None),
            None => Plan::Document { look_on: false },
        })
    }

    /// Whether a line after the first is a record of a known shape.
    fn later_record(&self, file: &mut File) -> bool {
        let first = first_record(file, self.opts.max_line, true);
        first.is_ok_and(|f| !f.on_first_line && f.shape.is_some_and(|s| s != Shape::Unknown))
    }

    /// A stream saved to a file, reassembled; each reply at the line its stream began.
    fn read_stream(&self, path: &Path, file: &File, format: Format, emit: &mut dyn FnMut(FileOut)) {
        let mut state = JsonlState::new(false);
        let input = BufReader::with_capacity(1 << 16, file);
        let mut push = |out: stream::Out| match out.what {
            Ok(record) => state.push(self, path, record, Some(out.line), out.offset, None, emit),
            Err(p) => {
                let d = Diagnostic::new(path, p).at_line(out.line, out.offset);
                state.problem(&self.opts, d, emit);
            }
        };
        let read = match format {
            Format::OllamaStream => stream::read_ollama(input, self.opts.max_line, &mut push),
            _ => stream::read_sse(input, format, self.opts.max_line, &mut push),
        };
        if let Err(e) = read {
            emit(FileOut::Item(Item::Diagnostic(Diagnostic::new(path, Problem::from_io(&e, true)))));
        }
        state.finish(path, emit);
    }

    /// An Inspect `.eval` archive: a reply per sample, in the archive's order.
    fn read_eval(&self, path: &Path, file: &File, emit: &mut dyn FnMut(FileOut)) {
        let mut state = JsonlState::new(false);
        let base = path.display().to_string();
        inspect::read_eval(file, &base, &mut |r| match r {
            Ok(record) => state.push(self, path, record, None, 0, None, emit),
            Err(p) => state.problem(&self.opts, Diagnostic::new(path, p), emit),
        });
        state.finish(path, emit);
    }

    /// A JSON document read as a stream of records (see `document`).
    fn read_document(&self, path: &Path, file: &File, emit: &mut dyn FnMut(FileOut)) -> Doc {
        let mut input = BufReader::with_capacity(1 << 16, file);
        if let Err(e) = input.seek(SeekFrom::Start(0)).and_then(|_| skip_bom(&mut input)) {
            emit(FileOut::Item(Item::Diagnostic(Diagnostic::new(path, Problem::from_io(&e, true)))));
            return Doc::Done;
        }
        let json_ext = matches!(extension(path).as_str(), "json" | "jsonl" | "ndjson");
        let text_like = self.opts.format.is_none() && !json_ext && self.opts.text_path.is_none();
        let base = path.display().to_string();
        let mut state = JsonlState::new(false);
        let mut values = 0usize;
        // Buffered again after the rewrite: serde_json reads a byte at a time, and std reads a
        // byte from a `BufReader` without a call per byte.
        let input = BufReader::with_capacity(1 << 16, nan::Tolerant::new(input));
        let mut chunks = stream::GeminiArray::default();
        let outcome = document::read(input, &mut |item| {
            let is_chunk =
                matches!(&item, document::Item::Value { value, index: Some(_) } if classify(value) == Shape::Gemini);
            if !is_chunk {
                chunks.finish(&mut |i, r| state.push(self, path, r, None, 0, Some(i), emit));
            }
            match item {
                document::Item::Value { value, index: Some(i) } if is_chunk => {
                    values += 1;
                    chunks.feed(value, i, &mut |i, r| state.push(self, path, r, None, 0, Some(i), emit));
                }
                document::Item::Value { value, index } => {
                    if values == 0 && text_like && classify(&value) == Shape::Unknown {
                        return Flow::Stop;
                    }
                    // The values after the first of several are numbered, as elements are.
                    let index = index.or((values > 0).then_some(values));
                    values += 1;
                    let at = LineAt { number: 0, offset: 0, ending: Ending::Eof, len: 0, too_long: false };
                    state.record(self, path, value, &at, None, index, emit);
                }
                document::Item::Sample { header, sample } => {
                    values += 1;
                    state.push(self, path, inspect::sample(header, &sample, &base), None, 0, None, emit);
                }
                document::Item::Result { eval_id, result } => {
                    let index = Some(values);
                    values += 1;
                    state.push(self, path, promptfoo::result(eval_id, &result), None, 0, index, emit);
                }
            }
            Flow::Continue
        });
        chunks.finish(&mut |i, r| state.push(self, path, r, None, 0, Some(i), emit));
        if outcome.stopped {
            return Doc::Text;
        }
        match outcome.error {
            Some(_) if outcome.records == 0 => return Doc::NotJson,
            Some(e) => {
                let mut d = Diagnostic::new(path, Problem::MalformedJson(json_error(&e)));
                d.line = Some(e.line());
                state.problem(&self.opts, d, emit);
            }
            None => {}
        }
        state.finish(path, emit);
        Doc::Done
    }

    fn read_text(&self, path: &Path, file: &mut File, len: u64, emit: &mut dyn FnMut(FileOut)) {
        if let Some(bytes) = self.read_all(path, file, len, emit) {
            self.text_reply(path, bytes, emit);
        }
    }

    fn read_all(&self, path: &Path, file: &mut File, len: u64, emit: &mut dyn FnMut(FileOut)) -> Option<Vec<u8>> {
        let diag = |p: Problem| FileOut::Item(Item::Diagnostic(Diagnostic::new(path, p)));
        if len > self.opts.max_whole {
            emit(diag(Problem::TooLarge { len, max: self.opts.max_whole }));
            return None;
        }
        let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
        if let Err(e) =
            file.seek(SeekFrom::Start(0)).and_then(|_| file.take(self.opts.max_whole).read_to_end(&mut bytes))
        {
            emit(diag(Problem::from_io(&e, true)));
            return None;
        }
        Some(bytes)
    }

    fn text_reply(&self, path: &Path, bytes: Vec<u8>, emit: &mut dyn FnMut(FileOut)) {
        let (text, bad) = decode(bytes);
        if let Some((first, count)) = bad {
            let d = Diagnostic::new(path, Problem::InvalidUtf8 { first, count }).at_offset(first);
            emit(FileOut::Item(Item::Diagnostic(d)));
        }
        emit(FileOut::Item(Item::Reply(Reply::text_file(path, text))));
    }

    /// A JSON document read whole: one record, or an array of them. A file that turns out
    /// not to be JSON is a text reply, unless it is named as JSON.
    fn read_whole(&self, path: &Path, file: &mut File, len: u64, emit: &mut dyn FnMut(FileOut)) {
        let Some(bytes) = self.read_all(path, file, len, emit) else { return };
        let ext = extension(path);
        let json_ext = matches!(ext.as_str(), "json" | "jsonl" | "ndjson");
        let (text, bad) = decode(bytes);
        let value: Value = match nan::parse(text.as_bytes()) {
            Ok(v) => v,
            Err(e) if json_ext || self.opts.format.is_some() => {
                let mut d = Diagnostic::new(path, Problem::MalformedJson(json_error(&e)));
                d.line = Some(e.line());
                emit(FileOut::Item(Item::Diagnostic(d)));
                return;
            }
            Err(_) => {
                self.text_reply(path, text.into_bytes(), emit);
                return;
            }
        };
        if let Some((first, count)) = bad {
            let d = Diagnostic::new(path, Problem::InvalidUtf8 { first, count }).at_offset(first);
            emit(FileOut::Item(Item::Diagnostic(d)));
        }
        let shape = classify(&value);
        if self.opts.format.is_none() && shape == Shape::Unknown && !json_ext && self.opts.text_path.is_none() {
            self.text_reply(path, text.into_bytes(), emit);
            return;
        }
        let mut state = JsonlState::new(false);
        let at = LineAt { number: 0, offset: 0, ending: Ending::Eof, len, too_long: false };
        state.record(self, path, value, &at, None, None, emit);
        state.finish(path, emit);
    }

    /// The reply or event one record gives (several, for a record of many calls), or what
    /// is wrong with it. `base` names the record, for the ids of the calls inside it.
    fn convert(&self, path: &Path, value: Value, base: &str) -> Record {
        let shape = classify(&value);
        let format = self.opts.format.or_else(|| shape.format());
        match format {
            _ if shape == Shape::ApiError && self.opts.format.is_none_or(|f| f != Format::Json) => {
                formats::api_error(&value, self.opts.format.unwrap_or(Format::Json))
            }
            Some(Format::Anthropic | Format::AnthropicStream) => formats::anthropic(value, Format::Anthropic),
            Some(Format::BedrockConverse) => formats::bedrock_converse(value),
            Some(Format::OpenAiChat | Format::OpenAiChatStream) => formats::openai_chat(value, Format::OpenAiChat),
            Some(Format::OpenAiBatch) => formats::openai_batch(value),
            Some(Format::OpenAiResponses | Format::OpenAiResponsesStream) => {
                formats::openai_responses(value, Format::OpenAiResponses)
            }
            Some(Format::Gemini | Format::GeminiStream) => gemini::response(&value, Format::Gemini),
            Some(Format::GeminiBatch) => gemini::batch_line(&value),
            Some(Format::VertexBatch) => gemini::vertex_line(&value),
            Some(Format::Cohere) => cohere::response(&value),
            Some(Format::Ollama | Format::OllamaStream) => ollama::response(&value),
            Some(Format::Inspect) => inspect::log(&value, base),
            Some(Format::Otel) => otel::export(&value),
            Some(Format::Promptfoo) => promptfoo::document(&value),
            Some(Format::Records) => formats::records(value),
            Some(Format::Json) => match &self.opts.text_path {
                Some(p) => formats::custom(&value, p, &self.opts.meta),
                None => Record::Problem(Problem::BadRecord("--format json needs --text-path".to_owned())),
            },
            Some(Format::Text | Format::RunLog) => Record::Context,
            None => match (shape, &self.opts.text_path) {
                (Shape::Ledger, _) => {
                    let dir = path.parent().unwrap_or(Path::new(""));
                    let _ = self.campaigns.get(dir, self.opts.max_line, &mut |_| {});
                    Record::Context
                }
                (Shape::BenchContext, _) => Record::Context,
                (_, Some(p)) => formats::custom(&value, p, &self.opts.meta),
                _ => Record::Problem(Problem::UnknownShape(describe(&value))),
            },
        }
    }
}

/// One file read line by line, across as many reads as a tail makes.
#[derive(Debug)]
pub(crate) struct JsonlState {
    /// Where the next read starts: just past the last line read.
    pub offset: u64,
    /// The number of the last line read.
    pub line: usize,
    /// The last line read had no newline (it was a whole record already); the newline
    /// that completes it is not a new line.
    pending_newline: bool,
    run_log: Option<RunLog>,
    problems: usize,
    suppressed: usize,
    tail: bool,
    /// Read only the line that starts here (a reply read again, [`super::Locator`]).
    only: Option<u64>,
    /// A listing: lines are skimmed ([`skim`]), a batch at a time in parallel.
    pub list: bool,
    /// Lines skimmed and listed, lines skimmed in vain (read whole after all), and lines
    /// read whole (as `Value`s).
    skimmed: usize,
    skim_misses: usize,
    whole: usize,
}

/// Lines gathered to be read in parallel, at most (in count and in bytes).
const BATCH_LINES: usize = 1024;
const BATCH_BYTES: usize = 4 << 20;
/// The most of a thread's scratch for decoding kept between lines.
const SCRATCH_KEPT: usize = 1 << 20;

/// Complete lines of a listing, gathered to be read in parallel: their bytes end to end.
#[derive(Default)]
struct Batch {
    bytes: Vec<u8>,
    /// Each line, and where its bytes start.
    lines: Vec<(LineAt, usize)>,
}

impl Batch {
    fn line(&self, i: usize) -> &[u8] {
        let end = self.lines.get(i + 1).map_or(self.bytes.len(), |&(_, start)| start);
        &self.bytes[self.lines[i].1..end]
    }

    fn is_full(&self) -> bool {
        self.lines.len() >= BATCH_LINES || self.bytes.len() >= BATCH_BYTES
    }

    /// Its lines read for a listing, in parallel.
    fn prepare(&self, skims: bool) -> Vec<Prepared> {
        thread_local! {
            /// Where a thread decodes long strings: kept, so that it is not grown afresh
            /// for every line, within reason.
            static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        (0..self.lines.len())
            .into_par_iter()
            .map(|i| {
                SCRATCH.with_borrow_mut(|scratch| {
                    let prepared = prepare(self.line(i), &self.lines[i].0, skims, scratch);
                    scratch.clear();
                    scratch.shrink_to(SCRATCH_KEPT);
                    prepared
                })
            })
            .collect()
    }
}

/// A listing's batches: the one being gathered, and the one before it, being read in
/// parallel meanwhile.
#[derive(Default)]
struct Batches {
    gathering: Batch,
    reading: Option<mpsc::Receiver<(Batch, Vec<Prepared>)>>,
}

/// A line as the parallel part of a listing leaves it.
enum Prepared {
    /// Skimmed: the small line's value, and its long strings' measures.
    Skimmed(Value, Vec<Measured>),
    Whole(Result<(Value, Option<Problem>), Problem>),
}

/// Reads `line` for a listing: skimmed where `skims` and it can be, else whole.
fn prepare(line: &[u8], at: &LineAt, skims: bool, scratch: &mut Vec<u8>) -> Prepared {
    if skims
        && let Some(s) = skim::skim(line, scratch)
        && let Ok(value) = nan::parse(&s.small)
    {
        return Prepared::Skimmed(value, s.long);
    }
    Prepared::Whole(parse_line(line, at))
}

impl JsonlState {
    fn new(tail: bool) -> JsonlState {
        JsonlState {
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
        }
    }

    /// The next read reads the one line at byte `offset`, line number `line`, alone.
    pub fn one_line(&mut self, offset: u64, line: usize) {
        self.offset = offset;
        self.line = line.saturating_sub(1);
        self.only = Some(offset);
    }

    /// Whether the line at `offset` is past what this read is to read.
    fn past(&self, offset: u64) -> bool {
        self.only.is_some_and(|only| offset > only)
    }

    fn problem(&mut self, opts: &LoadOptions, d: Diagnostic, emit: &mut dyn FnMut(FileOut)) {
        self.problems += 1;
        if self.problems <= opts.max_problems_per_file {
            emit(FileOut::Item(Item::Diagnostic(d)));
        } else {
            self.suppressed += 1;
        }
    }

    fn finish(&mut self, path: &Path, emit: &mut dyn FnMut(FileOut)) {
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
    pub fn read(&mut self, loader: &Loader, path: &Path, file: &File, emit: &mut dyn FnMut(FileOut)) {
        if let Err(e) = self.read_lines(loader, path, file, emit) {
            let d = Diagnostic::new(path, Problem::from_io(&e, true)).at_offset(self.offset);
            emit(FileOut::Item(Item::Diagnostic(d)));
        }
        self.finish(path, emit);
    }

    fn read_lines(
        &mut self,
        loader: &Loader,
        path: &Path,
        mut file: &File,
        emit: &mut dyn FnMut(FileOut),
    ) -> io::Result<()> {
        let opts = loader.options();
        let mut buf = Vec::new();
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
        // The first pass of a run log: forward context, and where this read ends.
        let mut end = None;
        if let Some(run_log) = &mut self.run_log {
            run_log.index.clear();
            file.seek(SeekFrom::Start(self.offset))?;
            let mut lines = Lines::new(BufReader::with_capacity(1 << 16, file), self.offset, self.line, opts.max_line);
            let mut last = self.offset;
            let only = self.only;
            while let Some(at) = lines.next_line(&mut buf)? {
                let past = only.is_some_and(|o| at.offset > o);
                if past || (at.ending == Ending::Eof && (at.too_long || cut_short(&buf))) {
                    break;
                }
                if !at.too_long {
                    run_log.index.scan(at.number, &buf);
                }
                last = at.end();
            }
            run_log.index.seal();
            end = Some(last);
        }
        file.seek(SeekFrom::Start(self.offset))?;
        let input: Box<dyn Read + '_> = match end {
            Some(end) => Box::new(file.take(end.saturating_sub(self.offset))),
            None => Box::new(file),
        };
        let mut lines = Lines::new(BufReader::with_capacity(1 << 16, input), self.offset, self.line, opts.max_line);
        let mut batches = self.list.then(Batches::default);
        let read = self.read_each(loader, path, &mut lines, &mut buf, batches.as_mut(), emit);
        if let Some(batches) = &mut batches {
            self.drain(loader, path, batches, emit);
        }
        read
    }

    /// The lines of `lines`, each pushed as it is read or, in a listing, gathered into
    /// batches and pushed a batch at a time.
    fn read_each(
        &mut self,
        loader: &Loader,
        path: &Path,
        lines: &mut Lines<impl io::BufRead>,
        buf: &mut Vec<u8>,
        mut batches: Option<&mut Batches>,
        emit: &mut dyn FnMut(FileOut),
    ) -> io::Result<()> {
        let opts = loader.options();
        loop {
            if loader.stopped() {
                break;
            }
            let at = match batches.as_deref_mut() {
                // Read straight into the batch; a line that is not a complete one of a
                // listing is taken out again, and pushed once what is gathered has gone.
                Some(batches) => {
                    let batch = &mut batches.gathering;
                    let start = batch.bytes.len();
                    let Some(at) = lines.next_line_onto(&mut batch.bytes)? else { break };
                    if !at.too_long && at.ending == Ending::Newline && !self.past(at.offset) {
                        self.advance(&at);
                        if batch.bytes[start..].iter().all(u8::is_ascii_whitespace) {
                            batch.bytes.truncate(start);
                        } else {
                            batch.lines.push((at, start));
                            if batch.is_full() {
                                self.send(loader, path, batches, emit);
                            }
                        }
                        continue;
                    }
                    buf.clear();
                    buf.extend_from_slice(&batch.bytes[start..]);
                    batch.bytes.truncate(start);
                    self.drain(loader, path, batches, emit);
                    at
                }
                None => match lines.next_line(buf)? {
                    Some(at) => at,
                    None => break,
                },
            };
            if self.past(at.offset) {
                break;
            }
            if at.too_long {
                if at.ending == Ending::Eof {
                    break;
                }
                self.advance(&at);
                let d = Diagnostic::new(path, Problem::LineTooLong { len: at.len, max: opts.max_line })
                    .at_line(at.number, at.offset);
                self.problem(opts, d, emit);
                continue;
            }
            let blank = buf.iter().all(u8::is_ascii_whitespace);
            if at.ending == Ending::Eof {
                // A last line with no newline is held back until it is a whole record: the
                // writer may be in the middle of it. One that no more bytes could make JSON
                // is broken now, and said so.
                if blank {
                    break;
                }
                match parse_line(buf, &at) {
                    Ok((value, bad)) => {
                        self.advance(&at);
                        self.pending_newline = true;
                        self.record(loader, path, value, &at, bad, None, emit);
                    }
                    Err(p) if !cut_short(buf) => {
                        self.advance(&at);
                        self.pending_newline = true;
                        self.problem(opts, Diagnostic::new(path, p).at_line(at.number, at.offset), emit);
                    }
                    Err(_) => {}
                }
                break;
            }
            self.advance(&at);
            if blank {
                continue;
            }
            self.parsed(loader, path, parse_line(buf, &at), &at, emit);
        }
        Ok(())
    }

    /// A line read as JSON (or what stood in the way), pushed.
    fn parsed(
        &mut self,
        loader: &Loader,
        path: &Path,
        parsed: Result<(Value, Option<Problem>), Problem>,
        at: &LineAt,
        emit: &mut dyn FnMut(FileOut),
    ) {
        self.whole += 1;
        match parsed {
            Ok((value, bad)) => self.record(loader, path, value, at, bad, None, emit),
            Err(p) => self.problem(loader.options(), Diagnostic::new(path, p).at_line(at.number, at.offset), emit),
        }
    }

    /// Sends the batch gathered to be read in parallel while the next is gathered, once
    /// the one read before it is pushed.
    fn send(&mut self, loader: &Loader, path: &Path, batches: &mut Batches, emit: &mut dyn FnMut(FileOut)) {
        let spare = match batches.reading.take().and_then(|r| r.recv().ok()) {
            Some((batch, prepared)) => self.push_prepared(loader, path, batch, prepared, emit),
            None => Batch::default(),
        };
        let batch = std::mem::replace(&mut batches.gathering, spare);
        let skims = self.skims_pay();
        let (done, reading) = mpsc::channel();
        // On a thread of the pool, that thread waiting for the pool could leave it none.
        if rayon::current_thread_index().is_some() {
            let prepared = batch.prepare(skims);
            let _ = done.send((batch, prepared));
        } else {
            rayon::spawn(move || {
                let prepared = batch.prepare(skims);
                let _ = done.send((batch, prepared));
            });
        }
        batches.reading = Some(reading);
    }

    /// Pushes every line gathered, in order.
    fn drain(&mut self, loader: &Loader, path: &Path, batches: &mut Batches, emit: &mut dyn FnMut(FileOut)) {
        if let Some((batch, prepared)) = batches.reading.take().and_then(|r| r.recv().ok()) {
            self.push_prepared(loader, path, batch, prepared, emit);
        }
        if !batches.gathering.lines.is_empty() {
            let batch = std::mem::take(&mut batches.gathering);
            let prepared = batch.prepare(self.skims_pay());
            batches.gathering = self.push_prepared(loader, path, batch, prepared, emit);
        }
    }

    /// Skimming stops paying in a file whose long lines are all to be read whole (a run
    /// log, whose replies are in events).
    fn skims_pay(&self) -> bool {
        self.skim_misses < 16 || self.skimmed > self.skim_misses
    }

    /// Pushes what a batch's lines hold, in order; the batch, emptied, for the next.
    fn push_prepared(
        &mut self,
        loader: &Loader,
        path: &Path,
        mut batch: Batch,
        prepared: Vec<Prepared>,
        emit: &mut dyn FnMut(FileOut),
    ) -> Batch {
        for (i, prepared) in prepared.into_iter().enumerate() {
            let at = batch.lines[i].0;
            match prepared {
                Prepared::Skimmed(value, long) => {
                    if self.record_skimmed(loader, path, value, &long, &at, emit) {
                        self.skimmed += 1;
                    } else {
                        self.skim_misses += 1;
                        self.parsed(loader, path, parse_line(batch.line(i), &at), &at, emit);
                    }
                }
                Prepared::Whole(parsed) => self.parsed(loader, path, parsed, &at, emit),
            }
        }
        batch.lines.clear();
        batch.bytes.clear();
        batch
    }

    /// A skimmed line's records, pushed with the texts stood in for listed; false, with
    /// nothing pushed, when only the whole line can say what it holds (see
    /// [`skim::listed`]).
    fn record_skimmed(
        &mut self,
        loader: &Loader,
        path: &Path,
        value: Value,
        long: &[Measured],
        at: &LineAt,
        emit: &mut dyn FnMut(FileOut),
    ) -> bool {
        let opts = loader.options();
        let line = Some(at.number);
        let mut records = Vec::new();
        for (index, value) in elements(value, None) {
            let shape = classify(&value);
            let format = opts.format.or_else(|| shape.format());
            if is_event(opts, shape) || format.is_some_and(|f| !skim::takes_text_as_is(f)) {
                return false;
            }
            let record = loader.convert(path, value, &name(path, line, index));
            match skim::listed(record, long) {
                Some(record) => records.push((index, record)),
                None => return false,
            }
        }
        for (index, record) in records {
            self.push(loader, path, record, line, at.offset, index, emit);
        }
        true
    }

    fn advance(&mut self, at: &LineAt) {
        self.offset = at.end();
        self.line = at.number;
    }

    /// One record (or, for a JSON array, each of its elements). `index` is the record's
    /// place in the document it is an element of.
    #[allow(clippy::too_many_arguments)]
    fn record(
        &mut self,
        loader: &Loader,
        path: &Path,
        value: Value,
        at: &LineAt,
        bad: Option<Problem>,
        index: Option<usize>,
        emit: &mut dyn FnMut(FileOut),
    ) {
        let opts = loader.options();
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
            if is_event(opts, classify(&value)) {
                if self.run_log.is_none() {
                    self.run_log = Some(loader.run_log(path, self.tail, emit));
                }
                if let Some(run_log) = &mut self.run_log {
                    let mut problems = Vec::new();
                    run_log.record(value, at.number, at.offset, path, &mut |out| match out {
                        Out::Reply(r) => emit(FileOut::Item(Item::Reply(r))),
                        Out::Event(e) => emit(FileOut::Item(Item::Event(e))),
                        Out::Amended { line, meta } => emit(FileOut::Amended { line, meta }),
                        Out::Problem(p) => problems.push(p),
                    });
                    for p in problems {
                        self.problem(opts, locate(Diagnostic::new(path, p)), emit);
                    }
                }
                continue;
            }
            let base = name(path, line, index);
            let record = loader.convert(path, value, &base);
            self.push(loader, path, record, line, at.offset, index, emit);
        }
    }

    /// What one record gave, pushed: replies and events under their own ids or, lacking
    /// one, `path:line` (`#index` for an element of a document, `#n` for the n-th call of
    /// a record of many).
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        loader: &Loader,
        path: &Path,
        record: Record,
        line: Option<usize>,
        offset: u64,
        index: Option<usize>,
        emit: &mut dyn FnMut(FileOut),
    ) {
        let opts = loader.options();
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
                        (Problem::UnknownShape(s), Some(i)) => Problem::UnknownShape(format!("element {i}: {s}")),
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
    let base = super::reply::reference(path, line);
    match index {
        Some(i) => format!("{base}#{i}"),
        None => base,
    }
}

/// Steps past a UTF-8 byte order mark, which JSON parsers refuse.
fn skip_bom(input: &mut impl io::BufRead) -> io::Result<()> {
    if input.fill_buf()?.starts_with(b"\xef\xbb\xbf") {
        input.consume(3);
    }
    Ok(())
}

/// A line as JSON. Invalid UTF-8 is decoded lossily and said so, at its byte in the file.
fn parse_line(buf: &[u8], at: &LineAt) -> Result<(Value, Option<Problem>), Problem> {
    match nan::parse(buf) {
        Ok(v) => Ok((v, None)),
        Err(e) if std::str::from_utf8(buf).is_ok() => Err(Problem::MalformedJson(json_error(&e))),
        Err(_) => {
            let (text, bad) = decode(buf.to_vec());
            let value = nan::parse(text.as_bytes()).map_err(|e| Problem::MalformedJson(json_error(&e)))?;
            Ok((value, bad.map(|(first, count)| Problem::InvalidUtf8 { first: at.offset + first, count })))
        }
    }
}

/// Whether `line` is JSON cut short: what a line still being written is. (Every prefix of
/// a JSON text fails, if it fails, at its end.)
fn cut_short(line: &[u8]) -> bool {
    serde_json::from_slice::<IgnoredAny>(line).is_err_and(|e| e.is_eof())
}

/// serde_json's message, with the position said once and in the terms of a line.
pub(crate) fn json_error(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let message = full.rsplit_once(" at line ").map_or(full.as_str(), |(m, _)| m);
    if e.line() <= 1 {
        format!("{message} at column {}", e.column())
    } else {
        format!("{message} at line {} column {}", e.line(), e.column())
    }
}

/// Text from bytes, lossily; the offset of the first bad byte and the number of bad
/// sequences when there were any.
pub(crate) fn decode(bytes: Vec<u8>) -> (String, Option<(u64, usize)>) {
    match String::from_utf8(bytes) {
        Ok(s) => (s, None),
        Err(e) => {
            let bytes = e.into_bytes();
            let (mut first, mut count, mut at) = (None, 0, 0usize);
            for chunk in bytes.utf8_chunks() {
                at += chunk.valid().len();
                if !chunk.invalid().is_empty() {
                    first.get_or_insert(at);
                    count += 1;
                }
                at += chunk.invalid().len();
            }
            let text = String::from_utf8_lossy(&bytes).into_owned();
            (text, Some((first.unwrap_or(0) as u64, count)))
        }
    }
}

fn head(file: &mut File) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(SNIFF);
    file.take(SNIFF as u64).read_to_end(&mut head)?;
    file.seek(SeekFrom::Start(0))?;
    Ok(head)
}

/// What the first lines of a file say it is.
struct First {
    /// The shape of the first record among the first few non-blank lines.
    shape: Option<Shape>,
    /// That record was the first non-blank line.
    on_first_line: bool,
    /// The first non-blank line is JSON cut short: a value goes on past it.
    opens_a_value: bool,
    /// The first non-blank line opens an array.
    opens_array: bool,
}

/// `past_first`: look on past a first line that opens a value, for a record on a later one.
fn first_record(file: &mut File, max_line: usize, past_first: bool) -> io::Result<First> {
    file.seek(SeekFrom::Start(0))?;
    let mut lines = Lines::new(BufReader::with_capacity(1 << 16, &*file), 0, 0, max_line);
    let mut buf = Vec::new();
    let mut tried = 0;
    let mut opens_a_value = false;
    let mut opens_array = false;
    while let Some(at) = lines.next_line(&mut buf)? {
        if at.too_long || buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if tried == 0 {
            let line = buf.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&buf);
            opens_array = line.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[');
        }
        if let Some(shape) = shape_of(&buf, &at) {
            return Ok(First { shape: Some(shape), on_first_line: tried == 0, opens_a_value, opens_array });
        }
        if tried == 0 {
            opens_a_value = cut_short(buf.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&buf));
            // A document spread over lines is read as one; its later lines (one may be most
            // of the file) are looked at only if it turns out not to be one.
            if opens_a_value && !past_first {
                break;
            }
        }
        tried += 1;
        if tried == 16 {
            break;
        }
    }
    Ok(First { shape: None, on_first_line: false, opens_a_value, opens_array })
}

/// Values longer than this are not read to learn a record's shape.
const SHAPE_VALUE_MAX: usize = 4096;

/// A record's shape, or `None` when the line is not JSON. The shape is in a record's keys and
/// short fields, so a long value (the reply in it) is only checked, not copied: a file that is
/// one 200 MB line is read once to learn that it is a text reply, not three times over.
fn shape_of(line: &[u8], at: &LineAt) -> Option<Shape> {
    if line.len() <= SHAPE_VALUE_MAX {
        return parse_line(line, at).ok().map(|(v, _)| classify(&v));
    }
    let Ok(fields) = serde_json::from_slice::<BTreeMap<String, &RawValue>>(line) else {
        // Not an object (no known shape), or not UTF-8 (decoded lossily and read whole).
        let not_an_object = std::str::from_utf8(line).is_ok() && serde_json::from_slice::<IgnoredAny>(line).is_ok();
        return if not_an_object { Some(Shape::Unknown) } else { parse_line(line, at).ok().map(|(v, _)| classify(&v)) };
    };
    // Two levels of keys: Bedrock's shape is `output.message`.
    let record = fields
        .into_iter()
        .map(|(k, raw)| {
            let long_object = raw.get().len() > SHAPE_VALUE_MAX && raw.get().starts_with('{');
            let inner = long_object.then(|| serde_json::from_str::<BTreeMap<String, &RawValue>>(raw.get()).ok());
            let value = match inner.flatten() {
                Some(inner) => Value::Object(inner.into_iter().map(|(k, v)| (k, stand_in(v))).collect()),
                None => stand_in(raw),
            };
            (k, value)
        })
        .collect();
    Some(classify(&Value::Object(record)))
}

/// A value as it is for a short one; for a long one, a value of its kind that is empty.
fn stand_in(raw: &RawValue) -> Value {
    let text = raw.get();
    if text.len() <= SHAPE_VALUE_MAX {
        return serde_json::from_str(text).unwrap_or(Value::Null);
    }
    match text.as_bytes().first() {
        Some(b'{') => Value::Object(serde_json::Map::new()),
        Some(b'[') => Value::Array(Vec::new()),
        Some(b'"') => Value::String(String::new()),
        _ => serde_json::from_str(text).unwrap_or(Value::Null),
    }
}

/// What kind of binary file `head` begins, if it is one.
fn binary(head: &[u8]) -> Option<&'static str> {
    const MAGIC: [(&[u8], &str); 11] = [
        (b"\x89PNG", "a PNG image"),
        (b"\xff\xd8\xff", "a JPEG image"),
        (b"GIF8", "a GIF image"),
        (b"%PDF-", "a PDF"),
        (b"PK\x03\x04", "a zip archive"),
        (b"\x1f\x8b", "gzip data"),
        (b"\x28\xb5\x2f\xfd", "zstd data"),
        (b"\x7fELF", "an executable"),
        (b"SQLite format 3\0", "an SQLite database"),
        (b"\xff\xfe", "UTF-16 text, which is not read: convert it to UTF-8"),
        (b"\xfe\xff", "UTF-16 text, which is not read: convert it to UTF-8"),
    ];
    if let Some((_, what)) = MAGIC.iter().find(|(m, _)| head.starts_with(m)) {
        return Some(what);
    }
    head.contains(&0).then_some("it contains NUL bytes")
}

/// Whether the file is named as JSONL.
fn is_line_named(path: &Path) -> bool {
    matches!(extension(path).as_str(), "jsonl" | "ndjson")
}

fn extension(path: &Path) -> String {
    path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runlog::{Change, Tail};

    #[test]
    fn a_loader_can_be_shared_by_threads() {
        fn shared<T: Send + Sync>() {}
        shared::<Loader>();
    }

    #[test]
    fn lossy_decoding_reports_the_first_bad_byte_and_the_count() {
        let (text, bad) = decode(b"ok \xff then \xc3( end".to_vec());
        assert_eq!(text, "ok \u{fffd} then \u{fffd}( end");
        assert_eq!(bad, Some((3, 2)));
    }

    #[test]
    fn binary_files_are_told_by_magic_or_nul() {
        assert_eq!(binary(b"\x89PNG\r\n\x1a\n"), Some("a PNG image"));
        assert_eq!(binary(b"abc\0def"), Some("it contains NUL bytes"));
        assert_eq!(binary("plain é text".as_bytes()), None);
    }

    #[test]
    fn a_long_record_is_shaped_without_reading_its_long_values() {
        let long = "x".repeat(3 * SHAPE_VALUE_MAX);
        let at = LineAt { number: 1, offset: 0, ending: Ending::Newline, len: 0, too_long: false };
        for record in [
            format!(r#"{{"type":"message","role":"assistant","content":[{{"type":"text","text":"{long}"}}]}}"#),
            format!(
                r#"{{"output":{{"message":{{"role":"assistant","content":[{{"text":"{long}"}}]}}}},"usage":{{}}}}"#
            ),
            format!(r#"{{"choices":[{{"message":{{"content":"{long}"}}}}]}}"#),
            format!(r#"{{"ts":"t","type":"agent_call","output":"{long}"}}"#),
            format!(r#"{{"html":"{long}","log":"ok"}}"#),
            format!(r#"[{{"html":"{long}"}}]"#),
        ] {
            let full: Value = serde_json::from_str(&record).unwrap();
            assert_eq!(shape_of(record.as_bytes(), &at), Some(classify(&full)), "{}", &record[..60]);
        }
        assert_eq!(shape_of(format!(r#"{{"html":"{long}"#).as_bytes(), &at), None);
    }

    /// What `paths` give, a reply as a listing keeps it: listed, or loaded and measured.
    fn listed(paths: &[PathBuf], list: bool) -> Vec<Listing> {
        let loader = Loader::new(LoadOptions::default());
        let mut got = Vec::new();
        let mut take = |l: Listing| {
            got.push(match l {
                Listing::Item(Item::Reply(r)) => Listing::Listed(Listed::of(&r)),
                // Where the text is written is a listing's own (`locator`'s tests read it).
                Listing::Listed(mut l) => {
                    if let Some(w) = l.written.take() {
                        assert_eq!((w.len, w.hash), (l.len, l.hash), "{}", l.id);
                    }
                    Listing::Listed(l)
                }
                other => other,
            })
        };
        if list {
            loader.list(paths, &mut take);
        } else {
            loader.load(paths, &mut |item| take(Listing::Item(item)));
        }
        got
    }

    /// Lines a skim must list exactly as loading reads them, or leave to loading.
    fn awkward_lines() -> String {
        let text = r#"a \"quoted\" line\n\ttab \u00e9 \ud83d\ude00 é € \/ \\ "#.repeat(40);
        let long = "y".repeat(2 * skim::LONG);
        [
            format!(r#"{{"id":"r1","text":"{text}"}}"#),
            format!(r#"{{"id":"r2","text":"{text}\ud800 lone"}}"#),
            format!(r#"{{"id":"{long}","text":"{text}"}}"#),
            format!(r#"{{"text":"{text}","fields":{{"note":"{long}"}}}}"#),
            format!(r#"{{"id":{{"k":"{long}"}},"text":"short"}}"#),
            format!(r#"[{{"id":"e1","text":"{text}"}},{{"id":"e2","text":"{long}"}},{{"text":"s"}}]"#),
            format!(
                r#"{{"id":"m1","type":"message","role":"assistant","content":[{{"type":"text","text":"{text}"}}],"stop_reason":"max_tokens"}}"#
            ),
            format!(
                r#"{{"id":"m2","type":"message","role":"assistant","content":[{{"type":"text","text":"{text}"}},{{"type":"text","text":"{long}"}}]}}"#
            ),
            format!(
                r#"{{"id":"c1","choices":[{{"message":{{"role":"assistant","content":"{text}"}},"finish_reason":"stop"}}],"model":"m"}}"#
            ),
            format!(
                r#"{{"id":"c2","choices":[{{"message":{{"role":"assistant","content":null,"refusal":"{long}"}}}}]}}"#
            ),
            format!(r#"{{"id":"n1","score":NaN,"text":"{text}"}}"#),
            format!(r#"{{"id":"bad","text":"{text}", oops}}"#),
            format!(r#"{{"id":"bad2","text":"{text}"#),
            String::new(),
            format!(r#"{{"ts":"t","type":"agent_call","agent":"page","output":"{text}"}}"#),
            format!(r#"{{"what":"{long}"}}"#),
            format!(r#"{{"id":"last","text":"{text}"}}"#),
        ]
        .join("\n")
    }

    fn id_of(item: &Item) -> String {
        match item {
            Item::Reply(r) => r.id.clone(),
            other => format!("{other:?}"),
        }
    }

    /// A load or a listing told to stop reads no further file, and no further than the line
    /// it is at; what was read up to then is as it was.
    #[test]
    fn a_load_told_to_stop_reads_no_further() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["a.jsonl", "b.jsonl"] {
            let lines: String =
                (0..2000).map(|i| format!("{{\"id\":\"{f}-{i}\",\"text\":\"{}\"}}\n", "word ".repeat(200))).collect();
            std::fs::write(dir.path().join(f), lines).unwrap();
        }
        let paths = [dir.path().to_path_buf()];
        let whole = {
            let mut ids = Vec::new();
            Loader::default().load(&paths, &mut |item| ids.push(id_of(&item)));
            ids
        };
        assert_eq!(whole.len(), 4000);

        let loader = Loader::default();
        let mut ids = Vec::new();
        loader.load(&paths, &mut |item| {
            ids.push(id_of(&item));
            if ids.len() == 5 {
                loader.stop();
            }
        });
        assert_eq!(ids, whole[..5]);

        // A listing reads a batch of lines at a time: it stops within the batch it is at.
        let loader = Loader::default();
        let mut listed = 0;
        loader.list(&paths, &mut |_| {
            listed += 1;
            if listed == 5 {
                loader.stop();
            }
        });
        assert!((5..=2 * BATCH_LINES).contains(&listed), "{listed}");
    }

    #[test]
    fn a_listing_is_what_loading_gives_measured() {
        let dir = tempfile::tempdir().unwrap();
        let awkward = dir.path().join("awkward.jsonl");
        std::fs::write(&awkward, awkward_lines()).unwrap();
        let mut not_utf8 = format!("{{\"id\":\"u\",\"text\":\"{}\"}}\n", "z".repeat(2000)).into_bytes();
        not_utf8[1000] = 0xff;
        // And a bad byte in a short string, which the small line keeps.
        let mut in_short = format!("{{\"id\":\"v?\",\"text\":\"{}\"}}\n", "z".repeat(2000)).into_bytes();
        in_short[8] = 0xff;
        not_utf8.extend(in_short);
        std::fs::write(dir.path().join("bytes.jsonl"), not_utf8).unwrap();
        let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-logs");
        for paths in [vec![dir.path().to_path_buf()], vec![samples]] {
            let loaded = listed(&paths, false);
            assert!(loaded.len() > 15, "{loaded:?}");
            assert_eq!(listed(&paths, true), loaded);
        }
        // Followed, likewise.
        let changes = |tail: Tail| {
            let mut tail = tail;
            let mut got = Vec::new();
            tail.read_new(&mut |c| match c {
                Change::Item(Item::Reply(r)) => got.push(Change::Listed(Listed::of(&r))),
                Change::Listed(l) => got.push(Change::Listed(Listed { written: None, ..l })),
                other => got.push(other),
            });
            got
        };
        let loader = std::sync::Arc::new(Loader::new(LoadOptions::default()));
        let listed = changes(Tail::new(&awkward, loader.clone()).listing());
        assert!(listed.iter().any(|c| matches!(c, Change::Listed(l) if l.id == "r1")));
        assert_eq!(listed, changes(Tail::new(&awkward, loader)));
    }

    #[test]
    fn a_listing_reads_no_line_of_long_records_whole() {
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
        assert_eq!(read(true), (300, 0, 300));
        assert_eq!(read(false), (300, 300, 0));
    }

    #[test]
    fn json_errors_name_the_column() {
        let e = serde_json::from_str::<Value>("{\"a\": tru}").unwrap_err();
        assert_eq!(json_error(&e), "expected ident at column 10");
    }
}
