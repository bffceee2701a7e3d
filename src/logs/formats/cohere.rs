//! Cohere chat responses and streams. v2 puts the answer in `message.content[]` (its `text`
//! items; a reasoning model's `thinking` items are not the reply), tool calls in
//! `message.tool_calls`; v1 put it in a top-level `text`.
//!
//! A v2 stream is server-sent events whose kind is the `type` inside each payload, hyphenated
//! (`message-start`, `content-delta`, `message-end`): the text deltas joined per content index,
//! the finish reason, usage and any error on `message-end`. A v1 stream is NDJSON, one event a
//! line named by `event_type` (`stream-start`, `text-generation`, `stream-end`), the finish
//! reason and usage on `stream-end`. Cohere on Bedrock streams the v1 events.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::api_error;
use super::shape::{Claim, Shape};
use crate::logs::formats::fields::{describe, has, is_object, name, string, uint};
use crate::logs::formats::record::{NoText, Record};
use crate::logs::formats::stream::{Assemble, At, Out, cut_short, non_empty};
use crate::logs::model::diagnostic::Problem;
use crate::logs::model::reply::{EventKind, Format, Meta, StopReason, Tokens};

/// The events of a v2 stream, by their `type`.
const V2_EVENTS: [&str; 12] = [
    "message-start",
    "content-start",
    "content-delta",
    "content-end",
    "tool-plan-delta",
    "tool-call-start",
    "tool-call-delta",
    "tool-call-end",
    "citation-start",
    "citation-end",
    "message-end",
    "debug",
];

/// The events of a v1 stream, by their `event_type`.
const V1_EVENTS: [&str; 9] = [
    "stream-start",
    "search-queries-generation",
    "search-results",
    "text-generation",
    "citation-generation",
    "tool-calls-generation",
    "tool-calls-chunk",
    "stream-end",
    "debug",
];

/// A v2 chat response (a top-level `message`, its content or only tool calls, and a finish),
/// or a v1 one (a top-level `text` beside its generation or response id).
pub(crate) fn claim(o: &Map<String, Value>) -> Option<Claim> {
    // Ollama's `message` is an object too; its `done` and `created_at` tell it apart.
    if is_object(o, "message") && has(o, "finish_reason") && has(o, "id") {
        return Some(Claim::certain(Shape::Cohere));
    }
    let v1 = o.get("text").is_some_and(Value::is_string)
        && (o.contains_key("generation_id") || o.contains_key("response_id"))
        && (o.contains_key("finish_reason") || o.contains_key("meta"));
    if v1 {
        return Some(Claim::certain(Shape::Cohere));
    }
    let event = o.get("event_type").and_then(Value::as_str).is_some_and(|e| V1_EVENTS.contains(&e));
    event.then(|| Claim::certain(Shape::CohereChunk))
}

/// A v2 stream's event, by its hyphenated type (Anthropic's have underscores).
pub(crate) fn claim_event(kind: &str, _payload: &Value) -> Option<Format> {
    V2_EVENTS.contains(&kind).then_some(Format::CohereStream)
}

fn stop(reason: Option<&str>) -> StopReason {
    match reason {
        Some("COMPLETE" | "STOP_SEQUENCE") => StopReason::Finished,
        // v1's ERROR_LIMIT is the context window's cut, which cuts as the ceiling does.
        Some("MAX_TOKENS" | "ERROR_LIMIT") => StopReason::Truncated,
        Some(_) => StopReason::Other,
        None => StopReason::Unknown,
    }
}

/// `usage.tokens` (what the model read and wrote), else what was billed.
fn tokens(usage: Option<&Value>) -> Tokens {
    let Some(u) = usage else { return Tokens::default() };
    let counts = u.get("tokens").or_else(|| u.get("billed_units"));
    Tokens {
        input: counts.and_then(|c| uint(c, "input_tokens")),
        output: counts.and_then(|c| uint(c, "output_tokens")),
        ..Tokens::default()
    }
}

pub(crate) fn response(record: &Value, format: Format) -> Record {
    let mut meta = Meta::new(format);
    meta.stop_detail = name(record, "finish_reason");
    meta.stop = stop(meta.stop_detail.as_deref());
    let v2 = record.get("message").filter(|m| m.is_object());
    meta.tokens = tokens(record.get("usage").or_else(|| record.get("meta")));
    let id = string(record, "id").or_else(|| string(record, "response_id")).or_else(|| string(record, "generation_id"));
    let mut text = String::new();
    match v2.and_then(|m| m.get("content")) {
        Some(Value::Array(items)) => {
            for item in items.iter().filter(|i| i.get("type").and_then(Value::as_str).is_none_or(|t| t == "text")) {
                if let Some(t) = item.get("text").and_then(Value::as_str) {
                    text.push_str(t);
                }
            }
        }
        Some(Value::String(s)) => text.push_str(s),
        _ => {
            if v2.is_none() {
                text = string(record, "text").unwrap_or_default();
            }
        }
    }
    if text.is_empty() {
        let calls = v2.and_then(|m| m.get("tool_calls")).or_else(|| record.get("tool_calls"));
        let tools = match calls {
            Some(Value::Array(calls)) => calls
                .iter()
                .map(|c| {
                    c.get("function").and_then(|f| string(f, "name")).or_else(|| string(c, "name")).unwrap_or_default()
                })
                .collect(),
            _ => Vec::new(),
        };
        return NoText { tools, ..NoText::default() }.into_record(id, meta);
    }
    Record::Reply { id, text, meta }
}

/// A v2 stream, put back together: `message-start` opens a message, the text deltas are
/// joined per content index, `message-end` closes it.
#[derive(Default)]
pub(crate) struct V2Stream {
    cur: Option<V2>,
}

struct V2 {
    at: At,
    id: Option<String>,
    texts: BTreeMap<u64, String>,
    tools: Vec<Value>,
    end: Option<Value>,
}

impl Assemble for V2Stream {
    fn format(&self) -> Format {
        Format::CohereStream
    }

    fn feed(&mut self, kind: &str, v: Value, at: At, out: &mut dyn FnMut(Out)) {
        if kind == "message-start" {
            self.finish(out);
        }
        let c =
            self.cur.get_or_insert_with(|| V2 { at, id: None, texts: BTreeMap::new(), tools: Vec::new(), end: None });
        let index = v.get("index").and_then(Value::as_u64).unwrap_or(0);
        let delta = v.get("delta").and_then(|d| d.get("message"));
        match kind {
            "message-start" => c.id = non_empty(string(&v, "id")),
            "content-start" | "content-delta" => {
                // A thinking part's deltas carry `thinking`, not `text`.
                if let Some(t) =
                    delta.and_then(|m| m.get("content")).and_then(|c| c.get("text")).and_then(Value::as_str)
                {
                    c.texts.entry(index).or_default().push_str(t);
                }
            }
            "tool-call-start" => {
                if let Some(call) = delta.and_then(|m| m.get("tool_calls")).filter(|t| t.is_object()) {
                    c.tools.push(call.clone());
                }
            }
            "message-end" => {
                c.end = Some(v.get("delta").cloned().unwrap_or(Value::Null));
                self.finish(out);
            }
            _ => {}
        }
    }

    fn finish(&mut self, out: &mut dyn FnMut(Out)) {
        let Some(c) = self.cur.take() else { return };
        let text: String = c.texts.values().map(String::as_str).collect();
        let end = c.end.as_ref();
        let whole = json!({
            "id": c.id,
            "finish_reason": end.and_then(|e| e.get("finish_reason")),
            "usage": end.and_then(|e| e.get("usage")),
            "message": {"role": "assistant", "content": [{"type": "text", "text": text}], "tool_calls": c.tools},
        });
        let mut record = response(&whole, Format::CohereStream);
        if let Some(error) = end.and_then(|e| string(e, "error")).filter(|e| !e.is_empty())
            && let Record::Event { id, meta, .. } = record
        {
            record = Record::event(id, EventKind::Failed, format!("stream error: {error}"), meta);
        }
        out(c.at.out(Ok(if end.is_some() { record } else { cut_short(record) })));
    }
}

/// A v1 stream, put back together: `stream-start` opens it, the `text-generation` texts are
/// joined, `stream-end` closes it with the consolidated response (its finish reason, ids and
/// usage; its text where no deltas came).
#[derive(Default)]
pub(crate) struct V1Stream {
    cur: Option<V1>,
}

struct V1 {
    at: At,
    generation_id: Option<String>,
    text: String,
    tools: Vec<Value>,
    end: Option<Value>,
}

impl V1Stream {
    /// One event, at `at`; whether it was one of a v1 stream's.
    pub fn event(&mut self, v: &Value, at: At, out: &mut dyn FnMut(Out)) -> bool {
        let Some(kind) = v.get("event_type").and_then(Value::as_str) else { return false };
        if kind == "stream-start" {
            self.finish(out);
        }
        let c = self.cur.get_or_insert_with(|| V1 {
            at,
            generation_id: None,
            text: String::new(),
            tools: Vec::new(),
            end: None,
        });
        match kind {
            "stream-start" => c.generation_id = non_empty(string(v, "generation_id")),
            "text-generation" => {
                if let Some(t) = v.get("text").and_then(Value::as_str) {
                    c.text.push_str(t);
                }
            }
            "tool-calls-generation" => {
                if let Some(Value::Array(calls)) = v.get("tool_calls") {
                    c.tools.extend(calls.iter().cloned());
                }
            }
            "stream-end" => {
                let mut end = v.get("response").cloned().unwrap_or_else(|| json!({}));
                if let (Value::Object(o), Some(f)) = (&mut end, v.get("finish_reason")) {
                    o.insert("finish_reason".to_owned(), f.clone());
                }
                c.end = Some(end);
                self.finish(out);
            }
            _ => {}
        }
        true
    }
}

impl Assemble for V1Stream {
    fn format(&self) -> Format {
        Format::CohereStream
    }

    fn feed(&mut self, _kind: &str, v: Value, at: At, out: &mut dyn FnMut(Out)) {
        if self.event(&v, at, out) {
            return;
        }
        let what = match api_error::message(&v) {
            Some(_) => Ok(api_error::error(&v, Format::CohereStream)),
            None => Err(Problem::unknown_shape(describe(&v))),
        };
        out(at.out(what));
    }

    fn finish(&mut self, out: &mut dyn FnMut(Out)) {
        let Some(c) = self.cur.take() else { return };
        let ended = c.end.is_some();
        let mut whole = c.end.unwrap_or_else(|| json!({}));
        if let Value::Object(o) = &mut whole {
            // The deltas are what streamed; the consolidated text stands in where none did.
            if !c.text.is_empty() || !o.get("text").is_some_and(Value::is_string) {
                o.insert("text".to_owned(), Value::String(c.text));
            }
            if o.get("generation_id").is_none_or(Value::is_null) {
                o.insert("generation_id".to_owned(), json!(c.generation_id));
            }
            if !c.tools.is_empty() && o.get("tool_calls").is_none_or(Value::is_null) {
                o.insert("tool_calls".to_owned(), Value::Array(c.tools));
            }
        }
        let record = response(&whole, Format::CohereStream);
        out(c.at.out(Ok(if ended { record } else { cut_short(record) })));
    }
}

/// A line of a v1 stream met on its own (in a document, say): what it gives read alone, as a
/// stream that stops there.
pub(crate) fn lone_event(value: Value) -> Record {
    let mut v1 = V1Stream::default();
    let mut got = None;
    let at = At { line: 0, offset: 0 };
    v1.feed("", value, at, &mut |o| {
        got.get_or_insert(o.what);
    });
    v1.finish(&mut |o| {
        got.get_or_insert(o.what);
    });
    match got {
        Some(Ok(record)) => record,
        Some(Err(p)) => Record::Problem(p),
        None => Record::Context,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn v2_text_items_are_joined_and_thinking_is_left_out() {
        let r = json!({"id": "c1", "finish_reason": "MAX_TOKENS", "message": {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "{\"a\":"}]},
            "usage": {"billed_units": {"input_tokens": 1, "output_tokens": 2}, "tokens": {"input_tokens": 9, "output_tokens": 2}}});
        let Record::Reply { text, meta, .. } = response(&r, Format::Cohere) else { panic!("a reply") };
        assert_eq!((text.as_str(), meta.stop, meta.tokens.input), ("{\"a\":", StopReason::Truncated, Some(9)));
    }
}
