//! OpenTelemetry GenAI spans in OTLP/JSON, as the collector's file exporter writes them (one
//! export request a line) or as one document.
//!
//! A model call's output is found where each generation of the conventions put it: the
//! `gen_ai.output.messages` attribute (a JSON string or structured: one message per choice,
//! its `text` parts the reply, `reasoning` parts not), the older `gen_ai.completion`
//! attribute or `gen_ai.content.completion` span event, OpenLLMetry's flattened
//! `gen_ai.completion.0.content`, and `gen_ai.choice` events (on the span, or as log records
//! of the same export). Spans that are not GenAI, or that recorded no output (content capture
//! is off by default), give nothing: the trace around the calls is not a call.

use serde_json::{Map, Value};

use super::shape::{Claim, Shape};
use crate::logs::Name;
use crate::logs::formats::fields::{iso, stop_from_word, string};
use crate::logs::formats::record::{NoText, Record};
use crate::logs::model::reply::{Format, Meta, StopReason, Tokens};

/// An export request: `resourceSpans` or `resourceLogs` (or their snake-case spelling).
pub(crate) fn claim(o: &Map<String, Value>) -> Option<Claim> {
    ["resourceSpans", "resourceLogs", "resource_spans", "resource_logs"]
        .iter()
        .any(|k| o.get(*k).is_some_and(Value::is_array))
        .then(|| Claim::certain(Shape::Otel))
}

/// An OTLP `AnyValue` as plain JSON. Its depth is at most serde_json's nesting limit, so
/// the recursion is bounded whatever the input.
fn any_value(v: &Value) -> Value {
    let Some(o) = v.as_object() else { return Value::Null };
    let get = |camel: &str, snake: &str| o.get(camel).or_else(|| o.get(snake));
    if let Some(s) = get("stringValue", "string_value") {
        return s.clone();
    }
    if let Some(i) = get("intValue", "int_value") {
        return match i {
            Value::String(s) => s.parse::<i64>().map(Value::from).unwrap_or(Value::Null),
            other => other.clone(),
        };
    }
    if let Some(x) = get("doubleValue", "double_value").or_else(|| get("boolValue", "bool_value")) {
        return x.clone();
    }
    if let Some(a) = get("arrayValue", "array_value") {
        let values = a.get("values").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        return Value::Array(values.iter().map(any_value).collect());
    }
    if let Some(kv) = get("kvlistValue", "kvlist_value") {
        return Value::Object(attributes(kv.get("values")));
    }
    get("bytesValue", "bytes_value").cloned().unwrap_or(Value::Null)
}

/// A `KeyValue` list as a map.
fn attributes(list: Option<&Value>) -> Map<String, Value> {
    let mut map = Map::new();
    if let Some(Value::Array(items)) = list {
        for kv in items {
            if let (Some(k), Some(v)) = (kv.get("key").and_then(Value::as_str), kv.get("value")) {
                map.insert(k.to_owned(), any_value(v));
            }
        }
    }
    map
}

fn list<'a>(v: &'a Value, camel: &str, snake: &str) -> &'a [Value] {
    v.get(camel).or_else(|| v.get(snake)).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default()
}

/// A JSON value that may have been recorded as a JSON string.
fn decoded(v: &Value) -> Option<Value> {
    match v {
        Value::String(s) => serde_json::from_str(s).ok(),
        Value::Null => None,
        other => Some(other.clone()),
    }
}

/// What a span (or event) says its call wrote.
#[derive(Default)]
struct Output {
    text: String,
    any_text: bool,
    finish: Option<String>,
    tools: Vec<String>,
}

impl Output {
    /// One message in any of the shapes: `parts[]` (current), `content` (a string, or
    /// OpenAI-style parts), a `message` inside a `gen_ai.choice` body.
    fn message(m: &Value) -> Output {
        let mut out = Output { finish: string(m, "finish_reason"), ..Output::default() };
        let m = m.get("message").filter(|x| x.is_object()).unwrap_or(m);
        if let Some(Value::Array(parts)) = m.get("parts") {
            for p in parts {
                match p.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        if let Some(t) = p.get("content").and_then(Value::as_str) {
                            out.text.push_str(t);
                            out.any_text = true;
                        }
                    }
                    Some("tool_call") => out.tools.push(string(p, "name").unwrap_or_else(|| "tool_call".to_owned())),
                    _ => {}
                }
            }
        }
        match m.get("content") {
            Some(Value::String(s)) => {
                out.text.push_str(s);
                out.any_text = true;
            }
            Some(Value::Array(parts)) => {
                for t in parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)) {
                    out.text.push_str(t);
                    out.any_text = true;
                }
            }
            _ => {}
        }
        if let Some(Value::Array(calls)) = m.get("tool_calls") {
            for c in calls {
                let name = c.get("function").and_then(|f| string(f, "name")).or_else(|| string(c, "name"));
                out.tools.push(name.unwrap_or_else(|| "tool".to_owned()));
            }
        }
        out
    }

    /// The first of a list of messages (one per choice: the first is the reply).
    fn first_of(messages: &Value) -> Option<Output> {
        match messages {
            Value::Array(ms) => ms.first().map(Output::message),
            Value::Object(_) => Some(Output::message(messages)),
            _ => None,
        }
    }
}

/// The output an attribute map records, in whichever convention.
fn output_of(attrs: &Map<String, Value>) -> Option<Output> {
    if let Some(out) = attrs.get("gen_ai.output.messages").and_then(decoded).and_then(|m| Output::first_of(&m)) {
        return Some(out);
    }
    if let Some(out) = attrs.get("gen_ai.completion").and_then(decoded).and_then(|m| Output::first_of(&m)) {
        return Some(out);
    }
    // OpenLLMetry: `gen_ai.completion.0.content`, `.finish_reason`, `.tool_calls.N.name`.
    let flat = |k: &str| attrs.get(&format!("gen_ai.completion.0.{k}"));
    let content = flat("content");
    let tools: Vec<String> = (0..)
        .map_while(|i| attrs.get(&format!("gen_ai.completion.0.tool_calls.{i}.name")).and_then(Value::as_str))
        .map(str::to_owned)
        .collect();
    if content.is_some() || !tools.is_empty() {
        let text = content.and_then(Value::as_str).unwrap_or_default().to_owned();
        let finish = flat("finish_reason").and_then(Value::as_str).map(str::to_owned);
        return Some(Output { any_text: content.is_some(), text, finish, tools });
    }
    None
}

fn is_genai(attrs: &Map<String, Value>) -> bool {
    attrs.keys().any(|k| k.starts_with("gen_ai.") || k.starts_with("llm."))
}

fn nanos(v: Option<&Value>) -> Option<u64> {
    match v? {
        Value::String(s) => s.parse().ok(),
        n => n.as_u64(),
    }
}

fn meta_of(attrs: &Map<String, Value>) -> Meta {
    let mut meta = Meta::new(Format::Otel);
    let s = |k: &str| attrs.get(k).and_then(Value::as_str).map(Name::from);
    let n = |k: &str| attrs.get(k).and_then(|v| v.as_u64().or_else(|| v.as_str().and_then(|s| s.parse().ok())));
    meta.model = s("gen_ai.response.model").or_else(|| s("gen_ai.request.model"));
    meta.provider = s("gen_ai.provider.name").or_else(|| s("gen_ai.system"));
    meta.tokens = Tokens {
        input: n("gen_ai.usage.input_tokens").or_else(|| n("gen_ai.usage.prompt_tokens")),
        output: n("gen_ai.usage.output_tokens").or_else(|| n("gen_ai.usage.completion_tokens")),
        cache_read: n("gen_ai.usage.cache_read.input_tokens").or_else(|| n("gen_ai.usage.cache_read_input_tokens")),
        cache_write: n("gen_ai.usage.cache_creation.input_tokens")
            .or_else(|| n("gen_ai.usage.cache_creation_input_tokens")),
    };
    if let Some(Value::Array(reasons)) = attrs.get("gen_ai.response.finish_reasons") {
        meta.stop_detail = reasons.first().and_then(Value::as_str).map(Name::from);
    }
    meta
}

fn record(out: Output, mut meta: Meta, id: Option<String>) -> Record {
    if out.finish.is_some() {
        meta.stop_detail = out.finish.map(Name::from);
    }
    meta.stop = match meta.stop_detail.as_deref() {
        Some(w) => stop_from_word(w),
        None => StopReason::Unknown,
    };
    if out.text.is_empty() {
        return NoText { tools: out.tools, ..NoText::default() }.into_record(id, meta);
    }
    Record::Reply { id, text: out.text, meta }
}

fn span(span: &Value, records: &mut Vec<Record>) {
    let attrs = attributes(span.get("attributes"));
    if !is_genai(&attrs) {
        return;
    }
    let mut found = output_of(&attrs);
    if found.is_none() {
        for event in list(span, "events", "events") {
            let name = string(event, "name").unwrap_or_default();
            let ea = attributes(event.get("attributes"));
            if name == "gen_ai.content.completion" || name == "gen_ai.client.inference.operation.details" {
                found = output_of(&ea);
            } else if name == "gen_ai.choice" && ea.get("index").and_then(Value::as_u64).unwrap_or(0) == 0 {
                let body = ea.get("body").and_then(decoded).unwrap_or(Value::Object(ea.clone()));
                found = Some(Output::message(&choice_body(body)));
            }
            if found.is_some() {
                break;
            }
        }
    }
    let Some(out) = found else { return };
    let mut meta = meta_of(&attrs);
    let start = nanos(span.get("startTimeUnixNano").or_else(|| span.get("start_time_unix_nano")));
    let end = nanos(span.get("endTimeUnixNano").or_else(|| span.get("end_time_unix_nano")));
    meta.ts = start.map(|t| iso(t).into());
    meta.duration_ms = start.zip(end).map(|(s, e)| e.saturating_sub(s) / 1_000_000);
    let id = attrs
        .get("gen_ai.response.id")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| string(span, "spanId").or_else(|| string(span, "span_id")));
    records.push(record(out, meta, id));
}

/// A `gen_ai.choice` body whose `message` may itself be a JSON string.
fn choice_body(mut body: Value) -> Value {
    if let Some(m) = body.get("message").and_then(|m| m.as_str().and_then(|s| serde_json::from_str(s).ok())) {
        body["message"] = m;
    }
    body
}

fn log_record(log: &Value, records: &mut Vec<Record>) {
    let attrs = attributes(log.get("attributes"));
    let name = string(log, "eventName")
        .or_else(|| string(log, "event_name"))
        .or_else(|| attrs.get("event.name").and_then(Value::as_str).map(str::to_owned))
        .unwrap_or_default();
    let body = log.get("body").map(any_value).unwrap_or(Value::Null);
    let out = match name.as_str() {
        "gen_ai.choice" => {
            let body = decoded(&body).unwrap_or(Value::Null);
            if body.get("index").and_then(Value::as_u64).unwrap_or(0) != 0 {
                return;
            }
            Output::message(&choice_body(body))
        }
        "gen_ai.client.inference.operation.details" => match output_of(&attrs) {
            Some(o) => o,
            None => return,
        },
        _ => return,
    };
    let id = attrs
        .get("gen_ai.response.id")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| string(log, "spanId").filter(|s| !s.is_empty()));
    let mut meta = meta_of(&attrs);
    meta.ts = nanos(log.get("timeUnixNano")).map(|t| iso(t).into());
    records.push(record(out, meta, id));
}

/// Every GenAI call in one export request (`resourceSpans`, `resourceLogs`).
pub(crate) fn export(request: &Value) -> Record {
    let mut records = Vec::new();
    for resource in list(request, "resourceSpans", "resource_spans") {
        let scopes = [list(resource, "scopeSpans", "scope_spans"), list(resource, "instrumentationLibrarySpans", "")];
        for scope in scopes.into_iter().flatten() {
            for s in list(scope, "spans", "spans") {
                span(s, &mut records);
            }
        }
    }
    for resource in list(request, "resourceLogs", "resource_logs") {
        for scope in list(resource, "scopeLogs", "scope_logs") {
            for l in list(scope, "logRecords", "log_records") {
                log_record(l, &mut records);
            }
        }
    }
    Record::Many(records)
}
