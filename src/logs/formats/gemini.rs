//! Gemini: `generateContent` responses (the Developer API's and Vertex AI's are one shape),
//! the Developer API's batch output lines and Vertex AI's batch prediction lines.
//!
//! The reply is what the SDK's `response.text` is: the `text` of every part of
//! `candidates[0].content.parts` that is not a thought (`thought: true`), joined with
//! nothing between. A part with a `thoughtSignature` is still an answer part. A prompt the
//! filter blocked has no candidates and says why in `promptFeedback.blockReason`.

use serde_json::{Map, Value, json};

use super::shape::{Claim, Shape};
use crate::logs::formats::fields::{has, is_array, is_object, name, string, uint};
use crate::logs::formats::record::{NoText, Record};
use crate::logs::formats::stream::{Assemble, At, Out, cut_short, non_empty};
use crate::logs::model::reply::{EventKind, Format, Meta, StopReason, Tokens};
use crate::visible::clip;

/// A batch output line (`key` and `response` or `error`; before a response, which a batch
/// line holds), a Vertex AI batch prediction line, a `GenerateContentResponse`.
pub(crate) fn claim(o: &Map<String, Value>) -> Option<Claim> {
    if o.contains_key("key") && (o.contains_key("response") || o.contains_key("error")) {
        return Some(Claim::certain(Shape::GeminiBatch));
    }
    if o.contains_key("request") && (o.contains_key("processed_time") || o.get("status").is_some_and(Value::is_string))
    {
        return Some(Claim::certain(Shape::VertexBatch));
    }
    if is_array(o, "candidates")
        || is_object(o, "promptFeedback")
        || (has(o, "modelVersion") && has(o, "usageMetadata"))
    {
        return Some(Claim::certain(Shape::Gemini));
    }
    None
}

/// A `streamGenerateContent` chunk: a response fragment.
pub(crate) fn claim_event(_kind: &str, payload: &Value) -> Option<Format> {
    (payload.get("candidates").is_some() || payload.get("usageMetadata").is_some()).then_some(Format::GeminiStream)
}

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
    meta.model = name(record, "modelVersion");
    meta.tokens = tokens(record.get("usageMetadata"));
    meta.ts = name(record, "createTime");
    let id = string(record, "responseId");
    let first = record.get("candidates").and_then(|c| c.get(0));
    if let Some(c) = first {
        meta.stop_detail = name(c, "finishReason");
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
        meta.ts = name(record, "processed_time");
        Record::event(None, EventKind::Failed, clip(&message, 300), meta)
    };
    if !status.is_empty() {
        return failed(status);
    }
    let Some(r) = record.get("response").filter(|r| r.is_object()) else { return failed("no response".to_owned()) };
    let mut inner = response(r, Format::VertexBatch);
    if let Record::Reply { meta, .. } | Record::Event { meta, .. } = &mut inner {
        meta.ts = meta.ts.take().or_else(|| name(record, "processed_time"));
    }
    inner
}

/// Gemini's `streamGenerateContent` without `alt=sse` answers with a JSON array of chunks,
/// which a capture saves as a document. Consecutive Gemini responses in an array are put
/// together until one carries a finish reason (or a blocked prompt, or another response's
/// id): the chunks of one stream are one reply, and an array of whole responses, each
/// finished, stays a reply each.
#[derive(Default)]
pub(crate) struct GeminiArray {
    cur: Option<(usize, Chunks, Option<Value>)>,
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
            || block_reason(&v).is_some();
        match &mut self.cur {
            Some((_, g, first)) => {
                *first = None;
                g.add(&v);
            }
            None => {
                let mut g = Chunks::new(At { line: 0, offset: 0 });
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
                Some(whole) => response(&whole, Format::Gemini),
                None => g.finish(),
            };
            out(index, record);
        }
    }
}

/// `streamGenerateContent` chunks saved as server-sent events, put back together.
#[derive(Default)]
pub(crate) struct Stream {
    cur: Option<Chunks>,
}

impl Assemble for Stream {
    fn format(&self) -> Format {
        Format::GeminiStream
    }

    fn feed(&mut self, _kind: &str, v: Value, at: At, out: &mut dyn FnMut(Out)) {
        let id = non_empty(string(&v, "responseId"));
        if self.cur.as_ref().is_some_and(|c| id.is_some() && c.id.is_some() && id != c.id) {
            self.finish(out);
        }
        self.cur.get_or_insert_with(|| Chunks::new(at)).add(&v);
    }

    fn finish(&mut self, out: &mut dyn FnMut(Out)) {
        if let Some(c) = self.cur.take() {
            let at = c.at;
            out(at.out(Ok(c.finish())));
        }
    }
}

/// `streamGenerateContent` chunks: each a `GenerateContentResponse` whose parts add to
/// candidate 0's text; the finish reason from the chunk that has one; the last usage.
struct Chunks {
    at: At,
    id: Option<String>,
    model: Option<String>,
    text: String,
    parts: Vec<Value>,
    finish: Option<String>,
    usage: Option<Value>,
    feedback: Option<Value>,
}

impl Chunks {
    fn new(at: At) -> Chunks {
        Chunks {
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
            append_text(c, &mut self.text);
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
        let whole = json!({
            "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": self.finish}],
            "usageMetadata": self.usage, "modelVersion": self.model, "responseId": self.id,
            "promptFeedback": self.feedback,
        });
        let record = response(&whole, Format::GeminiStream);
        if ended { record } else { cut_short(record) }
    }
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
