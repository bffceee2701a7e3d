//! The loader's front: paths in, replies, calls without a reply and diagnostics pushed out.
//! Each file is opened, told what it is (`file`), and read: line by line (`jsonl`), as one
//! JSON document a record at a time (`document`), as a stream put back together (`stream`),
//! as an eval archive, or whole as one reply.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::Value;

use crate::logs::ahead;
use crate::logs::bytes::document::{self, Flow};
use crate::logs::bytes::json::{decode, json_error, skip_bom};
use crate::logs::bytes::lines::{Ending, LineAt};
use crate::logs::bytes::nan;
use crate::logs::campaign::Campaigns;
use crate::logs::discover::{Found, discover};
use crate::logs::file::{self, Opened, Plan, What, extension, is_line_named};
use crate::logs::formats::record::Record;
use crate::logs::formats::stream::Out;
use crate::logs::formats::{self, Shape, classify, gemini, helm, inspect, lm_eval, promptfoo};
use crate::logs::jsonl::{Host, JsonlReader, Place, Source};
use crate::logs::model::diagnostic::{Diagnostic, Problem};
use crate::logs::model::options::LoadOptions;
use crate::logs::model::reply::{FileOut, Format, Item, Listing, Reply};
use crate::logs::pipeline::RunLog;

/// Loads replies from files and directories. Shareable across threads: the campaign
/// ledgers it has read are cached inside.
#[derive(Debug, Default)]
pub struct Loader {
    opts: LoadOptions,
    campaigns: Campaigns,
    /// The lm-evaluation-harness runs whose samples were read: their models.
    evals: lm_eval::Runs,
    /// Set by [`Loader::stop`]: what a caller with nowhere left to put items says.
    stopped: AtomicBool,
}

/// How a file turned out to be read.
pub(crate) enum Start {
    /// Line by line, from the reader's offset; the caller reads it.
    Jsonl(File, Box<JsonlReader>),
    /// Read whole, already pushed.
    Whole,
    /// Not read (a diagnostic was pushed, or it is a run's context file).
    Skipped,
    /// A tail's file's first line is not complete yet.
    NotYet,
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
        Loader {
            opts,
            campaigns: Campaigns::default(),
            evals: lm_eval::Runs::default(),
            stopped: AtomicBool::new(false),
        }
    }

    /// Stops a load or a listing under way: no further file is opened, and a file of lines
    /// is read no further than the line it is at. A caller whose output went away (`list |
    /// head`) says so from its sink, and the rest of a campaign is not read for nothing.
    pub fn stop(&self) {
        self.stopped.store(true, Ordering::Relaxed);
    }

    pub fn options(&self) -> &LoadOptions {
        &self.opts
    }

    /// Every reply, event and diagnostic in `paths`, pushed to `sink` in path-then-line
    /// order. The files are read side by side on every core (`logs::ahead`).
    pub fn load(&self, paths: &[PathBuf], sink: &mut dyn FnMut(Item)) {
        self.load_found(&found(paths), &mut |_, item| sink(item));
    }

    /// [`Loader::load`] of files found already ([`discover`]), each item pushed with the
    /// index in `found` of the file it is from.
    pub fn load_found(&self, found: &[Found], sink: &mut dyn FnMut(usize, Item)) {
        self.side_by_side(found, false, &mut |i, out| {
            if let FileOut::Item(item) = out {
                sink(i, item);
            }
        });
    }

    /// [`Loader::load`] for a listing: a reply whose text a line holds whole is pushed as
    /// [`Listed`](crate::logs::Listed), its text measured, not held (the rest as items, in the same order).
    pub fn list(&self, paths: &[PathBuf], sink: &mut dyn FnMut(Listing)) {
        self.side_by_side(&found(paths), true, &mut |_, out| match out {
            FileOut::Item(item) => sink(Listing::Item(item)),
            FileOut::Listed(listed) => sink(Listing::Listed(listed)),
            FileOut::Amended { .. } => {}
        });
    }

    /// The files of `found` read side by side, what each gives pushed in order.
    fn side_by_side(&self, found: &[Found], list: bool, sink: &mut dyn FnMut(usize, FileOut)) {
        let reading = ahead::Reading {
            read: &|path, emit| self.read_file(path, list, emit),
            alone: &|path| self.read_alone(path),
            problem: &|d| FileOut::Item(Item::Diagnostic(d.clone())),
            stopped: &|| self.stopped(),
        };
        reading.in_order(found, sink);
    }

    /// Whether `path` must be read in its place, after the files before it: where it may be
    /// the first to ask for a ledger with problems, which are pushed with what the first file
    /// to ask for it gives.
    fn read_alone(&self, path: &Path) -> bool {
        let dir = path.parent().unwrap_or(Path::new(""));
        let max = self.opts.max_line;
        self.campaigns.has_problems(dir, max) || dir.parent().is_some_and(|up| self.campaigns.has_problems(up, max))
    }

    /// [`Loader::list_file`] or [`Loader::load_file`], as what a file gives.
    fn read_file(&self, path: &Path, list: bool, emit: &mut dyn FnMut(FileOut)) {
        if let Start::Jsonl(file, mut state) = self.start(path, false, emit) {
            if list {
                state.listing();
            }
            state.read(self, path, &file, emit);
        }
    }

    /// [`Loader::load_file`] for a listing (see [`Loader::list`]).
    pub fn list_file(&self, path: &Path, sink: &mut dyn FnMut(Listing)) {
        self.read_file(path, true, &mut |out| match out {
            FileOut::Item(item) => sink(Listing::Item(item)),
            FileOut::Listed(listed) => sink(Listing::Listed(listed)),
            FileOut::Amended { .. } => {}
        });
    }

    /// One file, as a walk found it (so a missing file is one that vanished).
    pub fn load_file(&self, path: &Path, sink: &mut dyn FnMut(Item)) {
        self.read_file(path, false, &mut |out| {
            if let FileOut::Item(item) = out {
                sink(item);
            }
        });
    }

    /// Why `list` reads nothing of the file at `path`: it cannot be opened, is not a regular
    /// file, is empty or is binary. `explain` and `extract` stop there, as `list` skips it.
    pub fn unread(&self, path: &Path) -> Option<Diagnostic> {
        file::look(&self.opts, path, false).err().map(|p| Diagnostic::new(path, p))
    }

    /// Opens `path`, decides what it is, and reads it if it is read whole. An empty file is
    /// a problem for a tail too, as `list` says of it; the tail reads it again once written.
    pub(crate) fn start(&self, path: &Path, tail: bool, emit: &mut dyn FnMut(FileOut)) -> Start {
        let mut problem = |p: Problem| emit(FileOut::Item(Item::Diagnostic(Diagnostic::new(path, p))));
        let Opened { mut file, len, head, plan } = match file::what(&self.opts, path) {
            Ok(What::Opened(opened)) => opened,
            Ok(What::Context) => return Start::Skipped,
            Ok(What::Ledger) => {
                // The ledger is context: read once, for the run logs beside it.
                let dir = path.parent().unwrap_or(Path::new(""));
                let _ = self.campaigns.get(dir, self.opts.max_line, &mut |d| emit(FileOut::Item(Item::Diagnostic(d))));
                return Start::Skipped;
            }
            Ok(What::Eval(file)) => {
                self.read_eval(path, &file, emit);
                return Start::Whole;
            }
            Ok(What::BedrockStream(file)) => {
                self.read_stream(path, &file, Format::BedrockStream, emit);
                return Start::Whole;
            }
            Err(p) => {
                problem(p);
                return Start::Skipped;
            }
        };
        match plan {
            Plan::Jsonl(shape) => {
                let mut state = JsonlReader::new(tail);
                if self.opts.format == Some(Format::RunLog) || shape == Some(Shape::RunLogEvent) {
                    state.reads_a_run_log(self.run_log(path, tail, emit));
                }
                Start::Jsonl(file, Box::new(state))
            }
            Plan::Text | Plan::Document { .. } if tail && file::may_be_unfinished_jsonl(path, &head, len) => {
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
            Plan::Refused(p) => {
                problem(p);
                Start::Skipped
            }
            Plan::Document { look_on } => match self.read_document(path, &file, emit) {
                Doc::Done => Start::Whole,
                Doc::Text => {
                    self.read_text(path, &mut file, len, emit);
                    Start::Whole
                }
                // A first line cut short, then records: JSONL whose first write was torn (or,
                // named as JSONL, lines each of which will say what is wrong with it).
                Doc::NotJson if is_line_named(path) || (look_on && file::later_record(&self.opts, &mut file)) => {
                    if let Err(e) = file.seek(SeekFrom::Start(0)) {
                        let d = Diagnostic::new(path, Problem::from_io(&e, true));
                        emit(FileOut::Item(Item::Diagnostic(d)));
                        return Start::Skipped;
                    }
                    Start::Jsonl(file, Box::new(JsonlReader::new(tail)))
                }
                Doc::NotJson => {
                    self.read_whole(path, &mut file, len, emit);
                    Start::Whole
                }
            },
        }
    }

    /// `path` as this loader reads it, for a record's reader.
    fn source<'a>(&'a self, path: &'a Path) -> Source<'a> {
        Source { host: self, path }
    }

    /// A stream saved to a file, reassembled; each reply at the line its stream began.
    fn read_stream(&self, path: &Path, file: &File, format: Format, emit: &mut dyn FnMut(FileOut)) {
        let mut state = JsonlReader::new(false);
        let input = BufReader::with_capacity(1 << 16, file);
        // A binary stream has no lines: its replies are numbered in the file, `path#n`.
        let mut numbered = 0;
        let mut push = |out: Out| match out.what {
            Ok(record) if out.line == 0 => {
                state.push(
                    self.source(path),
                    record,
                    Place { line: None, offset: out.offset, index: Some(numbered) },
                    emit,
                );
                numbered += 1;
            }
            Ok(record) => state.push(
                self.source(path),
                record,
                Place { line: Some(out.line), offset: out.offset, index: None },
                emit,
            ),
            Err(p) if out.line == 0 => state.problem(&self.opts, Diagnostic::new(path, p).at_offset(out.offset), emit),
            Err(p) => {
                let d = Diagnostic::new(path, p).at_line(out.line, out.offset);
                state.problem(&self.opts, d, emit);
            }
        };
        let read = formats::read_stream(input, format, self.opts.max_line, &mut push);
        if let Err(e) = read {
            emit(FileOut::Item(Item::Diagnostic(Diagnostic::new(path, Problem::from_io(&e, true)))));
        }
        state.finish(path, emit);
    }

    /// An Inspect `.eval` archive: a reply per sample, in the archive's order.
    fn read_eval(&self, path: &Path, file: &File, emit: &mut dyn FnMut(FileOut)) {
        let mut state = JsonlReader::new(false);
        let base = path.display().to_string();
        inspect::read_eval(file, &base, &mut |r| match r {
            Ok(record) => state.push(self.source(path), record, Place::in_document(None), emit),
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
        let mut state = JsonlReader::new(false);
        let mut values = 0usize;
        // Buffered again after the rewrite: serde_json reads a byte at a time, and std reads a
        // byte from a `BufReader` without a call per byte.
        let input = BufReader::with_capacity(1 << 16, nan::Tolerant::new(input));
        let mut chunks = gemini::GeminiArray::default();
        let outcome = document::read(input, &mut |item| {
            let is_chunk = matches!(&item, document::DocumentItem::Value { value, index: Some(_) } if classify(value) == Shape::Gemini);
            if !is_chunk {
                chunks.finish(&mut |i, r| state.push(self.source(path), r, Place::in_document(Some(i)), emit));
            }
            match item {
                document::DocumentItem::Value { value, index: Some(i) } if is_chunk => {
                    values += 1;
                    chunks.feed(value, i, &mut |i, r| {
                        state.push(self.source(path), r, Place::in_document(Some(i)), emit)
                    });
                }
                document::DocumentItem::Value { value, index } => {
                    if values == 0 && text_like && classify(&value) == Shape::Unknown {
                        return Flow::Stop;
                    }
                    // The values after the first of several are numbered, as elements are.
                    let index = index.or((values > 0).then_some(values));
                    values += 1;
                    let at = LineAt { number: 0, offset: 0, ending: Ending::Eof, len: 0, too_long: false };
                    state.record(self.source(path), value, &at, None, index, emit);
                }
                document::DocumentItem::Sample { header, sample } => {
                    values += 1;
                    state.push(
                        self.source(path),
                        inspect::sample(header, &sample, &base),
                        Place::in_document(None),
                        emit,
                    );
                }
                document::DocumentItem::RequestState { adapter, state: request } => {
                    let index = Some(values);
                    values += 1;
                    state.push(
                        self.source(path),
                        helm::request_state(adapter, &request),
                        Place::in_document(index),
                        emit,
                    );
                }
                document::DocumentItem::Result { eval_id, result } => {
                    let index = Some(values);
                    values += 1;
                    state.push(self.source(path), promptfoo::result(eval_id, &result), Place::in_document(index), emit);
                }
            }
            Flow::Continue
        });
        chunks.finish(&mut |i, r| state.push(self.source(path), r, Place::in_document(Some(i)), emit));
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
        let mut state = JsonlReader::new(false);
        let at = LineAt { number: 0, offset: 0, ending: Ending::Eof, len, too_long: false };
        state.record(self.source(path), value, &at, None, None, emit);
        state.finish(path, emit);
    }
}

/// Every file under `paths`, and every problem with a path, in order.
fn found(paths: &[PathBuf]) -> Vec<Found> {
    let mut found = Vec::new();
    discover(paths, &mut |f| found.push(f));
    found
}

impl Host for Loader {
    fn options(&self) -> &LoadOptions {
        &self.opts
    }

    fn stopped(&self) -> bool {
        self.stopped.load(Ordering::Relaxed)
    }

    fn run_log(&self, path: &Path, tail: bool, emit: &mut dyn FnMut(FileOut)) -> RunLog {
        let ctx =
            self.campaigns.context_for(path, self.opts.max_line, &mut |d| emit(FileOut::Item(Item::Diagnostic(d))));
        RunLog::new(ctx, tail)
    }

    fn convert(&self, path: &Path, value: Value, shape: Shape, base: &str) -> Record {
        if shape == Shape::Ledger && self.opts.format.is_none() {
            // A ledger line met among records: its campaign is read, for the run logs in it.
            let dir = path.parent().unwrap_or(Path::new(""));
            let _ = self.campaigns.get(dir, self.opts.max_line, &mut |_| {});
        }
        let cx = formats::Context {
            forced: self.opts.format,
            text_path: self.opts.text_path.as_deref(),
            meta: &self.opts.meta,
            base,
        };
        let mut record = formats::convert(value, shape, &cx);
        if shape == Shape::LmEvalSample {
            // The samples carry no model; the run's results file beside them does.
            if let Some(model) = self.evals.model(path) {
                record.each_meta(&mut |m| {
                    m.model.get_or_insert_with(|| model.as_str().into());
                });
            }
        }
        record
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::bytes::skim;
    use crate::logs::model::reply::Listed;
    use crate::logs::{Change, Tail};

    #[test]
    fn a_loader_can_be_shared_by_threads() {
        fn shared<T: Send + Sync>() {}
        shared::<Loader>();
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

        // A listing reads lines a batch at a time, and stops at the line it is at all the same.
        let loader = Loader::default();
        let mut listed = 0;
        loader.list(&paths, &mut |_| {
            listed += 1;
            if listed == 5 {
                loader.stop();
            }
        });
        assert_eq!(listed, 5);
    }

    /// A campaign read side by side gives what reading its files one after another gives,
    /// listed or loaded: a round whose ledger has a problem (which comes once, with the first
    /// file to ask for it) and rounds whose ledgers are sound.
    #[test]
    fn a_campaign_read_side_by_side_is_its_files_read_in_turn() {
        let dir = tempfile::tempdir().unwrap();
        for round in ["round-1", "round-2", "round-3"] {
            let ledger = if round == "round-2" {
                "{\"id\":\"d0\",\"session_id\":null,\"outcome\":\"ok\"}\nnot json\n"
            } else {
                ""
            };
            std::fs::create_dir_all(dir.path().join(round)).unwrap();
            std::fs::write(dir.path().join(round).join("ledger.jsonl"), ledger).unwrap();
            for doc in ["d0", "d1", "d2"] {
                let run = dir.path().join(round).join(doc);
                std::fs::create_dir_all(&run).unwrap();
                let text = "word \\\"q\\\" ".repeat(100);
                let lines: String = (0..40)
                    .map(|i| {
                        format!(
                            "{{\"ts\":\"t\",\"type\":\"model_call\",\"agent\":\"page\",\"ok\":true,\"model\":\"m{i}\"}}\n{{\"ts\":\"t\",\"type\":\"agent_call\",\"agent\":\"page.md\",\"image\":\"{doc}-p{i}.png\",\"output\":\"{text}{i}\"}}\n"
                        )
                    })
                    .collect();
                std::fs::write(run.join("log.jsonl"), format!("{lines}{{\"ts\":\"t\",\"type\":\"run_complete\"}}\n"))
                    .unwrap();
            }
        }
        let paths = [dir.path().to_path_buf()];
        let mut found = Vec::new();
        discover(&paths, &mut |f| found.push(f));
        for list in [false, true] {
            let loader = Loader::default();
            let mut side_by_side = Vec::new();
            loader.side_by_side(&found, list, &mut |i, out| side_by_side.push((i, format!("{out:?}"))));
            let loader = Loader::default();
            let mut in_turn = Vec::new();
            for (i, f) in found.iter().enumerate() {
                match f {
                    Found::File(path) => loader.read_file(path, list, &mut |out| in_turn.push((i, format!("{out:?}")))),
                    Found::Problem(d) => in_turn.push((i, format!("{:?}", FileOut::Item(Item::Diagnostic(d.clone()))))),
                }
            }
            assert!(in_turn.len() > 9 * 40, "{}", in_turn.len());
            let bad: Vec<_> = in_turn.iter().filter(|(_, o)| o.contains("MalformedJson")).collect();
            assert_eq!(bad.len(), 1, "{bad:?}");
            assert_eq!(side_by_side, in_turn, "listed: {list}");
        }
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
}
