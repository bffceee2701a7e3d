//! Streams saved to a file, put back together as the providers' SDKs do: server-sent-event
//! captures of OpenAI chat completions, OpenAI Responses, Anthropic Messages and Gemini
//! `streamGenerateContent`, and Ollama's newline-delimited JSON.
//!
//! Each stream is folded into the response the API would have sent whole, which the
//! response's own reader then reads, so a stream and a response give the same text, stop
//! reason and usage: per-choice deltas (choice 0 is the reply, as for a completion), text
//! blocks by index, thinking and reasoning deltas left out, the last usage figures (each
//! provider reports running totals), the stop reason from the event that carries it. A
//! capture may hold several streams one after another; one that ends before its last event
//! still gives what arrived, marked truncated ("stream cut short"). Memory is the text of
//! the stream being read.

use std::collections::BTreeMap;
use std::io::{self, BufRead};

use serde_json::{Map, Value, json};

use super::diagnostic::Problem;
use super::formats::{self, Record, string};
use super::gemini;
use super::lines::Lines;
use super::loader::json_error;
use super::nan::parse as parse_tolerant;
use super::ollama;
use super::reply::{EventKind, Format, Meta, StopReason};
use super::sse::{Event, Events, Frame};

/// What reading a stream gives, at the line and byte its stream began.
#[derive(Debug)]
pub(crate) struct Out {
    pub line: usize,
    pub offset: u64,
    pub what: Result<Record, Problem>,
}

/// Which SSE stream a payload belongs to, by what it holds.
pub(crate) fn sse_format(name: Option<&str>, payload: &Value) -> Option<Format> {
    let kind = payload.get("type").and_then(Value::as_str).or(name).unwrap_or("");
    if kind.starts_with("response.") {
        return Some(Format::OpenAiResponsesStream);
    }
    if matches!(kind, "message_start" | "content_block_start" | "content_block_delta" | "message_delta" | "ping") {
        return Some(Format::AnthropicStream);
    }
    if payload.get("object").and_then(Value::as_str) == Some("chat.completion.chunk")
        || payload.get("choices").and_then(|c| c.get(0)).is_some_and(|c| c.get("delta").is_some())
    {
        return Some(Format::OpenAiChatStream);
    }
    if payload.get("candidates").is_some() || payload.get("usageMetadata").is_some() {
        return Some(Format::GeminiStream);
    }
    None
}

/// The stream format of the capture `inner` opens, judged by its first event with JSON data.
pub(crate) fn sniff(inner: impl BufRead, max_line: usize) -> io::Result<Option<Format>> {
    let mut events = Events::new(inner, max_line);
    for _ in 0..4 {
        match events.next_frame()? {
            Some(Frame::Event(e)) => {
                if let Some(v) = payloads(&e).into_iter().next().and_then(|p| p.ok()) {
                    return Ok(sse_format(e.name.as_deref(), &v));
                }
            }
            Some(Frame::TooLong(_)) => {}
            None => break,
        }
    }
    Ok(None)
}

/// An event's data as JSON. Data lines that do not make JSON together are tried one by one:
/// a capture that lost the blank lines between events still reads.
fn payloads(e: &Event) -> Vec<Result<Value, Problem>> {
    if e.data.trim() == "[DONE]" {
        return Vec::new();
    }
    match parse_tolerant(e.data.as_bytes()) {
        Ok(v) => vec![Ok(v)],
        Err(err) if e.data.contains('\n') => {
            let each: Vec<_> =
                e.data.lines().filter(|l| !l.trim().is_empty()).map(|l| parse_tolerant(l.as_bytes())).collect();
            if each.iter().all(Result::is_ok) {
                each.into_iter().map(|r| r.map_err(|e| Problem::MalformedJson(json_error(&e)))).collect()
            } else {
                vec![Err(Problem::MalformedJson(json_error(&err)))]
            }
        }
        Err(err) => vec![Err(Problem::MalformedJson(json_error(&err)))],
    }
}

/// Reads a server-sent-event capture of `format` (one of the SSE stream formats).
pub(crate) fn read_sse(
    inner: impl BufRead,
    format: Format,
    max_line: usize,
    out: &mut dyn FnMut(Out),
) -> io::Result<()> {
    let mut events = Events::new(inner, max_line);
    let mut asm = Assembler::new(format);
    while let Some(frame) = events.next_frame()? {
        let e = match frame {
            Frame::Event(e) => e,
            Frame::TooLong(at) => {
                let problem = Problem::LineTooLong { len: at.len, max: max_line };
                out(Out { line: at.number, offset: at.offset, what: Err(problem) });
                continue;
            }
        };
        if e.data.trim() == "[DONE]" {
            asm.done(out);
            continue;
        }
        for payload in payloads(&e) {
            match payload {
                Ok(v) => asm.feed(e.name.as_deref(), v, e.line, e.offset, out),
                Err(p) => out(Out { line: e.line, offset: e.offset, what: Err(p) }),
            }
        }
    }
    asm.finish(out);
    Ok(())
}

/// Reads an Ollama stream: one chunk a line; each `done: true` ends a response.
pub(crate) fn read_ollama(inner: impl BufRead, max_line: usize, out: &mut dyn FnMut(Out)) -> io::Result<()> {
    let mut lines = Lines::new(inner, 0, 0, max_line);
    let mut buf = Vec::new();
    let mut current: Option<ollama::Assembly> = None;
    while let Some(at) = lines.next_line(&mut buf)? {
        if at.too_long {
            out(Out {
                line: at.number,
                offset: at.offset,
                what: Err(Problem::LineTooLong { len: at.len, max: max_line }),
            });
            continue;
        }
        if buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let chunk = match parse_tolerant(&buf) {
            Ok(v) => v,
            Err(e) => {
                let what = Err(Problem::MalformedJson(json_error(&e)));
                out(Out { line: at.number, offset: at.offset, what });
                continue;
            }
        };
        if chunk.get("error").is_some() && chunk.get("done").is_none() {
            out(Out { line: at.number, offset: at.offset, what: Ok(formats::api_error(&chunk, Format::OllamaStream)) });
            continue;
        }
        if chunk.get("done").is_none() {
            let what = Err(Problem::UnknownShape(formats::describe(&chunk)));
            out(Out { line: at.number, offset: at.offset, what });
            continue;
        }
        let a = current.get_or_insert_with(|| ollama::Assembly::new(at.number, at.offset, Format::OllamaStream));
        if a.add(&chunk) {
            if let Some(a) = current.take() {
                out(Out { line: a.line, offset: a.offset, what: Ok(a.finish(true)) });
            }
        }
    }
    if let Some(a) = current.take() {
        out(Out { line: a.line, offset: a.offset, what: Ok(a.finish(false)) });
    }
    Ok(())
}

/// Gemini's `streamGenerateContent` without `alt=sse` answers with a JSON array of chunks,
/// which a capture saves as a document. Consecutive Gemini responses in an array are put
/// together until one carries a finish reason (or a blocked prompt, or another response's
/// id): the chunks of one stream are one reply, and an array of whole responses, each
/// finished, stays a reply each.
#[derive(Default)]
pub(crate) struct GeminiArray {
    cur: Option<(usize, Gemini, Option<Value>)>,
}

impl GeminiArray {
    /// One element, the `index`-th; `out` is given each response finished, at the index of
    /// its first chunk.
    pub fn feed(&mut self, v: Value, index: usize, out: &mut dyn FnMut(usize, Record)) {
        let id = non_empty(string(&v, "responseId"));
        if self.cur.as_ref().is_some_and(|(_, g, _)| id.is_some() && g.id.is_some() && id != g.id) {
            self.finish(out);
        }
        let ends = v
            .get("candidates")
            .and_then(|c| c.get(0))
            .and_then(|c| c.get("finishReason"))
            .is_some_and(Value::is_string)
            || gemini::block_reason(&v).is_some();
        match &mut self.cur {
            Some((_, g, first)) => {
                *first = None;
                g.add(&v);
            }
            None => {
                let mut g = Gemini::new(At { line: 0, offset: 0 });
                g.add(&v);
                self.cur = Some((index, g, Some(v)));
            }
        }
        if ends {
            self.finish(out);
        }
    }

    /// The response being put together, if any: a lone element as the response it is.
    pub fn finish(&mut self, out: &mut dyn FnMut(usize, Record)) {
        if let Some((index, g, first)) = self.cur.take() {
            let record = match first {
                Some(whole) => gemini::response(&whole, Format::Gemini),
                None => g.finish(),
            };
            out(index, record);
        }
    }
}

/// Marks a reply from a stream that ended early: what arrived is a prefix.
fn cut_short(record: Record) -> Record {
    match record {
        Record::Reply { id, text, mut meta } => {
            meta.stop = StopReason::Truncated;
            meta.stop_detail = Some("stream cut short".to_owned());
            Record::Reply { id, text, meta }
        }
        Record::Event { id, kind: EventKind::Empty | EventKind::Truncated, mut meta, .. } => {
            meta.stop = StopReason::Truncated;
            meta.stop_detail = Some("stream cut short".to_owned());
            Record::event(id, EventKind::Truncated, "stream cut short before any text".to_owned(), meta)
        }
        other => other,
    }
}

fn non_empty(v: Option<String>) -> Option<String> {
    v.filter(|s| !s.is_empty())
}

/// One stream being put together, of whichever provider.
enum Assembler {
    Chat(Option<Chat>),
    Responses(Option<Responses>),
    Anthropic(Option<Anthropic>),
    Gemini(Option<Gemini>),
}

/// Where a stream began.
#[derive(Debug, Clone, Copy)]
struct At {
    line: usize,
    offset: u64,
}

impl Assembler {
    fn new(format: Format) -> Assembler {
        match format {
            Format::OpenAiResponsesStream => Assembler::Responses(None),
            Format::AnthropicStream => Assembler::Anthropic(None),
            Format::GeminiStream => Assembler::Gemini(None),
            _ => Assembler::Chat(None),
        }
    }

    fn feed(&mut self, name: Option<&str>, v: Value, line: usize, offset: u64, out: &mut dyn FnMut(Out)) {
        let at = At { line, offset };
        let emit =
            |out: &mut dyn FnMut(Out), at: At, r: Record| out(Out { line: at.line, offset: at.offset, what: Ok(r) });
        let kind = v.get("type").and_then(Value::as_str).or(name).unwrap_or("").to_owned();
        if kind == "error" || (v.get("error").is_some_and(|e| !e.is_null()) && v.get("choices").is_none()) {
            self.finish(out);
            let format = self.format();
            let record = match v.get("response") {
                Some(r) if r.get("error").is_some() => formats::api_error(r, format),
                _ => formats::api_error(&v, format),
            };
            emit(out, at, record);
            return;
        }
        match self {
            Assembler::Chat(cur) => {
                let id = non_empty(string(&v, "id"));
                if cur.as_ref().is_some_and(|c| c.done || (id.is_some() && c.id.is_some() && id != c.id)) {
                    if let Some(c) = cur.take() {
                        emit(out, c.at, c.finish());
                    }
                }
                cur.get_or_insert_with(|| Chat::new(at)).add(&v);
            }
            Assembler::Responses(cur) => {
                let starts = matches!(kind.as_str(), "response.created" | "response.queued");
                if starts || cur.as_ref().is_some_and(|c| c.terminal.is_some()) {
                    if let Some(c) = cur.take() {
                        emit(out, c.at, c.finish());
                    }
                }
                let c = cur.get_or_insert_with(|| Responses::new(at));
                c.add(&kind, v);
                if c.terminal.is_some() {
                    if let Some(c) = cur.take() {
                        emit(out, c.at, c.finish());
                    }
                }
            }
            Assembler::Anthropic(cur) => {
                if kind == "message_start" {
                    if let Some(c) = cur.take() {
                        emit(out, c.at, c.finish());
                    }
                }
                if kind == "ping" && cur.is_none() {
                    return;
                }
                let c = cur.get_or_insert_with(|| Anthropic::new(at));
                c.add(&kind, &v);
                if c.stopped {
                    if let Some(c) = cur.take() {
                        emit(out, c.at, c.finish());
                    }
                }
            }
            Assembler::Gemini(cur) => {
                let id = non_empty(string(&v, "responseId"));
                if cur.as_ref().is_some_and(|c| id.is_some() && c.id.is_some() && id != c.id) {
                    if let Some(c) = cur.take() {
                        emit(out, c.at, c.finish());
                    }
                }
                cur.get_or_insert_with(|| Gemini::new(at)).add(&v);
            }
        }
    }

    fn format(&self) -> Format {
        match self {
            Assembler::Chat(_) => Format::OpenAiChatStream,
            Assembler::Responses(_) => Format::OpenAiResponsesStream,
            Assembler::Anthropic(_) => Format::AnthropicStream,
            Assembler::Gemini(_) => Format::GeminiStream,
        }
    }

    /// `data: [DONE]`: OpenAI's end of a stream.
    fn done(&mut self, out: &mut dyn FnMut(Out)) {
        if let Assembler::Chat(Some(c)) = self {
            c.done = true;
        }
        self.finish(out);
    }

    fn finish(&mut self, out: &mut dyn FnMut(Out)) {
        let (at, record) = match self {
            Assembler::Chat(cur) => match cur.take() {
                Some(c) => (c.at, c.finish()),
                None => return,
            },
            Assembler::Responses(cur) => match cur.take() {
                Some(c) => (c.at, c.finish()),
                None => return,
            },
            Assembler::Anthropic(cur) => match cur.take() {
                Some(c) => (c.at, c.finish()),
                None => return,
            },
            Assembler::Gemini(cur) => match cur.take() {
                Some(c) => (c.at, c.finish()),
                None => return,
            },
        };
        out(Out { line: at.line, offset: at.offset, what: Ok(record) });
    }
}

/// OpenAI chat completion chunks: `choices[].delta`, `finish_reason`, a last `usage`.
struct Chat {
    at: At,
    id: Option<String>,
    model: Option<String>,
    text: String,
    refusal: Option<String>,
    tools: Vec<Value>,
    finish: Option<String>,
    usage: Option<Value>,
    /// `data: [DONE]` arrived.
    done: bool,
}

impl Chat {
    fn new(at: At) -> Chat {
        Chat {
            at,
            id: None,
            model: None,
            text: String::new(),
            refusal: None,
            tools: Vec::new(),
            finish: None,
            usage: None,
            done: false,
        }
    }

    fn add(&mut self, chunk: &Value) {
        if self.id.is_none() {
            self.id = non_empty(string(chunk, "id"));
        }
        if self.model.is_none() {
            self.model = non_empty(string(chunk, "model"));
        }
        if let Some(u) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(u.clone());
        }
        let Some(Value::Array(choices)) = chunk.get("choices") else { return };
        // Choice 0 is the reply, as `choices[0]` is for a completion.
        for choice in choices.iter().filter(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0) {
            if let Some(delta) = choice.get("delta") {
                if let Some(t) = delta.get("content").and_then(Value::as_str) {
                    self.text.push_str(t);
                }
                if let Some(r) = delta.get("refusal").and_then(Value::as_str) {
                    self.refusal.get_or_insert_with(String::new).push_str(r);
                }
                if let Some(Value::Array(calls)) = delta.get("tool_calls") {
                    for call in calls {
                        if let Some(name) = call.get("function").and_then(|f| f.get("name")).filter(|n| n.is_string()) {
                            self.tools.push(json!({"function": {"name": name}}));
                        }
                    }
                }
            }
            if let Some(f) = choice.get("finish_reason").and_then(Value::as_str) {
                self.finish = Some(f.to_owned());
            }
        }
    }

    fn finish(self) -> Record {
        let ended = self.finish.is_some() || self.done;
        let message = json!({"role": "assistant", "content": self.text, "refusal": self.refusal,
                             "tool_calls": if self.tools.is_empty() { Value::Null } else { Value::Array(self.tools) }});
        let completion = json!({"id": self.id, "model": self.model, "usage": self.usage,
                                "choices": [{"index": 0, "message": message, "finish_reason": self.finish}]});
        let record = formats::openai_chat(completion, Format::OpenAiChatStream);
        if ended { record } else { cut_short(record) }
    }
}

/// OpenAI Responses events: the terminal event's `response` is the whole response; the
/// `output_text` deltas, by output and part, are what a stream cut short leaves.
struct Responses {
    at: At,
    envelope: Option<Value>,
    deltas: BTreeMap<(u64, u64), String>,
    refusal: Option<String>,
    tools: Vec<String>,
    terminal: Option<Value>,
}

impl Responses {
    fn new(at: At) -> Responses {
        Responses { at, envelope: None, deltas: BTreeMap::new(), refusal: None, tools: Vec::new(), terminal: None }
    }

    fn add(&mut self, kind: &str, mut v: Value) {
        let index = |v: &Value, k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
        match kind {
            "response.created" | "response.in_progress" | "response.queued" => {
                if let Some(r) = v.get_mut("response").map(Value::take) {
                    self.envelope = Some(r);
                }
            }
            "response.output_text.delta" => {
                let key = (index(&v, "output_index"), index(&v, "content_index"));
                if let Some(d) = v.get("delta").and_then(Value::as_str) {
                    self.deltas.entry(key).or_default().push_str(d);
                }
            }
            "response.refusal.delta" => {
                if let Some(d) = v.get("delta").and_then(Value::as_str) {
                    self.refusal.get_or_insert_with(String::new).push_str(d);
                }
            }
            "response.output_item.added" => {
                if let Some(item) = v.get("item") {
                    if let Some(t) = item.get("type").and_then(Value::as_str).filter(|t| t.ends_with("_call")) {
                        self.tools.push(string(item, "name").unwrap_or_else(|| t.to_owned()));
                    }
                }
            }
            "response.completed" | "response.incomplete" | "response.failed" => {
                self.terminal = Some(v.get_mut("response").map(Value::take).unwrap_or(Value::Null));
            }
            _ => {}
        }
    }

    fn finish(self) -> Record {
        let streamed: String = self.deltas.values().map(String::as_str).collect();
        if let Some(terminal) = self.terminal.filter(Value::is_object) {
            let record = formats::openai_responses(terminal, Format::OpenAiResponsesStream);
            // A terminal event that left its output out still had its text streamed.
            return match record {
                Record::Event { id, kind: EventKind::Empty, meta, .. } if !streamed.is_empty() => {
                    Record::Reply { id, text: streamed, meta }
                }
                other => other,
            };
        }
        let envelope = self.envelope.unwrap_or(Value::Null);
        let mut meta = Meta::new(Format::OpenAiResponsesStream);
        meta.model = string(&envelope, "model");
        let id = string(&envelope, "id");
        let record = if streamed.is_empty() {
            formats::NoText { tools: self.tools, refusal: self.refusal, ..Default::default() }.into_record(id, meta)
        } else {
            Record::Reply { id, text: streamed, meta }
        };
        cut_short(record)
    }
}

/// Anthropic Messages events: `message_start`'s envelope, blocks by index, `message_delta`'s
/// stop reason and usage (running totals: the last one stands).
struct Anthropic {
    at: At,
    message: Map<String, Value>,
    blocks: BTreeMap<u64, Value>,
    stop_reason: Option<Value>,
    stopped: bool,
}

impl Anthropic {
    fn new(at: At) -> Anthropic {
        Anthropic { at, message: Map::new(), blocks: BTreeMap::new(), stop_reason: None, stopped: false }
    }

    fn add(&mut self, kind: &str, v: &Value) {
        let index = v.get("index").and_then(Value::as_u64).unwrap_or(0);
        match kind {
            "message_start" => {
                if let Some(Value::Object(m)) = v.get("message") {
                    self.message = m.clone();
                    self.message.remove("content");
                }
            }
            "content_block_start" => {
                let mut block = v.get("content_block").cloned().unwrap_or_else(|| json!({"type": "text"}));
                if block.get("type").and_then(Value::as_str) == Some("text") && block.get("text").is_none() {
                    block["text"] = json!("");
                }
                self.blocks.insert(index, block);
            }
            "content_block_delta" => {
                let Some(delta) = v.get("delta") else { return };
                if delta.get("type").and_then(Value::as_str) != Some("text_delta") {
                    // Thinking, signatures, tool input, citations: not reply text.
                    return;
                }
                let Some(t) = delta.get("text").and_then(Value::as_str) else { return };
                let block = self.blocks.entry(index).or_insert_with(|| json!({"type": "text", "text": ""}));
                if let Some(Value::String(s)) = block.get_mut("text") {
                    s.push_str(t);
                }
            }
            "message_delta" => {
                if let Some(r) = v.get("delta").and_then(|d| d.get("stop_reason")).filter(|r| !r.is_null()) {
                    self.stop_reason = Some(r.clone());
                }
                if let Some(Value::Object(u)) = v.get("usage") {
                    let usage = self.message.entry("usage").or_insert_with(|| json!({}));
                    if let Value::Object(have) = usage {
                        for (k, n) in u.iter().filter(|(_, n)| !n.is_null()) {
                            have.insert(k.clone(), n.clone());
                        }
                    }
                }
            }
            "message_stop" => self.stopped = true,
            _ => {}
        }
    }

    fn finish(mut self) -> Record {
        let ended = self.stopped || self.stop_reason.is_some();
        if let Some(r) = self.stop_reason {
            self.message.insert("stop_reason".to_owned(), r);
        }
        self.message.insert("content".to_owned(), Value::Array(self.blocks.into_values().collect()));
        let record = formats::anthropic(Value::Object(self.message), Format::AnthropicStream);
        if ended { record } else { cut_short(record) }
    }
}

/// Gemini `streamGenerateContent` chunks: each a `GenerateContentResponse` whose parts add
/// to candidate 0's text; the finish reason from the chunk that has one; the last usage.
struct Gemini {
    at: At,
    id: Option<String>,
    model: Option<String>,
    text: String,
    parts: Vec<Value>,
    finish: Option<String>,
    usage: Option<Value>,
    feedback: Option<Value>,
}

impl Gemini {
    fn new(at: At) -> Gemini {
        Gemini {
            at,
            id: None,
            model: None,
            text: String::new(),
            parts: Vec::new(),
            finish: None,
            usage: None,
            feedback: None,
        }
    }

    fn add(&mut self, chunk: &Value) {
        if self.id.is_none() {
            self.id = non_empty(string(chunk, "responseId"));
        }
        if self.model.is_none() {
            self.model = non_empty(string(chunk, "modelVersion"));
        }
        if let Some(u) = chunk.get("usageMetadata").filter(|u| u.is_object()) {
            self.usage = Some(u.clone());
        }
        if let Some(f) = chunk.get("promptFeedback").filter(|f| f.get("blockReason").is_some()) {
            self.feedback = Some(f.clone());
        }
        let Some(Value::Array(candidates)) = chunk.get("candidates") else { return };
        for c in candidates.iter().filter(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0) {
            gemini::append_text(c, &mut self.text);
            if let Some(Value::Array(parts)) = c.get("content").and_then(|c| c.get("parts")) {
                self.parts.extend(parts.iter().filter(|p| p.get("functionCall").is_some()).cloned());
            }
            if let Some(f) = c.get("finishReason").and_then(Value::as_str) {
                self.finish = Some(f.to_owned());
            }
        }
    }

    fn finish(self) -> Record {
        let ended = self.finish.is_some() || self.feedback.is_some();
        let mut parts = self.parts;
        if !self.text.is_empty() {
            parts.insert(0, json!({"text": self.text}));
        }
        let response = json!({
            "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": self.finish}],
            "usageMetadata": self.usage, "modelVersion": self.model, "responseId": self.id,
            "promptFeedback": self.feedback,
        });
        let record = gemini::response(&response, Format::GeminiStream);
        if ended { record } else { cut_short(record) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(capture: &str, format: Format) -> Vec<Out> {
        let mut got = Vec::new();
        read_sse(capture.as_bytes(), format, 1 << 20, &mut |o| got.push(o)).unwrap();
        got
    }

    fn reply(o: &Out) -> (&str, StopReason, Option<&str>) {
        match &o.what {
            Ok(Record::Reply { text, meta, .. }) => (text.as_str(), meta.stop, meta.stop_detail.as_deref()),
            other => panic!("not a reply: {other:?}"),
        }
    }

    #[test]
    fn chat_chunks_join_choice_zero_and_take_the_last_usage() {
        let capture = concat!(
            "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n",
            "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"think\"}},{\"index\":1,\"delta\":{\"content\":\"other\"}}]}\n\n",
            "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"{\\\"a\\\":\"}}]}\n\n",
            "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}\n\n",
            "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4}}\n\n",
            "data: [DONE]\n\n",
        );
        let got = read(capture, Format::OpenAiChatStream);
        assert_eq!(got.len(), 1);
        assert_eq!(reply(&got[0]), ("{\"a\":", StopReason::Truncated, Some("length")));
        let Ok(Record::Reply { meta, .. }) = &got[0].what else { unreachable!() };
        assert_eq!(meta.tokens.output, Some(4));
    }

    #[test]
    fn an_anthropic_stream_cut_short_keeps_what_arrived() {
        let capture = concat!(
            "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"c\",\"content\":[],\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n",
            "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"hmm\"}}\n\n",
            "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"{\\\"a\\\"\"}}\n\n",
        );
        let got = read(capture, Format::AnthropicStream);
        assert_eq!(reply(&got[0]), ("{\"a\"", StopReason::Truncated, Some("stream cut short")));
        assert_eq!(got[0].line, 1);
    }
}
