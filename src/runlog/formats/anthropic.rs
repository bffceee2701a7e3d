//! Anthropic: Messages responses (and Bedrock invoke bodies, which are the same shape), and
//! Messages streams saved as server-sent events.
//!
//! The reply is the `text` blocks joined with nothing between; thinking, tool use and the
//! server's tools are not text. `max_tokens` (and a stop at the context window) is the
//! ceiling.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::{Claim, Shape};
use crate::runlog::fields::{block_names, is_array, is_str, join_text, string, uint};
use crate::runlog::record::{NoText, Record};
use crate::runlog::reply::{Format, Meta, StopReason, Tokens};
use crate::runlog::stream::{Assemble, At, Out, cut_short};

/// A Messages response: `content` blocks, and `type: "message"` or the assistant's role.
pub(crate) fn claim(o: &Map<String, Value>) -> Option<Claim> {
    let blocks = is_array(o, "content");
    (blocks && (is_str(o, "type", "message") || is_str(o, "role", "assistant")))
        .then(|| Claim::certain(Shape::Anthropic))
}

/// Which Anthropic stream an event belongs to, by its type.
pub(crate) fn claim_event(kind: &str, _payload: &Value) -> Option<Format> {
    matches!(kind, "message_start" | "content_block_start" | "content_block_delta" | "message_delta" | "ping")
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
    meta.model = string(&record, "model");
    meta.stop_detail = string(&record, "stop_reason");
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

/// Messages stream events, put back together: `message_start`'s envelope, blocks by index,
/// `message_delta`'s stop reason and usage (running totals: the last one stands).
#[derive(Default)]
pub(crate) struct MessageStream {
    cur: Option<Message>,
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
    use crate::runlog::reply::Tokens;
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
