//! Gemini: `generateContent` responses (the Developer API's and Vertex AI's are one shape),
//! the Developer API's batch output lines and Vertex AI's batch prediction lines.
//!
//! The reply is what the SDK's `response.text` is: the `text` of every part of
//! `candidates[0].content.parts` that is not a thought (`thought: true`), joined with
//! nothing between. A part with a `thoughtSignature` is still an answer part. A prompt the
//! filter blocked has no candidates and says why in `promptFeedback.blockReason`.

use serde_json::Value;

use super::formats::{NoText, Record, clip, string, uint};
use super::reply::{EventKind, Format, Meta, StopReason, Tokens};

pub(crate) fn stop(reason: Option<&str>) -> StopReason {
    match reason {
        Some("STOP") => StopReason::Finished,
        Some("MAX_TOKENS") => StopReason::Truncated,
        Some("FINISH_REASON_UNSPECIFIED") | None => StopReason::Unknown,
        Some(_) => StopReason::Other,
    }
}

pub(crate) fn tokens(usage: Option<&Value>) -> Tokens {
    let Some(u) = usage else { return Tokens::default() };
    Tokens {
        input: uint(u, "promptTokenCount"),
        // As reported: the thinking tokens (`thoughtsTokenCount`) are counted apart.
        output: uint(u, "candidatesTokenCount"),
        cache_read: uint(u, "cachedContentTokenCount"),
        cache_write: None,
    }
}

/// The answer parts of one candidate's content, appended to `text`; whether there was one.
pub(crate) fn append_text(candidate: &Value, text: &mut String) -> bool {
    let mut any = false;
    let Some(Value::Array(parts)) = candidate.get("content").and_then(|c| c.get("parts")) else { return false };
    for part in parts {
        if part.get("thought").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        if let Some(t) = part.get("text").and_then(Value::as_str) {
            text.push_str(t);
            any = true;
        }
    }
    any
}

/// The function calls among one candidate's parts.
pub(crate) fn tool_calls(candidate: &Value, tools: &mut Vec<String>) {
    let Some(Value::Array(parts)) = candidate.get("content").and_then(|c| c.get("parts")) else { return };
    for part in parts {
        if let Some(call) = part.get("functionCall") {
            tools.push(string(call, "name").unwrap_or_else(|| "functionCall".to_owned()));
        } else if part.get("executableCode").is_some() {
            tools.push("executableCode".to_owned());
        }
    }
}

/// Why a prompt was blocked, if it was.
pub(crate) fn block_reason(record: &Value) -> Option<String> {
    let feedback = record.get("promptFeedback")?;
    let reason = string(feedback, "blockReason")?;
    Some(match string(feedback, "blockReasonMessage") {
        Some(m) => format!("{reason}: {}", clip(&m, 160)),
        None => reason,
    })
}

/// One `GenerateContentResponse`.
pub(crate) fn response(record: &Value, format: Format) -> Record {
    let mut meta = Meta::new(format);
    meta.model = string(record, "modelVersion");
    meta.tokens = tokens(record.get("usageMetadata"));
    meta.ts = string(record, "createTime");
    let id = string(record, "responseId");
    let first = record.get("candidates").and_then(|c| c.get(0));
    if let Some(c) = first {
        meta.stop_detail = string(c, "finishReason");
        meta.stop = stop(meta.stop_detail.as_deref());
    }
    let mut text = String::new();
    if let Some(c) = first {
        append_text(c, &mut text);
    }
    if text.is_empty() {
        let mut why = NoText { blocked: block_reason(record), ..NoText::default() };
        if let Some(c) = first {
            tool_calls(c, &mut why.tools);
        }
        return why.into_record(id, meta);
    }
    Record::Reply { id, text, meta }
}

/// A Developer API batch output line: `{"key", "response"}`, or `{"key", "error"}` (the
/// error form as batch clients read it).
pub(crate) fn batch_line(record: &Value) -> Record {
    let id = string(record, "key");
    if let Some(error) = record.get("error").filter(|e| !e.is_null()) {
        let message = string(error, "message").unwrap_or_else(|| error.to_string());
        return Record::event(id, EventKind::Failed, clip(&message, 300), Meta::new(Format::GeminiBatch));
    }
    match record.get("response").filter(|r| r.is_object()) {
        Some(r) => response(r, Format::GeminiBatch).rewrap(id, Format::GeminiBatch),
        None => Record::event(id, EventKind::Failed, "no response".to_owned(), Meta::new(Format::GeminiBatch)),
    }
}

/// A Vertex AI batch prediction line: `status` is empty on success and the error otherwise.
pub(crate) fn vertex_line(record: &Value) -> Record {
    let status = string(record, "status").unwrap_or_default();
    let failed = |message: String| {
        let mut meta = Meta::new(Format::VertexBatch);
        meta.ts = string(record, "processed_time");
        Record::event(None, EventKind::Failed, clip(&message, 300), meta)
    };
    if !status.is_empty() {
        return failed(status);
    }
    let Some(r) = record.get("response").filter(|r| r.is_object()) else { return failed("no response".to_owned()) };
    let mut inner = response(r, Format::VertexBatch);
    if let Record::Reply { meta, .. } | Record::Event { meta, .. } = &mut inner {
        meta.ts = meta.ts.take().or_else(|| string(record, "processed_time"));
    }
    inner
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn thought_parts_are_not_the_reply_and_a_signed_part_is() {
        let r = json!({"candidates": [{"content": {"role": "model", "parts": [
            {"text": "plan", "thought": true}, {"text": "{\"a\":", "thoughtSignature": "c2ln"}, {"text": " 1}"}]},
            "finishReason": "MAX_TOKENS"}], "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 4,
            "thoughtsTokenCount": 5}, "modelVersion": "gemini-2.5-flash", "responseId": "r1"});
        let Record::Reply { id, text, meta } = response(&r, Format::Gemini) else { panic!("a reply") };
        assert_eq!((id.as_deref(), text.as_str(), meta.stop), (Some("r1"), "{\"a\": 1}", StopReason::Truncated));
        assert_eq!((meta.tokens.input, meta.tokens.output), (Some(3), Some(4)));
    }

    #[test]
    fn a_blocked_prompt_and_a_function_call_are_calls_without_a_reply() {
        let blocked = json!({"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 3}});
        let Record::Event { kind, message, .. } = response(&blocked, Format::Gemini) else { panic!("an event") };
        assert_eq!((kind, message.as_str()), (EventKind::Blocked, "blocked: SAFETY"));
        let call = json!({"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "args": {}}}]},
            "finishReason": "STOP"}]});
        let Record::Event { kind, .. } = response(&call, Format::Gemini) else { panic!("an event") };
        assert_eq!(kind, EventKind::ToolCall);
    }
}
