//! Langfuse exports: a trace's download (`{"trace", "observations"}` from the trace view;
//! `{"observations", "scores"}` from the server's download) and the observation rows of a
//! table export (a JSON array, or JSONL). Each GENERATION observation is a model call; its
//! `output` is the reply.
//!
//! Langfuse keeps a string output as it was given and JSON-encodes anything else, and its
//! downloads hand the stored string on unparsed: an output string is read as JSON, and taken
//! as a message only when it is one in a known convention (`message`), else as the reply it
//! is (a reply that is itself JSON looks like an encoded object). Langfuse has no stop-reason
//! field; the OpenAI integration writes `metadata.finish_reason` for a stream. An observation
//! at level ERROR with no output is a failed call, its `statusMessage` the error.
//!
//! The trace view's download leaves every observation's input and output out; its trace's own
//! `output` is then the only text the file holds, and is read as the trace's reply.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::message;
use super::shape::{Claim, Shape};
use crate::logs::formats::fields::{is_array, is_object, name, string, uint};
use crate::logs::formats::record::{NoText, Record};
use crate::logs::model::reply::{EventKind, Format, Meta, StopReason, Tokens};
use crate::visible::clip;

/// The observation types Langfuse writes.
const TYPES: [&str; 10] =
    ["GENERATION", "SPAN", "EVENT", "AGENT", "TOOL", "CHAIN", "RETRIEVER", "EVALUATOR", "EMBEDDING", "GUARDRAIL"];

/// A trace's download (`observations`, with a `trace` or `scores`), or one observation row
/// (`traceId`, a `type` of Langfuse's, `startTime`).
pub(crate) fn claim(o: &Map<String, Value>) -> Option<Claim> {
    if is_array(o, "observations") && (is_object(o, "trace") || is_array(o, "scores")) {
        return Some(Claim::certain(Shape::LangfuseExport));
    }
    let row = o.get("traceId").is_some_and(Value::is_string)
        && o.get("type").and_then(Value::as_str).is_some_and(|t| TYPES.contains(&t))
        && o.contains_key("startTime");
    row.then(|| Claim::certain(Shape::LangfuseObservation))
}

/// A trace's download: its generations' replies.
pub(crate) fn export(doc: &Value) -> Record {
    let observations = doc.get("observations").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let generations: Vec<&Value> = observations.iter().filter(|o| is_generation(o)).collect();
    let trace_output = doc.get("trace").and_then(|t| t.get("output")).filter(|o| !o.is_null());
    let left_out = generations.iter().all(|g| g.get("output").is_none_or(Value::is_null));
    if let Some(output) = trace_output.filter(|_| left_out) {
        // The generations that failed still say so; the rest gave the trace its output.
        let failed = generations.iter().filter(|g| is_error(g)).map(|g| observation(g));
        let reply = trace_reply(doc, output, generations.last().copied());
        return Record::Many(failed.chain(std::iter::once(reply)).collect());
    }
    let repeated = repeating_a_child(&generations);
    Record::Many(generations.into_iter().filter(|g| !repeated.contains(&string(g, "id"))).map(observation).collect())
}

/// The generations whose reply is the reply of one of their child generations: the call
/// around a model call, not a second reply. The Vercel AI SDK's `ai.generateText` span holds
/// the whole call (its steps, their tool calls) and records the last step's text as its own
/// output; each `ai.generateText.doGenerate` span inside it is one call to the model, and the
/// reply is that one's. A Langfuse that types both as generations lists the text twice.
fn repeating_a_child(generations: &[&Value]) -> HashSet<Option<String>> {
    let text = |g: &Value| match g.get("output").and_then(reply_of) {
        Some(Record::Reply { text, .. }) => Some(text),
        _ => None,
    };
    let texts: Vec<Option<String>> = generations.iter().map(|g| text(g)).collect();
    let by_id: HashMap<String, usize> =
        generations.iter().enumerate().filter_map(|(i, g)| Some((string(g, "id")?, i))).collect();
    let mut repeated = HashSet::new();
    for (child, child_text) in generations.iter().zip(&texts) {
        let Some(parent_id) = string(child, "parentObservationId") else { continue };
        let Some(&parent) = by_id.get(&parent_id) else { continue };
        if child_text.is_some() && texts[parent] == *child_text {
            repeated.insert(Some(parent_id));
        }
    }
    repeated
}

fn is_error(o: &Value) -> bool {
    o.get("level").and_then(Value::as_str) == Some("ERROR")
}

fn is_generation(o: &Value) -> bool {
    o.get("type").and_then(Value::as_str) == Some("GENERATION")
}

/// One observation row: a generation's reply; anything else is the trace around it.
pub(crate) fn row(o: &Value) -> Record {
    if is_generation(o) { observation(o) } else { Record::Context }
}

/// What Langfuse knows of the call besides its output.
fn meta_of(o: &Value) -> Meta {
    let mut meta = Meta::new(Format::Langfuse);
    meta.model = name(o, "model").or_else(|| name(o, "providedModelName"));
    let usage = o.get("usageDetails").filter(|u| u.is_object()).or_else(|| o.get("usage").filter(|u| u.is_object()));
    meta.tokens = match usage {
        Some(u) => Tokens {
            input: uint(u, "input").or_else(|| uint(u, "promptTokens")),
            output: uint(u, "output").or_else(|| uint(u, "completionTokens")),
            ..Tokens::default()
        },
        None => Tokens { input: uint(o, "promptTokens"), output: uint(o, "completionTokens"), ..Tokens::default() },
    };
    meta.ts = name(o, "startTime");
    meta.duration_ms = o.get("latency").and_then(Value::as_f64).map(|s| (s * 1000.0).round() as u64);
    // The trace view's download writes `metadata` as a JSON string.
    let metadata = match o.get("metadata") {
        Some(Value::String(s)) => serde_json::from_str(s).ok(),
        other => other.cloned(),
    };
    meta.stop_detail = metadata.as_ref().and_then(|m| name(m, "finish_reason"));
    meta.stop = meta.stop_detail.as_deref().map_or(StopReason::Unknown, crate::logs::formats::fields::stop_from_word);
    meta
}

/// The reply an output holds: a message in a known convention, encoded or not, else the
/// string as it is.
fn reply_of(output: &Value) -> Option<Record> {
    match output {
        Value::String(s) => {
            let decoded = serde_json::from_str::<Value>(s).ok().filter(|v| v.is_object() || v.is_array());
            decoded
                .and_then(|v| message::read(&v, Format::Langfuse))
                .or_else(|| message::read(output, Format::Langfuse))
        }
        other => message::read(other, Format::Langfuse),
    }
}

/// A GENERATION observation.
fn observation(o: &Value) -> Record {
    let meta = meta_of(o);
    let id = string(o, "id");
    let error = is_error(o).then(|| string(o, "statusMessage").unwrap_or_else(|| "an error".to_owned()));
    let Some(output) = o.get("output") else {
        return match error {
            Some(e) => Record::event(id, EventKind::Failed, clip(&e, 300), meta),
            None => Record::event(id, EventKind::Empty, "the export leaves the output out".to_owned(), meta),
        };
    };
    if output.is_null() || output.as_str() == Some("") {
        return match error {
            Some(e) => Record::event(id, EventKind::Failed, clip(&e, 300), meta),
            None => NoText::default().into_record(id, meta),
        };
    }
    match reply_of(output) {
        Some(record) => merge(record, id, meta),
        None => Record::event(id, EventKind::Empty, "the output is a JSON value, not text".to_owned(), meta),
    }
}

/// The record a message gave, with what the observation says where the message says nothing.
fn merge(record: Record, id: Option<String>, outer: Meta) -> Record {
    let fill = |mut meta: Meta| {
        meta.model = meta.model.or(outer.model.clone());
        if meta.tokens == Tokens::default() {
            meta.tokens = outer.tokens;
        }
        if meta.stop_detail.is_none() {
            meta.stop = outer.stop;
            meta.stop_detail = outer.stop_detail.clone();
        }
        meta.ts = meta.ts.or(outer.ts.clone());
        meta.duration_ms = meta.duration_ms.or(outer.duration_ms);
        meta.extra.extend(outer.extra.iter().cloned());
        meta
    };
    match record {
        Record::Reply { text, meta, .. } => Record::Reply { id, text, meta: fill(meta) },
        Record::Event { kind, message, meta, .. } => Record::Event { id, kind, message, meta: fill(meta) },
        other => other,
    }
}

/// The trace's own output, when its observations' outputs were left out of the download:
/// the text the file holds, under the trace's id, with what its last generation says.
fn trace_reply(doc: &Value, output: &Value, generation: Option<&Value>) -> Record {
    let trace = doc.get("trace").unwrap_or(&Value::Null);
    let mut meta = generation.map_or_else(|| Meta::new(Format::Langfuse), meta_of);
    meta.extra.push(("from".to_owned(), "trace.output".to_owned()));
    let id = string(trace, "id");
    match reply_of(output) {
        Some(record) => merge(record, id, meta),
        None => Record::event(id, EventKind::Empty, "the trace's output is a JSON value, not text".to_owned(), meta),
    }
}
