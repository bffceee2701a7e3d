//! Anthropic: Messages responses (and Bedrock invoke bodies, which are the same shape),
//! Message Batches results, legacy Text Completions (and Bedrock's Claude 2 bodies), and their
//! streams saved as server-sent events.
//!
//! The reply is the `text` blocks joined with nothing between; thinking, tool use and the
//! server's tools are not text. A legacy completion's reply is its `completion`. `max_tokens`
//! (and a stop at the context window) is the ceiling.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::api_error;
use super::shape::{Claim, Shape};
use crate::logs::formats::fields::{block_names, is_array, is_str, join_text, name, string, uint};
use crate::logs::formats::record::{NoText, Record};
use crate::logs::formats::stream::{Assemble, At, Out, cut_short};
use crate::logs::model::reply::{EventKind, Format, Meta, StopReason, Tokens};

/// A Messages response (`content` blocks, and `type: "message"` or the assistant's role), a
/// Message Batches results line (`custom_id`, and a `result` of one of its four types), a
/// legacy completion (`completion` and `stop_reason`, and none of the other APIs' fields).
pub(crate) fn claim(o: &Map<String, Value>) -> Option<Claim> {
    let blocks = is_array(o, "content");
    if blocks && (is_str(o, "type", "message") || is_str(o, "role", "assistant")) {
        return Some(Claim::certain(Shape::Anthropic));
    }
    let result = o.get("result").and_then(|r| r.get("type")).and_then(Value::as_str);
    if o.contains_key("custom_id") && matches!(result, Some("succeeded" | "errored" | "canceled" | "expired")) {
        return Some(Claim::certain(Shape::AnthropicBatch));
    }
    let completion = o.get("completion").is_some_and(Value::is_string)
        && o.contains_key("stop_reason")
        && !["choices", "content", "candidates"].iter().any(|k| o.contains_key(*k));
    completion.then(|| Claim::certain(Shape::AnthropicCompletion))
}

/// Which Anthropic stream an event belongs to, by its type.
pub(crate) fn claim_event(kind: &str, _payload: &Value) -> Option<Format> {
    matches!(
        kind,
        "message_start"
            | "content_block_start"
            | "content_block_delta"
            | "content_block_stop"
            | "message_delta"
            | "message_stop"
            | "ping"
            | "completion"
    )
    .then_some(Format::AnthropicStream)
}

pub(crate) fn stop(reason: Option<&str>) -> StopReason {
    match reason {
        Some("end_turn" | "stop_sequence" | "stop") => StopReason::Finished,
        // A context-window stop cuts the output exactly as the ceiling does.
        Some("max_tokens" | "model_context_window_exceeded") => StopReason::Truncated,
        Some(_) => StopReason::Other,
        None => StopReason::Unknown,
    }
}

fn tokens(usage: Option<&Value>) -> Tokens {
    let Some(u) = usage else { return Tokens::default() };
    Tokens {
        input: uint(u, "input_tokens"),
        output: uint(u, "output_tokens"),
        cache_read: uint(u, "cache_read_input_tokens"),
        cache_write: uint(u, "cache_creation_input_tokens"),
    }
}

/// An Anthropic Messages response (or a Bedrock invoke body): the `text` blocks, joined.
pub(crate) fn message(mut record: Value, format: Format) -> Record {
    let mut meta = Meta::new(format);
    meta.model = name(&record, "model");
    meta.stop_detail = name(&record, "stop_reason");
    meta.stop = stop(meta.stop_detail.as_deref());
    meta.tokens = tokens(record.get("usage"));
    let id = string(&record, "id");
    let (text, blocks) = join_text(record.get_mut("content"), &["text"], "text");
    if blocks == 0 || text.is_empty() {
        // Client tools, and the server's (web search, code execution, MCP), which pause a turn.
        let tools = ["tool_use", "server_tool_use", "mcp_tool_use"]
            .iter()
            .flat_map(|kind| block_names(record.get("content"), kind, |b| string(b, "name")))
            .collect();
        return NoText { tools, ..NoText::default() }.into_record(id, meta);
    }
    Record::Reply { id, text, meta }
}

/// A Message Batches results line: a succeeded request's message, under its `custom_id`
/// (results come back in any order); an errored one is the API's error, a canceled or expired
/// one a call that never ran.
pub(crate) fn batch(record: &Value) -> Record {
    let id = string(record, "custom_id");
    let result = record.get("result");
    let failed =
        |message: String| Record::event(id.clone(), EventKind::Failed, message, Meta::new(Format::AnthropicBatch));
    match result.and_then(|r| r.get("type")).and_then(Value::as_str) {
        Some("succeeded") => match result.and_then(|r| r.get("message")).filter(|m| m.is_object()) {
            Some(m) => message(m.clone(), Format::AnthropicBatch).rewrap(id, Format::AnthropicBatch),
            None => failed("succeeded, but the result holds no message".to_owned()),
        },
        // `result.error` is the API's error response, `{"type": "error", "error": {…}}`.
        Some("errored") => failed(result.and_then(|r| r.get("error")).map_or_else(
            || "errored, and the result says no more".to_owned(),
            |e| api_error::message(e).unwrap_or_else(|| format!("errored: {e}")),
        )),
        Some("canceled") => failed("canceled: the batch was canceled before this request ran".to_owned()),
        Some("expired") => failed("expired: the batch ended before this request ran".to_owned()),
        _ => failed("a result of no known type".to_owned()),
    }
}

/// A legacy Text Completion (or a Bedrock Claude 2 body): `completion`, the stop sequence
/// left out. It carries no usage.
pub(crate) fn completion(record: &Value, format: Format) -> Record {
    let mut meta = Meta::new(format);
    meta.model = name(record, "model");
    meta.stop_detail = name(record, "stop_reason");
    meta.stop = stop(meta.stop_detail.as_deref());
    let id = string(record, "id");
    match string(record, "completion") {
        Some(text) if !text.is_empty() => Record::Reply { id, text, meta },
        _ => NoText::default().into_record(id, meta),
    }
}

/// Messages stream events, put back together: `message_start`'s envelope, blocks by index,
/// `message_delta`'s stop reason and usage (running totals: the last one stands).
#[derive(Default)]
pub(crate) struct MessageStream {
    cur: Option<Message>,
    /// A legacy Text Completions stream: its `completion` events.
    legacy: Option<Completion>,
}

/// A legacy completion stream being put together: every event is a fragment of the
/// completion, the last one carrying the stop reason.
struct Completion {
    at: At,
    id: Option<String>,
    model: Option<String>,
    text: String,
    stop_reason: Option<String>,
}

struct Message {
    at: At,
    message: Map<String, Value>,
    blocks: BTreeMap<u64, Value>,
    stop_reason: Option<Value>,
    stopped: bool,
}

impl Assemble for MessageStream {
    fn format(&self) -> Format {
        Format::AnthropicStream
    }

    fn feed(&mut self, kind: &str, v: Value, at: At, out: &mut dyn FnMut(Out)) {
        if kind == "completion" {
            let c = self.legacy.get_or_insert_with(|| Completion {
                at,
                id: None,
                model: None,
                text: String::new(),
                stop_reason: None,
            });
            c.id = c.id.take().or_else(|| string(&v, "id"));
            c.model = c.model.take().or_else(|| string(&v, "model"));
            if let Some(t) = v.get("completion").and_then(Value::as_str) {
                c.text.push_str(t);
            }
            if let Some(r) = string(&v, "stop_reason") {
                c.stop_reason = Some(r);
                self.finish(out);
            }
            return;
        }
        if kind == "message_start" {
            self.finish(out);
        }
        if kind == "ping" && self.cur.is_none() {
            return;
        }
        let c = self.cur.get_or_insert_with(|| Message::new(at));
        c.add(kind, &v);
        if c.stopped {
            self.finish(out);
        }
    }

    fn finish(&mut self, out: &mut dyn FnMut(Out)) {
        if let Some(c) = self.cur.take() {
            let at = c.at;
            out(at.out(Ok(c.finish())));
        }
        if let Some(c) = self.legacy.take() {
            let ended = c.stop_reason.is_some();
            let whole = json!({"id": c.id, "model": c.model, "completion": c.text, "stop_reason": c.stop_reason});
            let record = completion(&whole, Format::AnthropicStream);
            out(c.at.out(Ok(if ended { record } else { cut_short(record) })));
        }
    }
}

impl Message {
    fn new(at: At) -> Message {
        Message { at, message: Map::new(), blocks: BTreeMap::new(), stop_reason: None, stopped: false }
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
        let record = message(Value::Object(self.message), Format::AnthropicStream);
        if ended { record } else { cut_short(record) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::model::reply::Tokens;
    use serde_json::json;

    #[test]
    fn anthropic_text_blocks_are_joined_and_max_tokens_is_truncation() {
        let r = json!({"id": "msg_1", "type": "message", "model": "m", "stop_reason": "max_tokens",
            "content": [{"type": "thinking", "thinking": "no"}, {"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            "usage": {"input_tokens": 5, "output_tokens": 7, "cache_read_input_tokens": 2}});
        let Record::Reply { id, text, meta } = message(r, Format::Anthropic) else { panic!("a reply") };
        assert_eq!((id.as_deref(), text.as_str(), meta.stop), (Some("msg_1"), "ab", StopReason::Truncated));
        assert_eq!(meta.tokens, Tokens { input: Some(5), output: Some(7), cache_read: Some(2), cache_write: None });
    }
}
