//! The record formats: which shape a JSON record has, and how each shape gives up its
//! reply text and metadata.
//!
//! Detection is by content. A record is recognized by the fields its API always writes
//! (an Anthropic message's `type: "message"` and `content` blocks, a chat completion's
//! `choices`, a Batch line's `custom_id` and `response`), so a file named anything is read
//! as what it holds. The order of the tests matters only where two shapes share a field,
//! and each such case is noted where it is decided.

use serde_json::{Map, Value};

use super::diagnostic::Problem;
use super::reply::{EventKind, Format, Meta, StopReason, Tokens};

/// The shape of one JSON record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A pipeline run-log event: `{"ts", "type", …}`.
    RunLogEvent,
    /// A bench ledger line: `{id, session_id, outcome, round_trip_ms, at}`.
    Ledger,
    /// A bench run's `meta.json`, `status.json` or `diagnostics.json`: context, no reply.
    BenchContext,
    Anthropic,
    BedrockConverse,
    OpenAiChat,
    OpenAiBatch,
    OpenAiResponses,
    Gemini,
    GeminiBatch,
    VertexBatch,
    Cohere,
    Ollama,
    /// A chunk of an Ollama stream that goes on (`done: false`).
    OllamaChunk,
    InspectLog,
    Otel,
    Promptfoo,
    Records,
    /// An API's error response (`{"error": …}`): a call that failed.
    ApiError,
    Unknown,
}

impl Shape {
    pub fn format(self) -> Option<Format> {
        Some(match self {
            Shape::RunLogEvent => Format::RunLog,
            Shape::Anthropic => Format::Anthropic,
            Shape::BedrockConverse => Format::BedrockConverse,
            Shape::OpenAiChat => Format::OpenAiChat,
            Shape::OpenAiBatch => Format::OpenAiBatch,
            Shape::OpenAiResponses => Format::OpenAiResponses,
            Shape::Gemini => Format::Gemini,
            Shape::GeminiBatch => Format::GeminiBatch,
            Shape::VertexBatch => Format::VertexBatch,
            Shape::Cohere => Format::Cohere,
            Shape::Ollama => Format::Ollama,
            Shape::OllamaChunk => Format::OllamaStream,
            Shape::InspectLog => Format::Inspect,
            Shape::Otel => Format::Otel,
            Shape::Promptfoo => Format::Promptfoo,
            Shape::Records => Format::Records,
            Shape::Ledger | Shape::BenchContext | Shape::ApiError | Shape::Unknown => return None,
        })
    }
}

fn has(o: &Map<String, Value>, key: &str) -> bool {
    o.get(key).is_some_and(|v| !v.is_null())
}

fn is_str(o: &Map<String, Value>, key: &str, want: &str) -> bool {
    o.get(key).and_then(Value::as_str) == Some(want)
}

/// Which shape `record` has.
pub(crate) fn classify(record: &Value) -> Shape {
    let Some(o) = record.as_object() else { return Shape::Unknown };
    let content_blocks = o.get("content").is_some_and(Value::is_array);
    // Before the run-log test: an Anthropic message has a `type` too ("message").
    if content_blocks && (is_str(o, "type", "message") || is_str(o, "role", "assistant")) {
        return Shape::Anthropic;
    }
    if o.contains_key("custom_id") && (o.contains_key("response") || o.contains_key("error")) {
        return Shape::OpenAiBatch;
    }
    if o.get("choices").is_some_and(Value::is_array) {
        return Shape::OpenAiChat;
    }
    if is_str(o, "object", "response") || (o.get("output").is_some_and(Value::is_array) && has(o, "status")) {
        return Shape::OpenAiResponses;
    }
    if o.get("output").and_then(|v| v.get("message")).is_some() && (has(o, "stopReason") || has(o, "usage")) {
        return Shape::BedrockConverse;
    }
    // Before Gemini: a batch line holds a Gemini response under `response`.
    if o.contains_key("key") && (o.contains_key("response") || o.contains_key("error")) {
        return Shape::GeminiBatch;
    }
    if o.contains_key("request") && (o.contains_key("processed_time") || o.get("status").is_some_and(Value::is_string))
    {
        return Shape::VertexBatch;
    }
    if o.get("candidates").is_some_and(Value::is_array)
        || o.get("promptFeedback").is_some_and(Value::is_object)
        || (has(o, "modelVersion") && has(o, "usageMetadata"))
    {
        return Shape::Gemini;
    }
    // Ollama's `message` is an object too; its `done` and `created_at` tell it apart.
    if o.get("done").is_some_and(Value::is_boolean) && has(o, "created_at") && has(o, "model") {
        return if o.get("done") == Some(&Value::Bool(false)) { Shape::OllamaChunk } else { Shape::Ollama };
    }
    // Cohere v2: a top-level `message` (its `content`, or only `tool_calls`) and a finish.
    if o.get("message").is_some_and(Value::is_object) && has(o, "finish_reason") && has(o, "id") {
        return Shape::Cohere;
    }
    if o.get("text").is_some_and(Value::is_string)
        && (o.contains_key("generation_id") || o.contains_key("response_id"))
        && (o.contains_key("finish_reason") || o.contains_key("meta"))
    {
        return Shape::Cohere;
    }
    if ["resourceSpans", "resourceLogs", "resource_spans", "resource_logs"]
        .iter()
        .any(|k| o.get(*k).is_some_and(Value::is_array))
    {
        return Shape::Otel;
    }
    if o.get("eval").is_some_and(Value::is_object) && (o.contains_key("samples") || o.contains_key("status")) {
        return Shape::InspectLog;
    }
    if has(o, "evalId") && o.get("results").is_some_and(Value::is_object)
        || o.get("results").and_then(|r| r.get("results")).is_some_and(Value::is_array)
    {
        return Shape::Promptfoo;
    }
    if o.get("text").is_some_and(Value::is_string) && o.keys().all(|k| matches!(k.as_str(), "id" | "text" | "fields")) {
        return Shape::Records;
    }
    if o.contains_key("error")
        && o.keys().all(|k| matches!(k.as_str(), "error" | "type" | "request_id" | "status" | "code"))
    {
        return Shape::ApiError;
    }
    if o.get("type").is_some_and(Value::is_string) && o.get("ts").is_some_and(Value::is_string) {
        return Shape::RunLogEvent;
    }
    if has(o, "id") && o.contains_key("outcome") && (o.contains_key("session_id") || o.contains_key("at")) {
        // `meta.json` carries the same three fields and more; its `sha256` tells them apart.
        return if o.contains_key("sha256") || o.contains_key("polls") { Shape::BenchContext } else { Shape::Ledger };
    }
    if (o.contains_key("sha256") && o.contains_key("outcome"))
        || (has(o, "session_id") && (o.contains_key("model_calls") || o.contains_key("in_flight")))
        || (has(o, "status") && o.contains_key("phase") && (o.contains_key("session_id") || o.contains_key("id")))
    {
        return Shape::BenchContext;
    }
    Shape::Unknown
}

/// A few words on a record nothing recognizes: its kind, or its first keys.
pub(crate) fn describe(record: &Value) -> String {
    match record {
        Value::Object(o) if o.is_empty() => "an empty object".to_owned(),
        Value::Object(o) => {
            let keys: Vec<&str> = o.keys().take(6).map(String::as_str).collect();
            let more = if o.len() > 6 { ", …" } else { "" };
            format!("keys {}{more}", keys.join(", "))
        }
        Value::Array(a) => format!("an array of {}", a.len()),
        Value::String(_) => "a string".to_owned(),
        Value::Number(_) => "a number".to_owned(),
        Value::Bool(_) => "a boolean".to_owned(),
        Value::Null => "null".to_owned(),
    }
}

/// What one record gave.
#[derive(Debug)]
pub(crate) enum Record {
    Reply {
        id: Option<String>,
        text: String,
        meta: Meta,
    },
    Event {
        id: Option<String>,
        kind: EventKind,
        message: String,
        meta: Meta,
    },
    /// Context only (a ledger line, a run's meta.json): no reply, nothing wrong.
    Context,
    Problem(Problem),
    /// A record that holds several calls (an OTLP export, an eval log): each in turn.
    Many(Vec<Record>),
    /// A reply of a listing, its text measured, not held (see `skim`).
    Listed {
        id: Option<String>,
        text: super::skim::Measured,
        meta: Meta,
    },
}

impl Record {
    /// A call that left no reply: `kind`, and what the record says about it.
    pub(crate) fn event(id: Option<String>, kind: EventKind, message: String, meta: Meta) -> Record {
        Record::Event { id, kind, message, meta }
    }

    /// The same record under another id and format (a batch line's, around its response).
    pub(crate) fn rewrap(self, id: Option<String>, format: Format) -> Record {
        match self {
            Record::Reply { id: own, text, mut meta } => {
                meta.format = format;
                Record::Reply { id: id.or(own), text, meta }
            }
            Record::Event { id: own, kind, message, mut meta } => {
                meta.format = format;
                Record::Event { id: id.or(own), kind, message, meta }
            }
            other => other,
        }
    }
}

/// What a response said instead of text, to say why it left no reply.
#[derive(Debug, Default)]
pub(crate) struct NoText {
    /// The names of the tools it called.
    pub tools: Vec<String>,
    pub refusal: Option<String>,
    /// A filter's verdict: a blocked prompt's reason, a content filter's finish.
    pub blocked: Option<String>,
}

impl NoText {
    /// The call without a reply that a response with no text is, by what it holds and how
    /// it stopped. Tool calls first: a model that called a tool and then hit its ceiling
    /// still called the tool.
    pub fn into_record(self, id: Option<String>, meta: Meta) -> Record {
        let stop = meta.stop_detail.clone().unwrap_or_default();
        let word = stop.to_ascii_lowercase();
        let (kind, message) = if !self.tools.is_empty() {
            (EventKind::ToolCall, format!("tool call: {}", clip(&self.tools.join(", "), 120)))
        } else if let Some(r) = self.refusal {
            (EventKind::Refusal, format!("refusal: {}", clip(&r, 160)))
        } else if word.contains("refusal") {
            (EventKind::Refusal, format!("refused ({stop})"))
        } else if let Some(b) = self.blocked {
            (EventKind::Blocked, format!("blocked: {b}"))
        } else if meta.stop == StopReason::Truncated {
            (EventKind::Truncated, format!("cut off before any text ({stop})"))
        } else if is_filter_word(&word) {
            (EventKind::Blocked, format!("blocked ({stop})"))
        } else if stop.is_empty() {
            (EventKind::Empty, "no text".to_owned())
        } else {
            (EventKind::Empty, format!("no text ({stop})"))
        };
        Record::event(id, kind, message, meta)
    }
}

/// Stop reasons that mean a filter stopped the output.
fn is_filter_word(word: &str) -> bool {
    ["content_filter", "safety", "blocklist", "prohibited", "spii", "recitation", "guardrail", "content_filtered"]
        .iter()
        .any(|w| word.contains(w))
}

pub(crate) fn take_string(o: &mut Map<String, Value>, key: &str) -> Option<String> {
    match o.get_mut(key) {
        Some(Value::String(s)) => Some(std::mem::take(s)),
        _ => None,
    }
}

pub(crate) fn string(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

pub(crate) fn uint(v: &Value, key: &str) -> Option<u64> {
    v.get(key).and_then(Value::as_u64)
}

fn anthropic_stop(reason: Option<&str>) -> StopReason {
    match reason {
        Some("end_turn" | "stop_sequence" | "stop") => StopReason::Finished,
        // A context-window stop cuts the output exactly as the ceiling does.
        Some("max_tokens" | "model_context_window_exceeded") => StopReason::Truncated,
        Some(_) => StopReason::Other,
        None => StopReason::Unknown,
    }
}

fn anthropic_tokens(usage: Option<&Value>) -> Tokens {
    let Some(u) = usage else { return Tokens::default() };
    Tokens {
        input: uint(u, "input_tokens"),
        output: uint(u, "output_tokens"),
        cache_read: uint(u, "cache_read_input_tokens"),
        cache_write: uint(u, "cache_creation_input_tokens"),
    }
}

/// An Anthropic Messages response (or a Bedrock invoke body): the `text` blocks, joined.
pub(crate) fn anthropic(mut record: Value, format: Format) -> Record {
    let mut meta = Meta::new(format);
    meta.model = string(&record, "model");
    meta.stop_detail = string(&record, "stop_reason");
    meta.stop = anthropic_stop(meta.stop_detail.as_deref());
    meta.tokens = anthropic_tokens(record.get("usage"));
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

/// What `name` says of each block of `content` whose `type` is `kind`.
fn block_names(content: Option<&Value>, kind: &str, name: impl Fn(&Value) -> Option<String>) -> Vec<String> {
    let Some(Value::Array(blocks)) = content else { return Vec::new() };
    blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str).is_some_and(|t| t == kind))
        .map(|b| name(b).unwrap_or_else(|| kind.to_owned()))
        .collect()
}

/// The `text` of every block in `content` whose `type` is one of `types` (a block with no
/// `type` but a `text` counts too, as Bedrock Converse writes them), concatenated.
fn join_text(content: Option<&mut Value>, types: &[&str], field: &str) -> (String, usize) {
    let mut text = String::new();
    let mut blocks = 0;
    if let Some(Value::Array(items)) = content {
        for block in items.iter_mut() {
            let Some(o) = block.as_object_mut() else { continue };
            let typed = match o.get("type").and_then(Value::as_str) {
                Some(t) => types.contains(&t),
                None => true,
            };
            if !typed {
                continue;
            }
            if let Some(s) = take_string(o, field) {
                if blocks == 0 {
                    text = s;
                } else {
                    text.push_str(&s);
                }
                blocks += 1;
            }
        }
    }
    (text, blocks)
}

/// A Bedrock Converse response.
pub(crate) fn bedrock_converse(mut record: Value) -> Record {
    let mut meta = Meta::new(Format::BedrockConverse);
    meta.stop_detail = string(&record, "stopReason");
    meta.stop = anthropic_stop(meta.stop_detail.as_deref());
    if let Some(u) = record.get("usage") {
        meta.tokens = Tokens {
            input: uint(u, "inputTokens"),
            output: uint(u, "outputTokens"),
            cache_read: uint(u, "cacheReadInputTokens"),
            cache_write: uint(u, "cacheWriteInputTokens"),
        };
    }
    meta.duration_ms = record.get("metrics").and_then(|m| uint(m, "latencyMs"));
    let content = record.get_mut("output").and_then(|o| o.get_mut("message")).and_then(|m| m.get_mut("content"));
    let (text, blocks) = join_text(content, &["text"], "text");
    if blocks == 0 || text.is_empty() {
        let content = record.get("output").and_then(|o| o.get("message")).and_then(|m| m.get("content"));
        let tools = match content {
            Some(Value::Array(blocks)) => blocks
                .iter()
                .filter_map(|b| b.get("toolUse"))
                .map(|t| string(t, "name").unwrap_or_else(|| "toolUse".to_owned()))
                .collect(),
            _ => Vec::new(),
        };
        return NoText { tools, ..NoText::default() }.into_record(None, meta);
    }
    Record::Reply { id: None, text, meta }
}

fn openai_tokens(usage: Option<&Value>) -> Tokens {
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
pub(crate) fn openai_chat(mut record: Value, format: Format) -> Record {
    let mut meta = Meta::new(format);
    meta.model = string(&record, "model");
    meta.tokens = openai_tokens(record.get("usage"));
    let id = string(&record, "id");
    let Some(choice) = record.get_mut("choices").and_then(|c| c.get_mut(0)) else {
        return NoText::default().into_record(id, meta);
    };
    meta.stop_detail = string(choice, "finish_reason");
    meta.stop = openai_stop(meta.stop_detail.as_deref());
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

pub(crate) fn openai_stop(reason: Option<&str>) -> StopReason {
    match reason {
        Some("stop" | "eos" | "end_turn") => StopReason::Finished,
        Some("length" | "max_tokens") => StopReason::Truncated,
        Some(_) => StopReason::Other,
        None => StopReason::Unknown,
    }
}

/// An OpenAI Responses object: the `output_text` parts of its `message` outputs.
pub(crate) fn openai_responses(mut record: Value, format: Format) -> Record {
    let mut meta = Meta::new(format);
    meta.model = string(&record, "model");
    meta.tokens = openai_tokens(record.get("usage"));
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
        (Some(s), Some(r)) => Some(format!("{s}: {r}")),
        (s, r) => s.clone().or(r),
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
pub(crate) fn openai_batch(mut record: Value) -> Record {
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
        return failed(format!("HTTP {}: {}", status.unwrap_or(0), clip(&message, 200)));
    }
    let inner = match classify(&body) {
        Shape::OpenAiResponses => openai_responses(body, Format::OpenAiBatch),
        _ => openai_chat(body, Format::OpenAiBatch),
    };
    inner.rewrap(id, Format::OpenAiBatch)
}

/// bracewalk's own record, `{"id", "text", "fields"?}`: the text as given, the id as given
/// (a number or any other JSON as it is written).
pub(crate) fn records(mut record: Value) -> Record {
    let id = match record.get("id") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => Some(other.to_string()),
    };
    let text = record.as_object_mut().and_then(|o| take_string(o, "text"));
    match text {
        Some(text) => Record::Reply { id, text, meta: Meta::new(Format::Records) },
        None => Record::Problem(Problem::BadRecord("a record whose \"text\" is not a string".to_owned())),
    }
}

/// An API's error response: `{"error": {"message"}}` (OpenAI, Gemini), `{"type": "error",
/// "error": {…}}` (Anthropic), `{"error": "…"}` (Ollama). The call failed.
pub(crate) fn api_error(record: &Value, format: Format) -> Record {
    let error = record.get("error");
    let message = match error {
        Some(Value::String(s)) => s.clone(),
        Some(e) => {
            let what = string(e, "message").unwrap_or_else(|| e.to_string());
            match string(e, "type").or_else(|| string(e, "status")) {
                Some(kind) => format!("{kind}: {what}"),
                None => what,
            }
        }
        None => "an error".to_owned(),
    };
    Record::event(None, EventKind::Failed, clip(&message, 300), Meta::new(format))
}

/// A record read through the user's pointers.
pub(crate) fn custom(record: &Value, text_path: &str, meta_paths: &[(String, String)]) -> Record {
    let text = match record.pointer(text_path) {
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            return Record::Problem(Problem::BadRecord(format!(
                "--text-path {text_path} is {}, not a string",
                describe(other)
            )));
        }
        None => return Record::Problem(Problem::BadRecord(format!("nothing at --text-path {text_path}"))),
    };
    let mut meta = Meta::new(Format::Json);
    let mut id = None;
    for (name, pointer) in meta_paths {
        let Some(v) = record.pointer(pointer).filter(|v| !v.is_null()) else { continue };
        let s = match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let n = v.as_u64().or_else(|| s.parse().ok());
        match name.as_str() {
            "id" => id = Some(s),
            "agent" => meta.agent = Some(s.strip_suffix(".md").unwrap_or(&s).to_owned()),
            "phase" => meta.phase = Some(s),
            "page" => meta.page = n.and_then(|n| u32::try_from(n).ok()),
            "image" => {
                meta.page = meta.page.or_else(|| page_of_image(&s));
                meta.image = Some(s);
            }
            "round" => meta.round = Some(s),
            "document" => meta.document = Some(s),
            "iteration" => meta.iteration = n.and_then(|n| u32::try_from(n).ok()),
            "model" => meta.model = Some(s),
            "provider" => meta.provider = Some(s),
            "stop_reason" => {
                meta.stop = stop_from_word(&s);
                meta.stop_detail = Some(s);
            }
            "input_tokens" => meta.tokens.input = n,
            "output_tokens" => meta.tokens.output = n,
            "ts" => meta.ts = Some(s),
            "document_outcome" => meta.document_outcome = Some(s),
            _ => meta.extra.push((name.clone(), s)),
        }
    }
    Record::Reply { id, text, meta }
}

/// A stop reason in any provider's words.
pub(crate) fn stop_from_word(word: &str) -> StopReason {
    match word {
        "end_turn" | "stop_sequence" | "stop" | "completed" | "finished" | "STOP" | "COMPLETE" | "STOP_SEQUENCE" => {
            StopReason::Finished
        }
        "max_tokens" | "length" | "incomplete" | "truncated" | "max_output_tokens" | "MAX_TOKENS" => {
            StopReason::Truncated
        }
        "" => StopReason::Unknown,
        _ => StopReason::Other,
    }
}

/// The page number in a page image's name: `annual-report-p17.png` → 17.
pub(crate) fn page_of_image(image: &str) -> Option<u32> {
    let name = image.rsplit(['/', '\\']).next().unwrap_or(image);
    let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
    let (_, digits) = stem.rsplit_once("-p")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

pub(crate) fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn page_numbers_come_from_the_image_name() {
        assert_eq!(page_of_image("annual-report-2023-p17.png"), Some(17));
        assert_eq!(page_of_image("pages/x-p003.png"), Some(3));
        assert_eq!(page_of_image("cover.png"), None);
        assert_eq!(page_of_image("x-pages.png"), None);
    }

    #[test]
    fn each_api_is_recognized_by_its_own_fields() {
        let cases = [
            (json!({"type": "message", "role": "assistant", "content": []}), Shape::Anthropic),
            (json!({"custom_id": "a", "response": {"body": {}}}), Shape::OpenAiBatch),
            (json!({"id": "c", "choices": []}), Shape::OpenAiChat),
            (json!({"object": "response", "output": []}), Shape::OpenAiResponses),
            (json!({"output": {"message": {}}, "stopReason": "end_turn"}), Shape::BedrockConverse),
            (json!({"ts": "2025", "type": "agent_call"}), Shape::RunLogEvent),
            (json!({"id": "d", "session_id": null, "outcome": "failed", "at": "x"}), Shape::Ledger),
            (json!({"id": "d", "sha256": "x", "outcome": "failed", "polls": 3}), Shape::BenchContext),
            (json!({"html": "<p>", "log": "ok"}), Shape::Unknown),
        ];
        for (record, want) in cases {
            assert_eq!(classify(&record), want, "{record}");
        }
    }

    #[test]
    fn anthropic_text_blocks_are_joined_and_max_tokens_is_truncation() {
        let r = json!({"id": "msg_1", "type": "message", "model": "m", "stop_reason": "max_tokens",
            "content": [{"type": "thinking", "thinking": "no"}, {"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            "usage": {"input_tokens": 5, "output_tokens": 7, "cache_read_input_tokens": 2}});
        let Record::Reply { id, text, meta } = anthropic(r, Format::Anthropic) else { panic!("a reply") };
        assert_eq!((id.as_deref(), text.as_str(), meta.stop), (Some("msg_1"), "ab", StopReason::Truncated));
        assert_eq!(meta.tokens, Tokens { input: Some(5), output: Some(7), cache_read: Some(2), cache_write: None });
    }
}
