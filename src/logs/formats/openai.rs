//! OpenAI, and the servers that speak its API (vLLM, llama.cpp): chat completions (and legacy
//! completions), Responses, Batch output lines, and chat and Responses streams saved as
//! server-sent events.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::shape::{Claim, Shape};
use crate::logs::Name;
use crate::logs::formats::fields::{block_names, has, is_array, is_str, join_text, name, string, uint};
use crate::logs::formats::record::{NoText, Record};
use crate::logs::formats::stream::{Assemble, At, Out, cut_short, non_empty};
use crate::logs::model::reply::{EventKind, Format, Meta, StopReason, Tokens};

/// A Batch output line (`custom_id` and `response` or `error`), a chat completion
/// (`choices`), a Responses object.
pub(crate) fn claim(o: &Map<String, Value>) -> Option<Claim> {
    if o.contains_key("custom_id") && (o.contains_key("response") || o.contains_key("error")) {
        return Some(Claim::certain(Shape::OpenAiBatch));
    }
    if is_array(o, "choices") {
        return Some(Claim::certain(Shape::OpenAiChat));
    }
    if is_responses(o) {
        return Some(Claim::certain(Shape::OpenAiResponses));
    }
    None
}

fn is_responses(o: &Map<String, Value>) -> bool {
    is_str(o, "object", "response") || (is_array(o, "output") && has(o, "status"))
}

/// Which OpenAI stream an event belongs to: Responses events by their `response.` types,
/// chat completion chunks by their object or their deltas.
pub(crate) fn claim_event(kind: &str, payload: &Value) -> Option<Format> {
    if kind.starts_with("response.") {
        return Some(Format::OpenAiResponsesStream);
    }
    let chunk = payload.get("object").and_then(Value::as_str) == Some("chat.completion.chunk")
        || payload.get("choices").and_then(|c| c.get(0)).is_some_and(|c| c.get("delta").is_some());
    chunk.then_some(Format::OpenAiChatStream)
}

fn tokens(usage: Option<&Value>) -> Tokens {
    let Some(u) = usage else { return Tokens::default() };
    let cached = |details: &str| u.get(details).and_then(|d| uint(d, "cached_tokens"));
    Tokens {
        input: uint(u, "prompt_tokens").or_else(|| uint(u, "input_tokens")),
        output: uint(u, "completion_tokens").or_else(|| uint(u, "output_tokens")),
        cache_read: cached("prompt_tokens_details").or_else(|| cached("input_tokens_details")),
        cache_write: None,
    }
}

/// An OpenAI chat completion: `choices[0].message.content` (what the SDK's
/// `choices[0].message.content` is). A compatible server's reasoning (`reasoning_content`,
/// `reasoning`) sits beside it and is not the reply. A legacy completion's `choices[0].text`
/// is read too, as vLLM and llama.cpp serve `/v1/completions`.
pub(crate) fn chat(mut record: Value, format: Format) -> Record {
    let mut meta = Meta::new(format);
    meta.model = name(&record, "model");
    meta.tokens = tokens(record.get("usage"));
    let id = string(&record, "id");
    let Some(choice) = record.get_mut("choices").and_then(|c| c.get_mut(0)) else {
        return NoText::default().into_record(id, meta);
    };
    meta.stop_detail = name(choice, "finish_reason");
    meta.stop = stop(meta.stop_detail.as_deref());
    let legacy = choice.get("message").is_none() && choice.get("text").is_some_and(Value::is_string);
    let content =
        if legacy { choice.get_mut("text") } else { choice.get_mut("message").and_then(|m| m.get_mut("content")) };
    let text = match content {
        Some(Value::String(s)) => std::mem::take(s),
        // Content as parts, which some compatible servers write.
        Some(parts @ Value::Array(_)) => join_text(Some(parts), &["text", "output_text"], "text").0,
        _ => String::new(),
    };
    if text.is_empty() {
        let message = choice.get("message");
        let mut why = NoText { refusal: message.and_then(|m| string(m, "refusal")), ..NoText::default() };
        if let Some(Value::Array(calls)) = message.and_then(|m| m.get("tool_calls")) {
            why.tools = calls
                .iter()
                .map(|c| c.get("function").and_then(|f| string(f, "name")).unwrap_or_else(|| "tool".to_owned()))
                .collect();
        } else if let Some(f) = message.and_then(|m| m.get("function_call")).filter(|f| f.is_object()) {
            why.tools.push(string(f, "name").unwrap_or_else(|| "function".to_owned()));
        }
        return why.into_record(id, meta);
    }
    Record::Reply { id, text, meta }
}

pub(crate) fn stop(reason: Option<&str>) -> StopReason {
    match reason {
        Some("stop" | "eos" | "end_turn") => StopReason::Finished,
        Some("length" | "max_tokens") => StopReason::Truncated,
        Some(_) => StopReason::Other,
        None => StopReason::Unknown,
    }
}

/// An OpenAI Responses object: the `output_text` parts of its `message` outputs.
pub(crate) fn responses(mut record: Value, format: Format) -> Record {
    let mut meta = Meta::new(format);
    meta.model = name(&record, "model");
    meta.tokens = tokens(record.get("usage"));
    let status = string(&record, "status");
    let reason = record.get("incomplete_details").and_then(|d| string(d, "reason"));
    meta.stop = match status.as_deref() {
        Some("completed") => StopReason::Finished,
        // Incomplete for the content filter is not the ceiling.
        Some("incomplete") if reason.as_deref().is_some_and(|r| r != "max_output_tokens") => StopReason::Other,
        Some("incomplete") => StopReason::Truncated,
        Some(_) => StopReason::Other,
        None => StopReason::Unknown,
    };
    meta.stop_detail = match (&status, reason) {
        (Some(s), Some(r)) => Some(format!("{s}: {r}").into()),
        (s, r) => s.clone().or(r).map(Name::from),
    };
    let id = string(&record, "id");
    let mut text = String::new();
    let mut parts = 0;
    if let Some(Value::Array(outputs)) = record.get_mut("output") {
        for out in outputs.iter_mut().filter(|o| o.get("type").and_then(Value::as_str) == Some("message")) {
            let (t, n) = join_text(out.get_mut("content"), &["output_text"], "text");
            if n > 0 {
                text.push_str(&t);
                parts += n;
            }
        }
    }
    if parts == 0 || text.is_empty() {
        if status.as_deref() == Some("failed") {
            let message = record.get("error").and_then(|e| string(e, "message")).unwrap_or_else(|| "failed".into());
            return Record::Event { id, kind: EventKind::Failed, message, meta };
        }
        let mut why = NoText::default();
        if let Some(Value::Array(outputs)) = record.get("output") {
            for out in outputs {
                match out.get("type").and_then(Value::as_str) {
                    Some("message") => {
                        if let Some(r) = block_names(out.get("content"), "refusal", |b| string(b, "refusal")).pop() {
                            why.refusal = Some(r);
                        }
                    }
                    Some(t) if t.ends_with("_call") => {
                        why.tools.push(string(out, "name").unwrap_or_else(|| t.to_owned()))
                    }
                    _ => {}
                }
            }
        }
        return why.into_record(id, meta);
    }
    Record::Reply { id, text, meta }
}

/// An OpenAI Batch output line: the completion in `response.body`, `custom_id` its id.
pub(crate) fn batch(mut record: Value) -> Record {
    let id = string(&record, "custom_id");
    let error = record.get("error").filter(|e| !e.is_null()).map(|e| string(e, "message").unwrap_or(e.to_string()));
    let status = record.get("response").and_then(|r| uint(r, "status_code"));
    let body = record.get_mut("response").and_then(|r| r.get_mut("body")).map(Value::take);
    let failed = |message: String| Record::Event {
        id: id.clone(),
        kind: EventKind::Failed,
        message,
        meta: Meta::new(Format::OpenAiBatch),
    };
    if let Some(e) = error {
        return failed(e);
    }
    let Some(body) = body else { return failed("no response body".to_owned()) };
    if status.is_some_and(|s| s != 200) || body.get("error").is_some_and(|e| !e.is_null()) {
        let message = body.get("error").and_then(|e| string(e, "message")).unwrap_or_else(|| body.to_string());
        return failed(format!("HTTP {}: {}", status.unwrap_or(0), crate::visible::clip(&message, 200)));
    }
    let inner = match body.as_object() {
        Some(o) if !is_array(o, "choices") && is_responses(o) => responses(body, Format::OpenAiBatch),
        _ => chat(body, Format::OpenAiBatch),
    };
    inner.rewrap(id, Format::OpenAiBatch)
}

/// Chat completion chunks, put back together as the SDKs do: merged by `choices[].index`
/// whatever `id` each chunk carries (some servers give every chunk an id of its own; the
/// first chunk's is the response's, as openai-python reports it), `finish_reason`, a last
/// `usage`. A capture may hold several streams one after another: one ends at `data: [DONE]`,
/// or where a finished one is followed by a chunk that opens a message (its `role`).
#[derive(Default)]
pub(crate) struct ChatStream {
    cur: Option<Chat>,
}

/// One chat completion stream being put together.
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
    /// A chunk carried an id other than the first's.
    ids_vary: bool,
}

impl Assemble for ChatStream {
    fn format(&self) -> Format {
        Format::OpenAiChatStream
    }

    fn feed(&mut self, _kind: &str, v: Value, at: At, out: &mut dyn FnMut(Out)) {
        let opens = v
            .get("choices")
            .and_then(Value::as_array)
            .is_some_and(|cs| cs.iter().any(|c| index(c) == 0 && c.get("delta").and_then(|d| d.get("role")).is_some()));
        if self.cur.as_ref().is_some_and(|c| c.done || (c.finish.is_some() && opens)) {
            self.finish(out);
        }
        self.cur.get_or_insert_with(|| Chat::new(at)).add(&v);
    }

    /// `data: [DONE]`: OpenAI's end of a stream.
    fn done(&mut self, out: &mut dyn FnMut(Out)) {
        if let Some(c) = &mut self.cur {
            c.done = true;
        }
        self.finish(out);
    }

    fn finish(&mut self, out: &mut dyn FnMut(Out)) {
        if let Some(c) = self.cur.take() {
            let at = c.at;
            out(at.out(Ok(c.finish())));
        }
    }
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
            ids_vary: false,
        }
    }

    fn add(&mut self, chunk: &Value) {
        let id = non_empty(string(chunk, "id"));
        if self.id.is_none() {
            self.id = id;
        } else if id.is_some() && id != self.id {
            self.ids_vary = true;
        }
        if self.model.is_none() {
            self.model = non_empty(string(chunk, "model"));
        }
        if let Some(u) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(u.clone());
        }
        let Some(Value::Array(choices)) = chunk.get("choices") else { return };
        // Choice 0 is the reply, as `choices[0]` is for a completion.
        for choice in choices.iter().filter(|c| index(c) == 0) {
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
        let mut record = chat(completion, Format::OpenAiChatStream);
        if let (true, Record::Reply { meta, .. } | Record::Event { meta, .. }) = (self.ids_vary, &mut record) {
            meta.extra.push(("chunk_ids".to_owned(), "vary".to_owned()));
        }
        if ended { record } else { cut_short(record) }
    }
}

/// A choice's index (0 when it has none).
fn index(choice: &Value) -> u64 {
    choice.get("index").and_then(Value::as_u64).unwrap_or(0)
}

/// Responses events, put back together: the terminal event's `response` is the whole
/// response; the `output_text` deltas, by output and part, are what a stream cut short
/// leaves.
#[derive(Default)]
pub(crate) struct ResponsesStream {
    cur: Option<Responses>,
}

struct Responses {
    at: At,
    envelope: Option<Value>,
    deltas: BTreeMap<(u64, u64), String>,
    refusal: Option<String>,
    tools: Vec<String>,
    terminal: Option<Value>,
}

impl Assemble for ResponsesStream {
    fn format(&self) -> Format {
        Format::OpenAiResponsesStream
    }

    fn feed(&mut self, kind: &str, v: Value, at: At, out: &mut dyn FnMut(Out)) {
        let starts = matches!(kind, "response.created" | "response.queued");
        if starts || self.cur.as_ref().is_some_and(|c| c.terminal.is_some()) {
            self.finish(out);
        }
        let c = self.cur.get_or_insert_with(|| Responses::new(at));
        c.add(kind, v);
        if c.terminal.is_some() {
            self.finish(out);
        }
    }

    fn finish(&mut self, out: &mut dyn FnMut(Out)) {
        if let Some(c) = self.cur.take() {
            let at = c.at;
            out(at.out(Ok(c.finish())));
        }
    }
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
                if let Some(item) = v.get("item")
                    && let Some(t) = item.get("type").and_then(Value::as_str).filter(|t| t.ends_with("_call"))
                {
                    self.tools.push(string(item, "name").unwrap_or_else(|| t.to_owned()));
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
            let record = responses(terminal, Format::OpenAiResponsesStream);
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
        meta.model = name(&envelope, "model");
        let id = string(&envelope, "id");
        let record = if streamed.is_empty() {
            NoText { tools: self.tools, refusal: self.refusal, ..Default::default() }.into_record(id, meta)
        } else {
            Record::Reply { id, text: streamed, meta }
        };
        cut_short(record)
    }
}
