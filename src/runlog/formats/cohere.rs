//! Cohere chat responses. v2 puts the answer in `message.content[]` (its `text` items; a
//! reasoning model's `thinking` items are not the reply), tool calls in
//! `message.tool_calls`; v1 put it in a top-level `text`.

use serde_json::{Map, Value};

use super::{Claim, Shape};
use crate::runlog::fields::{has, is_object, string, uint};
use crate::runlog::record::{NoText, Record};
use crate::runlog::reply::{Format, Meta, StopReason, Tokens};

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
    v1.then(|| Claim::certain(Shape::Cohere))
}

fn stop(reason: Option<&str>) -> StopReason {
    match reason {
        Some("COMPLETE" | "STOP_SEQUENCE") => StopReason::Finished,
        Some("MAX_TOKENS") => StopReason::Truncated,
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

pub(crate) fn response(record: &Value) -> Record {
    let mut meta = Meta::new(Format::Cohere);
    meta.stop_detail = string(record, "finish_reason");
    meta.stop = stop(meta.stop_detail.as_deref());
    let v2 = record.get("message").filter(|m| m.is_object());
    meta.tokens = tokens(record.get("usage").or_else(|| record.get("meta")));
    let id = string(record, "id").or_else(|| string(record, "response_id"));
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn v2_text_items_are_joined_and_thinking_is_left_out() {
        let r = json!({"id": "c1", "finish_reason": "MAX_TOKENS", "message": {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "{\"a\":"}]},
            "usage": {"billed_units": {"input_tokens": 1, "output_tokens": 2}, "tokens": {"input_tokens": 9, "output_tokens": 2}}});
        let Record::Reply { text, meta, .. } = response(&r) else { panic!("a reply") };
        assert_eq!((text.as_str(), meta.stop, meta.tokens.input), ("{\"a\":", StopReason::Truncated, Some(9)));
    }
}
