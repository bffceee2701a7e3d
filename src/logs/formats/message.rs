//! A model's reply as a tracing tool kept it: whatever the traced call returned, in whichever
//! convention the integration that traced it wrote. Langfuse and LangSmith store a call's
//! output as they were handed it, so the same field holds a plain string (a stream put
//! together by the wrapper), a chat message (`{"role": "assistant", "content": …}`, its
//! content a string or a list of parts; or its `parts`, as OpenTelemetry's GenAI messages and
//! Gemini's contents write them), a list of them (one per choice, or a conversation),
//! LangChain's serialized messages, `{"messages": […]}` (LangGraph), `{"completion": …}`, or a
//! provider's whole response (OpenAI's, Anthropic's, Gemini's), which that provider's reader
//! reads.

use serde_json::Value;

use super::{anthropic, gemini, openai};
use crate::logs::formats::fields::{join_text, name, string, uint};
use crate::logs::formats::record::{NoText, Record};
use crate::logs::model::reply::{Format, Meta, Tokens};

/// The reply `value` holds, as a record of `format`; `None` when it is in no convention known.
pub(crate) fn read(value: &Value, format: Format) -> Option<Record> {
    read_at(value, format, 0)
}

/// How deep a value is looked into: a list of messages, a message, LangChain's wrapper.
const DEPTH: usize = 3;

fn read_at(value: &Value, format: Format, depth: usize) -> Option<Record> {
    if depth > DEPTH {
        return None;
    }
    match value {
        Value::String(s) => Some(Record::Reply { id: None, text: s.clone(), meta: Meta::new(format) }),
        Value::Array(items) => list(items, format, depth),
        Value::Object(o) => {
            let provider = if o.get("choices").is_some_and(Value::is_array) {
                Some(openai::chat(value.clone(), format))
            } else if o.get("candidates").is_some_and(Value::is_array) {
                Some(gemini::response(value, format))
            } else if o.get("output").is_some_and(Value::is_array)
                && (o.contains_key("status") || o.contains_key("object"))
            {
                Some(openai::responses(value.clone(), format))
            } else if o.get("content").is_some_and(Value::is_array) && o.contains_key("stop_reason") {
                Some(anthropic::message(value.clone(), format))
            } else {
                None
            };
            if let Some(record) = provider {
                return Some(record.rewrap(None, format));
            }
            if let Some(kwargs) = serialized(value) {
                return read_at(kwargs, format, depth + 1);
            }
            if let Some(Value::Array(messages)) = o.get("messages") {
                let last = messages.iter().rev().find(|m| is_reply(m))?;
                return read_at(last, format, depth + 1);
            }
            if o.len() == 1
                && let Some(Value::String(s)) = o.get("completion")
            {
                return Some(Record::Reply { id: None, text: s.clone(), meta: Meta::new(format) });
            }
            is_message(value).then(|| message(value, format))
        }
        _ => None,
    }
}

/// A list: the output items of a Responses call, the choices of a call of `n` (the first is
/// the reply, as `choices[0]` is), or a conversation (its last reply).
fn list(items: &[Value], format: Format, depth: usize) -> Option<Record> {
    let items_of_responses = items.iter().any(|i| i.get("type").and_then(Value::as_str) == Some("message"))
        && items.iter().all(|i| i.get("type").is_some_and(Value::is_string));
    if items_of_responses {
        let whole = serde_json::json!({"object": "response", "output": items});
        return Some(openai::responses(whole, format).rewrap(None, format));
    }
    if !items.iter().all(is_message) {
        return None;
    }
    let pick = if items.iter().all(is_reply) { items.first() } else { items.iter().rev().find(|m| is_reply(m)) };
    read_at(pick?, format, depth + 1)
}

/// LangChain's serialized message, `{"lc": 1, "type": "constructor", "id": […, "AIMessage"],
/// "kwargs": {…}}`: its fields.
fn serialized(value: &Value) -> Option<&Value> {
    let constructor = value.get("lc").is_some() && value.get("type").and_then(Value::as_str) == Some("constructor");
    constructor.then(|| value.get("kwargs")).flatten().filter(|k| k.is_object())
}

/// Who wrote a message: its `role`, or LangChain's `type` (`ai`, `human`), or the class its
/// serialized form names.
fn role(m: &Value) -> Option<&str> {
    let class = m.get("id").and_then(Value::as_array).and_then(|id| id.last()).and_then(Value::as_str);
    m.get("role").and_then(Value::as_str).or_else(|| m.get("type").and_then(Value::as_str)).or(class)
}

fn is_message(m: &Value) -> bool {
    let m = serialized(m).unwrap_or(m);
    role(m).is_some() && ["content", "parts", "tool_calls"].iter().any(|k| m.get(*k).is_some())
}

/// Whether a message is the model's.
fn is_reply(m: &Value) -> bool {
    let class = role(m).or_else(|| serialized(m).and_then(role));
    matches!(class, Some("assistant" | "ai" | "model" | "AIMessage" | "AIMessageChunk" | "message"))
}

/// A chat message: its content's text (a string, or its text parts joined), its tool calls,
/// and what LangChain keeps beside them (the stop reason, the model, the usage).
fn message(m: &Value, format: Format) -> Record {
    let mut meta = Meta::new(format);
    let response = m.get("response_metadata");
    let said = |k: &str| name(m, k).or_else(|| response.and_then(|r| name(r, k)));
    meta.stop_detail = said("finish_reason").or_else(|| said("stop_reason"));
    meta.stop = meta.stop_detail.as_deref().map_or_else(Default::default, crate::logs::formats::fields::stop_from_word);
    meta.model = response.and_then(|r| name(r, "model_name").or_else(|| name(r, "model")));
    if let Some(u) = m.get("usage_metadata") {
        meta.tokens = Tokens { input: uint(u, "input_tokens"), output: uint(u, "output_tokens"), ..Tokens::default() };
    }
    let id = string(m, "id");
    let text = match (m.get("content"), m.get("parts")) {
        (Some(Value::String(s)), _) => s.clone(),
        (Some(parts @ Value::Array(_)), _) => join_text(Some(&mut parts.clone()), &["text", "output_text"], "text").0,
        (_, Some(Value::Array(parts))) => parts_text(parts),
        _ => String::new(),
    };
    if text.is_empty() {
        let tools = match m.get("tool_calls") {
            Some(Value::Array(calls)) => calls
                .iter()
                .map(|c| {
                    c.get("function")
                        .and_then(|f| string(f, "name"))
                        .or_else(|| string(c, "name"))
                        .unwrap_or_else(|| "tool".to_owned())
                })
                .collect(),
            _ => Vec::new(),
        };
        return NoText { tools, refusal: string(m, "refusal"), ..NoText::default() }.into_record(id, meta);
    }
    Record::Reply { id, text, meta }
}

/// The text of a message's `parts`: OpenTelemetry's `{"type": "text", "content"}` and
/// Gemini's `{"text"}`, reasoning and thoughts left out.
fn parts_text(parts: &[Value]) -> String {
    let mut text = String::new();
    for p in parts {
        if p.get("thought").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        let piece = match p.get("type").and_then(Value::as_str) {
            Some("text") => p.get("content").or_else(|| p.get("text")),
            Some(_) => None,
            None => p.get("text"),
        };
        if let Some(s) = piece.and_then(Value::as_str) {
            text.push_str(s);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(v: Value) -> Option<String> {
        match read(&v, Format::Langfuse) {
            Some(Record::Reply { text, .. }) => Some(text),
            other => panic!("{v}: {other:?}"),
        }
    }

    #[test]
    fn each_convention_gives_its_reply() {
        let cases = [
            (json!("plain"), "plain"),
            (json!({"role": "assistant", "content": "{\"a\": 1}"}), "{\"a\": 1}"),
            (
                json!({"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}),
                "ab",
            ),
            (json!([{"role": "assistant", "content": "first"}, {"role": "assistant", "content": "second"}]), "first"),
            (json!([{"role": "user", "content": "q"}, {"role": "assistant", "content": "answer"}]), "answer"),
            (json!({"messages": [{"type": "human", "content": "q"}, {"type": "ai", "content": "it"}]}), "it"),
            (json!({"completion": "legacy"}), "legacy"),
            (
                json!({"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessage"],
                    "kwargs": {"content": "lc", "type": "ai"}}),
                "lc",
            ),
            (json!({"id": "c", "choices": [{"message": {"content": "oa"}, "finish_reason": "length"}]}), "oa"),
            (
                json!({"type": "message", "role": "assistant", "content": [{"type": "text", "text": "an"}], "stop_reason": "end_turn"}),
                "an",
            ),
            (
                json!([{"type": "reasoning", "summary": []}, {"type": "message", "role": "assistant",
                     "content": [{"type": "output_text", "text": "resp"}]}]),
                "resp",
            ),
            (
                json!([{"role": "assistant", "parts": [{"type": "reasoning", "content": "r"}, {"type": "text", "content": "otel"}],
                        "finish_reason": "stop"}]),
                "otel",
            ),
            (json!({"role": "model", "parts": [{"text": "t", "thought": true}, {"text": "gem"}]}), "gem"),
        ];
        for (value, want) in cases {
            assert_eq!(text(value).as_deref(), Some(want));
        }
        // JSON that is no message is not read as one.
        assert!(read(&json!({"name": "Ada"}), Format::Langfuse).is_none());
        assert!(read(&json!([1, 2]), Format::Langfuse).is_none());
    }
}
