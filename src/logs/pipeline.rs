//! The pipeline's run log (`log.jsonl`): one JSON event per line, replies in the `output`
//! of `agent_call` events, everything else context.
//!
//! Three facts a reader of a reply wants are not on its `agent_call` line:
//!
//! * the model that answered, its tokens and its time are on a separate `model_call` event,
//!   with no id linking the two, and page calls run in parallel so they interleave. The
//!   router logs `model_call` as the provider returns and the caller logs `agent_call`
//!   straight after, so a reply is paired with the nearest preceding successful `model_call`
//!   of the same agent not already paired — an inference, and marked as one;
//! * the review round is logged after the call, as a `reader` or `editor` event carrying
//!   its `iteration`: a review call belongs to the first such event after it (or, past the
//!   last one, the last one before it);
//! * the page's verification (`page_verify_ok` / `page_verify_failed`) and the run's outcome
//!   (`run_complete` / `run_failed`) come later still.
//!
//! So a chunk of log is read twice. The first pass is light: a substring test picks out the
//! few lines that can be forward context, and only those are parsed, into an index of small
//! facts by line number. The second pass reads every record and attaches what the index
//! says. Memory is the largest line plus the index, which grows with pages and rounds, not
//! with replies. A listing of a log too large to read in one call reads it once instead:
//! the index is made from the lines as they are read, and what they give is held, each
//! call's ask for its context kept ([`RunLog::hold`]), until the index is whole and answers
//! them ([`RunLog::settle`]); so many replies are held at most, and the rest of a longer log
//! is read in two passes. A log read as it grows (a [`crate::logs::Tail`]) cannot see the
//! future at all; there, a reply whose context has not arrived yet is remembered in a few
//! bytes and amended when it does.

use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::LazyLock;

use serde::Deserialize;
use serde_json::Value;

use crate::logs::Name;
use crate::logs::bytes::lines::LineAt;
use crate::logs::bytes::skim;
use crate::logs::campaign::FileContext;
use crate::logs::formats::fields::{name, page_of_image, string, take_string, uint};
use crate::logs::formats::record::meta_mentions;
use crate::logs::model::diagnostic::Problem;
use crate::logs::model::reply::{Event, EventKind, Format, Listed, Meta, Reply, StopReason, Tokens};
use crate::logs::model::written::Measured;
use crate::logs::model::written::Written;
use crate::visible::clip;

/// The substring a truncation's error always carries (`TruncatedResponseError` in the
/// pipeline matches on the same words).
const TRUNCATED: &str = "output ceiling and was truncated";

/// How many successful calls of one agent may wait for their reply. A call whose reply is
/// never logged (a specialist, a lesson) must not be held forever.
const UNPAIRED_PER_AGENT: usize = 64;

/// Lines that can be forward context contain one of these. A reply quoting one costs a
/// parse, not a wrong answer: the parse decides. Searched for all at once, over many lines
/// at a time (regex's packed search for a few literals); should that fail to build, every
/// line is parsed.
static CONTEXT_NEEDLES: LazyLock<Option<regex::bytes::Regex>> =
    LazyLock::new(|| regex::bytes::Regex::new(r#"page_verify|"reader"|"editor"|run_complete|run_failed"#).ok());

/// Forward context of one chunk of log, by line number.
///
/// A verification is kept as the hash of its image name, its line and its outcome: 24 bytes
/// an event, sorted once, so a log of 90,000 pages indexes in 2 MB. Two image names of one
/// run hashing alike is a chance of one in 2^64 per pair.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct ContextIndex {
    iterations: Vec<(usize, u32)>,
    verifies: Vec<(u64, usize, bool)>,
    run_end: Option<(usize, String)>,
}

fn image_key(image: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    image.hash(&mut h);
    h.finish()
}

#[derive(Deserialize)]
struct Light {
    #[serde(rename = "type")]
    kind: Option<String>,
    image: Option<Value>,
    iteration: Option<Value>,
    error: Option<Value>,
}

impl ContextIndex {
    pub fn clear(&mut self) {
        self.iterations.clear();
        self.verifies.clear();
        self.run_end = None;
    }

    /// The first pass over the lines of a block read at once (`lines`: each line of `bytes`,
    /// and where it starts; a line too long to hold is not looked at): the needles are
    /// searched for in the whole block, and only the lines they are found in are read.
    pub fn scan_lines(&mut self, bytes: &[u8], lines: &[(LineAt, usize)]) {
        let Some(needles) = CONTEXT_NEEDLES.as_ref() else {
            for (at, start) in lines.iter().filter(|(at, _)| !at.too_long) {
                self.read(at.number, &bytes[*start..*start + at.len as usize]);
            }
            return;
        };
        let mut from = 0;
        while let Some(found) = needles.find_at(bytes, from) {
            // The line it is in: the last that starts at or before it.
            let k = lines.partition_point(|(_, start)| *start <= found.start());
            let Some((at, start)) = k.checked_sub(1).map(|k| lines[k]) else { break };
            let end = start + at.len as usize;
            if !at.too_long && found.end() <= end {
                self.read(at.number, &bytes[start..end]);
            }
            from = end.max(found.start() + 1);
        }
    }

    /// [`ContextIndex::scan_lines`] of one line, numbered `number`. Of the lines of a block, a
    /// first pass reads those a needle is found in; so does this, of any line.
    pub fn scan_line(&mut self, number: usize, line: &[u8]) {
        if CONTEXT_NEEDLES.as_ref().is_none_or(|needles| needles.is_match(line)) {
            self.read(number, line);
        }
    }

    /// Whether a line whose value is `value` may be read into the index: a record of one of
    /// the kinds [`ContextIndex::read`] keeps, or a value that is not an object, which may
    /// read as such a record all the same (a sequence of its fields). Any other object with
    /// a `type` reads, if at all, as a record of another kind.
    pub fn may_be_context(value: &Value) -> bool {
        match value.as_object() {
            Some(o) => o.get("type").and_then(Value::as_str).and_then(Context::of).is_some(),
            None => true,
        }
    }

    /// The context of the lines after those indexed, `later`'s lines numbered from `base`.
    pub fn append(&mut self, later: ContextIndex, base: usize) {
        self.iterations.extend(later.iterations.into_iter().map(|(line, it)| (line + base, it)));
        self.verifies.extend(later.verifies.into_iter().map(|(key, line, ok)| (key, line + base, ok)));
        if let Some((line, outcome)) = later.run_end {
            self.run_end = Some((line + base, outcome));
        }
    }

    /// A line that may be forward context, read.
    fn read(&mut self, number: usize, line: &[u8]) {
        let Ok(light) = serde_json::from_slice::<Light>(line) else { return };
        match light.kind.as_deref().and_then(Context::of) {
            Some(Context::Iteration) => {
                if let Some(i) = light.iteration.as_ref().and_then(as_u32) {
                    self.iterations.push((number, i));
                }
            }
            Some(Context::Verified(ok)) => {
                if let Some(image) = light.image.as_ref().and_then(Value::as_str) {
                    self.verifies.push((image_key(image), number, ok));
                }
            }
            Some(Context::Complete) => self.run_end = Some((number, "complete".to_owned())),
            Some(Context::Failed) => self.run_end = Some((number, run_failed(light.error.as_ref()))),
            None => {}
        }
    }

    fn next_iteration(&self, after: usize) -> Option<u32> {
        let i = self.iterations.partition_point(|&(line, _)| line <= after);
        self.iterations.get(i).map(|&(_, it)| it)
    }

    /// Ends the first pass: the verifications sorted for lookup.
    pub fn seal(&mut self) {
        self.verifies.sort_unstable();
    }

    fn next_verify(&self, image: &str, after: usize) -> Option<bool> {
        let key = image_key(image);
        let i = self.verifies.partition_point(|&(k, line, _)| (k, line) <= (key, after));
        self.verifies.get(i).filter(|&&(k, _, _)| k == key).map(|&(_, _, ok)| ok)
    }

    fn run_end(&self, after: usize) -> Option<&str> {
        self.run_end.as_ref().filter(|(line, _)| *line > after).map(|(_, s)| s.as_str())
    }
}

/// The kinds of event the index keeps, by their `type`: named once, for reading a line into
/// the index and for telling which lines may be read into it.
#[derive(Debug, Clone, Copy)]
enum Context {
    /// `reader` or `editor`: a review round's iteration.
    Iteration,
    /// `page_verify_ok` or `page_verify_failed`.
    Verified(bool),
    /// `run_complete`.
    Complete,
    /// `run_failed`.
    Failed,
}

impl Context {
    fn of(kind: &str) -> Option<Context> {
        Some(match kind {
            "reader" | "editor" => Context::Iteration,
            "page_verify_ok" => Context::Verified(true),
            "page_verify_failed" => Context::Verified(false),
            "run_complete" => Context::Complete,
            "run_failed" => Context::Failed,
            _ => return None,
        })
    }
}

fn as_u32(v: &Value) -> Option<u32> {
    v.as_u64().and_then(|n| u32::try_from(n).ok())
}

fn run_failed(error: Option<&Value>) -> String {
    match error.and_then(Value::as_str) {
        Some(e) => format!("failed: {}", clip(e, 160)),
        None => "failed".to_owned(),
    }
}

/// The agent a call names, as the pipeline names its prompt file, without `.md`.
fn agent_of(record: &Value) -> Option<Name> {
    record.get("agent").and_then(Value::as_str).map(|a| Name::from(a.strip_suffix(".md").unwrap_or(a)))
}

/// What a successful `model_call` says about the reply that follows it.
#[derive(Debug, Clone)]
struct Facts {
    model: Option<Name>,
    provider: Option<Name>,
    tokens: Tokens,
    duration_ms: Option<u64>,
}

impl Facts {
    fn of(record: &Value) -> Facts {
        Facts {
            model: name(record, "model"),
            provider: name(record, "provider"),
            tokens: Tokens {
                input: uint(record, "input_tokens"),
                output: uint(record, "output_tokens"),
                cache_read: uint(record, "cache_read_input_tokens"),
                cache_write: uint(record, "cache_creation_input_tokens"),
            },
            duration_ms: uint(record, "duration_ms"),
        }
    }

    fn apply(self, meta: &mut Meta) {
        meta.model = self.model;
        meta.provider = self.provider;
        meta.tokens = self.tokens;
        meta.duration_ms = self.duration_ms;
    }
}

/// What reading one record produced.
#[derive(Debug)]
pub(crate) enum Out {
    Reply(Reply),
    /// A reply of a listing, its text measured, not held.
    Listed(Listed),
    Event(Event),
    /// A reply (or event) read earlier, with context that has arrived since (tail only).
    Amended {
        line: usize,
        meta: Meta,
    },
    Problem(Problem),
}

/// A reply whose forward context has not arrived yet (tail only).
#[derive(Debug)]
struct Pending {
    line: usize,
    meta: Meta,
    iteration: bool,
    verify: bool,
    run: bool,
}

/// The state of one run log across the chunks it is read in.
#[derive(Debug)]
pub(crate) struct RunLog {
    ctx: FileContext,
    pub index: ContextIndex,
    unpaired: HashMap<Name, VecDeque<Facts>>,
    last_iteration: Option<u32>,
    run_outcome: Option<Name>,
    pending: Vec<Pending>,
    tail: bool,
    /// While a log is read once, its context still to come: what each call that asked for
    /// its forward context would have been told but for the index, in the order they asked
    /// ([`RunLog::hold`]).
    held: Option<Vec<Ask>>,
}

/// A call's ask for its forward context, held until the index is whole: its line, whether
/// it is a review's, and what the lines before it had said.
#[derive(Debug)]
struct Ask {
    line: usize,
    review: bool,
    last_iteration: Option<u32>,
    run_outcome: Option<Name>,
}

impl RunLog {
    pub fn new(ctx: FileContext, tail: bool) -> RunLog {
        RunLog {
            ctx,
            index: ContextIndex::default(),
            unpaired: HashMap::new(),
            last_iteration: None,
            run_outcome: None,
            pending: Vec::new(),
            tail,
            held: None,
        }
    }

    /// From now on each call's forward context is asked for, not looked up: the index is
    /// being made as the lines are read, and is whole only at the end of the read. What
    /// was asked is given by [`RunLog::settle`], to each reply and event in the order they
    /// came, once the index is sealed. Not in a tail, whose context amends what it has
    /// pushed.
    pub fn hold(&mut self) {
        if !self.tail {
            self.held = Some(Vec::new());
        }
    }

    /// Whether the calls' asks for their forward context are held ([`RunLog::hold`]).
    pub fn holds(&self) -> bool {
        self.held.is_some()
    }

    /// Gives what the sealed index says to the replies and events that asked while
    /// [held](RunLog::hold), `outs` in the order they came (with whatever else the read
    /// pushed between them), and looks up the context of the calls after them at once.
    pub fn settle<'a>(&mut self, outs: impl Iterator<Item = (Option<usize>, &'a mut Meta)>) {
        let Some(asks) = self.held.take() else { return };
        let mut asks = asks.into_iter().peekable();
        for (line, meta) in outs {
            if meta.format != Format::RunLog {
                continue;
            }
            if let Some(ask) = asks.next_if(|ask| line == Some(ask.line)) {
                self.forward_as(meta, &ask);
            }
        }
    }

    fn meta(&self) -> Meta {
        let mut meta = Meta::new(Format::RunLog);
        meta.round = self.ctx.round.clone();
        meta.document = self.ctx.document.clone();
        meta.document_outcome = self.ctx.document_outcome.clone();
        meta
    }

    /// The second pass, one record at a time.
    pub fn record(&mut self, mut record: Value, line: usize, offset: u64, source: &Path, out: &mut dyn FnMut(Out)) {
        let kind = string(&record, "type").unwrap_or_default();
        match kind.as_str() {
            "agent_call" => {
                let Some(o) = record.as_object_mut() else { return };
                let Some(text) = take_string(o, "output") else {
                    out(Out::Problem(Problem::BadRecord("an agent_call event without an output string".to_owned())));
                    return;
                };
                let meta = self.call(self.call_meta(&record), line);
                out(Out::Reply(Reply {
                    id: id(source, line),
                    source: source.to_path_buf(),
                    line: Some(line),
                    offset,
                    text,
                    meta,
                }));
            }
            "model_call" => {
                let ok = record.get("ok").and_then(Value::as_bool);
                let facts = Facts::of(&record);
                let agent = agent_of(&record);
                match ok {
                    Some(true) => {
                        let waiting = self.unpaired.entry(agent.unwrap_or_else(|| Name::from(""))).or_default();
                        if waiting.len() == UNPAIRED_PER_AGENT {
                            waiting.pop_front();
                        }
                        waiting.push_back(facts);
                    }
                    Some(false) => {
                        let message = string(&record, "error").unwrap_or_else(|| "failed, no error logged".to_owned());
                        let truncated = message.contains(TRUNCATED);
                        let mut meta = self.meta();
                        facts.apply(&mut meta);
                        meta.ts = name(&record, "ts");
                        meta.stop = if truncated { StopReason::Truncated } else { StopReason::Other };
                        if let Some(step) = string(&record, "step") {
                            meta.extra.push(("step".to_owned(), step));
                        }
                        let review = matches!(agent.as_deref(), Some("reader" | "copy_editor"));
                        meta.agent = agent;
                        let pending = self.forward(&mut meta, line, review);
                        self.remember(pending, line, &meta);
                        let kind = if truncated { EventKind::Truncated } else { EventKind::Failed };
                        out(Out::Event(Event {
                            id: id(source, line),
                            source: source.to_path_buf(),
                            line: Some(line),
                            offset,
                            kind,
                            message,
                            meta,
                        }));
                    }
                    None => {}
                }
            }
            "reader" | "editor" => {
                if let Some(it) = record.get("iteration").and_then(as_u32) {
                    self.last_iteration = Some(it);
                    self.resolve(out, |p| {
                        if p.iteration && p.line < line {
                            p.iteration = false;
                            if p.meta.iteration != Some(it) {
                                p.meta.iteration = Some(it);
                                p.meta.infer("iteration");
                                return true;
                            }
                        }
                        false
                    });
                }
            }
            "page_verify_ok" | "page_verify_failed" => {
                let ok = kind == "page_verify_ok";
                if let Some(image) = string(&record, "image") {
                    self.resolve(out, |p| {
                        if p.verify && p.meta.image.as_deref() == Some(image.as_str()) {
                            p.verify = false;
                            p.meta.page_verified = Some(ok);
                            p.meta.infer("page_verified");
                            return true;
                        }
                        false
                    });
                }
            }
            "run_complete" | "run_failed" => {
                let outcome = if kind == "run_complete" {
                    Name::from("complete")
                } else {
                    run_failed(record.get("error")).into()
                };
                self.run_outcome = Some(outcome.clone());
                self.resolve(out, |p| {
                    p.run = false;
                    p.meta.run_outcome = Some(outcome.clone());
                    true
                });
            }
            _ => {}
        }
    }

    /// [`RunLog::record`] of a line a listing skimmed, whose long strings `long` measures: an
    /// `agent_call` whose output is a stand-in is listed by that measure. False, with nothing
    /// read, for any other record: only the whole line can say what a stand-in stands for
    /// anywhere else (a short event has no stand-in, and is not skimmed).
    pub fn record_listed(
        &mut self,
        record: &Value,
        long: &[Measured],
        line: usize,
        offset: u64,
        source: &Path,
        out: &mut dyn FnMut(Out),
    ) -> bool {
        if record.get("type").and_then(Value::as_str) != Some("agent_call") {
            return false;
        }
        let Some(text) = record.get("output").and_then(Value::as_str).and_then(|t| skim::stood_for(t, long)) else {
            return false;
        };
        let meta = self.call_meta(record);
        if meta_mentions(&meta) {
            return false;
        }
        let meta = self.call(meta, line);
        out(Out::Listed(Listed {
            id: id(source, line),
            source: source.to_path_buf(),
            line: Some(line),
            offset,
            len: text.len,
            hash: text.hash,
            written: Written::of(offset, &text),
            meta,
        }));
        true
    }

    /// What an `agent_call` event says of its reply itself.
    fn call_meta(&self, record: &Value) -> Meta {
        let mut meta = self.meta();
        meta.agent = agent_of(record);
        meta.phase = name(record, "phase");
        meta.image = name(record, "image");
        meta.page = meta.image.as_deref().and_then(page_of_image);
        meta.ts = name(record, "ts");
        meta
    }

    /// An `agent_call`'s reply at `line`, `meta` what it says itself: paired with its model's
    /// call, and given what the lines after it say.
    fn call(&mut self, mut meta: Meta, line: usize) -> Meta {
        let paired = meta.agent.as_deref().and_then(|a| self.unpaired.get_mut(a)).and_then(VecDeque::pop_back);
        if let Some(facts) = paired {
            facts.apply(&mut meta);
            // The pipeline raises on a truncation instead of logging the text, so a
            // logged reply paired with a successful call is a finished one.
            meta.stop = StopReason::Finished;
            for field in ["model", "provider", "tokens", "duration_ms", "stop"] {
                meta.infer(field);
            }
        }
        let review = meta.phase.as_deref() == Some("review");
        let pending = self.forward(&mut meta, line, review);
        self.remember(pending, line, &meta);
        meta
    }

    /// Attaches what the index knows about the lines after `line`; says what is still
    /// missing (only ever something in a tail). While [held](RunLog::hold), asks instead.
    fn forward(&mut self, meta: &mut Meta, line: usize, review: bool) -> (bool, bool, bool) {
        let ask = Ask { line, review, last_iteration: self.last_iteration, run_outcome: self.run_outcome.clone() };
        match &mut self.held {
            Some(asks) => {
                asks.push(ask);
                (false, false, false)
            }
            None => self.forward_as(meta, &ask),
        }
    }

    /// [`RunLog::forward`] of what `ask` says of a call and the lines before it.
    fn forward_as(&self, meta: &mut Meta, ask: &Ask) -> (bool, bool, bool) {
        let line = ask.line;
        let mut missing = (false, false, false);
        if ask.review {
            match self.index.next_iteration(line) {
                Some(it) => meta.iteration = Some(it),
                None => {
                    meta.iteration = ask.last_iteration;
                    missing.0 = self.tail;
                }
            }
            if meta.iteration.is_some() {
                meta.infer("iteration");
            }
        }
        if let Some(image) = meta.image.as_deref() {
            match self.index.next_verify(image, line) {
                Some(ok) => {
                    meta.page_verified = Some(ok);
                    meta.infer("page_verified");
                }
                None => missing.1 = self.tail,
            }
        }
        match self.index.run_end(line).map(Name::from).or_else(|| ask.run_outcome.clone()) {
            Some(outcome) => meta.run_outcome = Some(outcome),
            None => missing.2 = self.tail,
        }
        missing
    }

    fn remember(&mut self, (iteration, verify, run): (bool, bool, bool), line: usize, meta: &Meta) {
        if iteration || verify || run {
            self.pending.push(Pending { line, meta: meta.clone(), iteration, verify, run });
        }
    }

    fn resolve(&mut self, out: &mut dyn FnMut(Out), mut update: impl FnMut(&mut Pending) -> bool) {
        if self.pending.is_empty() {
            return;
        }
        for p in &mut self.pending {
            if update(p) {
                out(Out::Amended { line: p.line, meta: p.meta.clone() });
            }
        }
        self.pending.retain(|p| p.iteration || p.verify || p.run);
    }
}

fn id(source: &Path, line: usize) -> String {
    format!("{}:{line}", source.display())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn run(lines: &[&str], tail: bool) -> Vec<Out> {
        let mut log = RunLog::new(FileContext::default(), tail);
        let block = lines.join("\n");
        let found: Vec<_> = crate::logs::bytes::lines::lines_of(block.as_bytes(), 0, 0, 1 << 20).collect();
        log.index.scan_lines(block.as_bytes(), &found);
        log.index.seal();
        let mut got = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            let v: Value = serde_json::from_str(l).unwrap();
            log.record(v, i + 1, 0, &PathBuf::from("log.jsonl"), &mut |o| got.push(o));
        }
        got
    }

    fn replies(got: &[Out]) -> Vec<&Reply> {
        got.iter()
            .filter_map(|o| match o {
                Out::Reply(r) => Some(r),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn interleaved_page_calls_pair_with_their_own_model_call() {
        let got = run(
            &[
                r#"{"ts":"t1","type":"model_call","agent":"page","model":"m-a","ok":true,"output_tokens":10}"#,
                r#"{"ts":"t2","type":"model_call","agent":"feedback","model":"m-f","ok":true,"output_tokens":3}"#,
                r#"{"ts":"t3","type":"agent_call","agent":"page.md","phase":"extraction","image":"d-p2.png","output":"A"}"#,
                r#"{"ts":"t4","type":"model_call","agent":"page","model":"m-b","ok":true,"output_tokens":20}"#,
                r#"{"ts":"t5","type":"agent_call","agent":"page.md","phase":"extraction","image":"d-p3.png","output":"B"}"#,
                r#"{"ts":"t6","type":"agent_call","agent":"feedback.md","phase":"extraction","image":"d-p2.png","output":"F"}"#,
                r#"{"ts":"t7","type":"page_verify_failed","image":"d-p2.png","problems":[]}"#,
                r#"{"ts":"t8","type":"run_complete","iterations":0}"#,
            ],
            false,
        );
        let r = replies(&got);
        assert_eq!(r.len(), 3);
        assert_eq!(
            (r[0].meta.model.as_deref(), r[0].meta.tokens.output, r[0].meta.page),
            (Some("m-a"), Some(10), Some(2))
        );
        assert_eq!((r[1].meta.model.as_deref(), r[1].meta.page_verified), (Some("m-b"), None));
        assert_eq!((r[2].meta.agent.as_deref(), r[2].meta.model.as_deref()), (Some("feedback"), Some("m-f")));
        assert_eq!(r[0].meta.page_verified, Some(false));
        assert!(r[0].meta.is_inferred("model") && r[0].meta.is_inferred("page_verified"));
        assert!(r.iter().all(|r| r.meta.run_outcome.as_deref() == Some("complete")));
    }

    #[test]
    fn a_review_call_takes_the_round_logged_after_it() {
        let got = run(
            &[
                r#"{"ts":"t","type":"agent_call","agent":"reader.md","phase":"review","image":null,"output":"R0"}"#,
                r#"{"ts":"t","type":"reader","iteration":0,"issues":2}"#,
                r#"{"ts":"t","type":"agent_call","agent":"copy_editor.md","phase":"review","image":null,"output":"E1"}"#,
                r#"{"ts":"t","type":"editor","iteration":1}"#,
                r#"{"ts":"t","type":"agent_call","agent":"reader.md","phase":"review","image":null,"output":"R1"}"#,
                r#"{"ts":"t","type":"reader","iteration":1,"issues":0}"#,
                r#"{"ts":"t","type":"agent_call","agent":"feedback.md","phase":"review","output":"late"}"#,
            ],
            false,
        );
        let its: Vec<_> = replies(&got).iter().map(|r| r.meta.iteration).collect();
        assert_eq!(its, [Some(0), Some(1), Some(1), Some(1)]);
    }

    #[test]
    fn a_truncated_call_is_an_event_and_in_a_tail_late_context_amends() {
        let got = run(
            &[
                r#"{"ts":"t","type":"model_call","agent":"copy_editor","ok":false,"error":"bedrock: response hit the 32000-token output ceiling and was truncated (90000 chars returned)."}"#,
                r#"{"ts":"t","type":"model_call","agent":"page","ok":true}"#,
                r#"{"ts":"t","type":"agent_call","agent":"page.md","phase":"extraction","image":"x-p1.png","output":"P"}"#,
            ],
            true,
        );
        assert!(
            matches!(&got[0], Out::Event(e) if e.kind == EventKind::Truncated && e.meta.stop == StopReason::Truncated)
        );
        let mut log = RunLog::new(FileContext::default(), true);
        let mut out = Vec::new();
        for (i, l) in [
            r#"{"ts":"t","type":"agent_call","agent":"page.md","phase":"extraction","image":"x-p1.png","output":"P"}"#,
            r#"{"ts":"t","type":"page_verify_ok","image":"x-p1.png"}"#,
            r#"{"ts":"t","type":"run_complete"}"#,
        ]
        .iter()
        .enumerate()
        {
            log.record(serde_json::from_str(l).unwrap(), i + 1, 0, Path::new("l"), &mut |o| out.push(o));
        }
        let amended: Vec<_> = out
            .iter()
            .filter_map(|o| match o {
                Out::Amended { line, meta } => Some((*line, meta.page_verified, meta.run_outcome.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(amended, [(1, Some(true), None), (1, Some(true), Some("complete".into()))]);
    }
}
