//! Amazon Bedrock: Converse responses (`output.message.content[].text`), and binary event
//! streams of ConverseStream and InvokeModelWithResponseStream. Bedrock's invoke bodies are
//! the provider's own shape, read by that provider's format; so are the events inside an
//! invoke stream's chunks (Anthropic's Messages events, Cohere's v1 events, …), put back
//! together as that provider's SDK does.

use std::collections::BTreeMap;
use std::io::{self, Read};

use base64::Engine as _;
use serde_json::{Map, Value, json};

use super::shape::{Claim, Shape};
use super::{anthropic, api_error, cohere};
use crate::logs::Name;
use crate::logs::bytes::eventstream::{EventFrame, Frames};
use crate::logs::formats::fields::{describe, has, join_text, name, string, uint};
use crate::logs::formats::record::{NoText, Record};
use crate::logs::formats::stream::{self, Assemble, At, Out, cut_short};
use crate::logs::model::diagnostic::Problem;
use crate::logs::model::reply::{EventKind, Format, Meta, StopReason, Tokens};

/// A Converse response: `output.message`, and a stop reason or usage beside it.
pub(crate) fn claim(o: &Map<String, Value>) -> Option<Claim> {
    let message = o.get("output").and_then(|v| v.get("message")).is_some();
    (message && (has(o, "stopReason") || has(o, "usage"))).then(|| Claim::certain(Shape::BedrockConverse))
}

/// A Bedrock Converse response.
pub(crate) fn converse(mut record: Value) -> Record {
    let mut meta = Meta::new(Format::BedrockConverse);
    meta.stop_detail = name(&record, "stopReason");
    meta.stop = anthropic::stop(meta.stop_detail.as_deref());
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

/// A ConverseStream's events, put back together into the Converse response they stand
/// for: the text deltas joined per content block, `messageStop`'s stop reason, then
/// `metadata`'s usage and latency (which come after it).
#[derive(Default)]
pub(crate) struct ConverseStream {
    cur: Option<Converse>,
}

struct Converse {
    at: At,
    role: Option<String>,
    texts: BTreeMap<u64, String>,
    tools: BTreeMap<u64, String>,
    stop: Option<Value>,
    usage: Option<Value>,
    metrics: Option<Value>,
}

impl Assemble for ConverseStream {
    fn format(&self) -> Format {
        Format::BedrockStream
    }

    fn feed(&mut self, kind: &str, v: Value, at: At, out: &mut dyn FnMut(Out)) {
        let ended = self.cur.as_ref().is_some_and(|c| c.stop.is_some());
        if kind == "messageStart" || (ended && kind != "metadata") {
            self.finish(out);
        }
        let c = self.cur.get_or_insert_with(|| Converse {
            at,
            role: None,
            texts: BTreeMap::new(),
            tools: BTreeMap::new(),
            stop: None,
            usage: None,
            metrics: None,
        });
        let index = v.get("contentBlockIndex").and_then(Value::as_u64).unwrap_or(0);
        match kind {
            "messageStart" => c.role = string(&v, "role"),
            "contentBlockStart" => {
                if let Some(tool) = v.get("start").and_then(|s| s.get("toolUse")) {
                    c.tools.insert(index, string(tool, "name").unwrap_or_else(|| "toolUse".to_owned()));
                }
            }
            "contentBlockDelta" => {
                // Reasoning and tool input are not the reply.
                if let Some(t) = v.get("delta").and_then(|d| d.get("text")).and_then(Value::as_str) {
                    c.texts.entry(index).or_default().push_str(t);
                }
            }
            "messageStop" => c.stop = Some(v.get("stopReason").cloned().unwrap_or(Value::Null)),
            "metadata" => {
                c.usage = v.get("usage").cloned();
                c.metrics = v.get("metrics").cloned();
                self.finish(out);
            }
            _ => {}
        }
    }

    fn finish(&mut self, out: &mut dyn FnMut(Out)) {
        let Some(c) = self.cur.take() else { return };
        let ended = c.stop.is_some();
        let mut content: Vec<Value> = c.texts.into_values().map(|t| json!({"text": t})).collect();
        content.extend(c.tools.into_values().map(|name| json!({"toolUse": {"name": name}})));
        let whole = json!({
            "output": {"message": {"role": c.role.unwrap_or_else(|| "assistant".to_owned()), "content": content}},
            "stopReason": c.stop, "usage": c.usage, "metrics": c.metrics,
        });
        let record = converse(whole).rewrap(None, Format::BedrockStream);
        out(c.at.out(Ok(if ended { record } else { cut_short(record) })));
    }
}

/// The provider's own stream inside InvokeModelWithResponseStream's `chunk` events, chosen by
/// its first chunk.
enum Provider {
    /// Anthropic Messages events (and a legacy completion's fragments).
    Anthropic(anthropic::MessageStream),
    /// Cohere's v1 events.
    Cohere(cohere::V1Stream),
    /// Converse-shaped events, each under its name (Amazon Nova).
    Converse(ConverseStream),
    /// A model that streams its text in one field a chunk: Meta Llama (`generation`), Amazon
    /// Titan (`outputText`), Mistral (`outputs[].text`).
    Text(TextStream),
}

impl Provider {
    fn of(chunk: &Value) -> Option<Provider> {
        let o = chunk.as_object()?;
        if o.contains_key("type") || o.contains_key("completion") {
            return Some(Provider::Anthropic(anthropic::MessageStream::default()));
        }
        if o.contains_key("event_type") {
            return Some(Provider::Cohere(cohere::V1Stream::default()));
        }
        if CONVERSE_EVENTS.iter().any(|k| o.contains_key(*k)) {
            return Some(Provider::Converse(ConverseStream::default()));
        }
        ["generation", "outputText", "outputs"]
            .iter()
            .any(|k| o.contains_key(*k))
            .then(|| Provider::Text(TextStream::default()))
    }

    fn assembler(&mut self) -> &mut dyn Assemble {
        match self {
            Provider::Anthropic(a) => a,
            Provider::Cohere(a) => a,
            Provider::Converse(a) => a,
            Provider::Text(a) => a,
        }
    }

    fn feed(&mut self, chunk: Value, at: At, out: &mut dyn FnMut(Out)) {
        match self {
            Provider::Converse(a) => {
                // Nova's chunks hold one event each, under its name.
                if let Some((kind, event)) = chunk.as_object().and_then(|o| o.iter().next()) {
                    a.feed(kind, event.clone(), at, out);
                }
            }
            Provider::Anthropic(a) => {
                let kind = stream::kind(None, &chunk).to_owned();
                // A legacy completion's fragments carry no `type` on Bedrock.
                let kind =
                    if kind.is_empty() && chunk.get("completion").is_some() { "completion".to_owned() } else { kind };
                a.feed(&kind, chunk, at, out);
            }
            Provider::Cohere(a) => a.feed("", chunk, at, out),
            Provider::Text(a) => a.feed("", chunk, at, out),
        }
    }
}

/// Converse's event names.
const CONVERSE_EVENTS: [&str; 6] =
    ["messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata"];

/// A stream whose every chunk adds to one text field, the last carrying the stop reason.
#[derive(Default)]
pub(crate) struct TextStream {
    cur: Option<(At, String, Option<String>)>,
}

impl Assemble for TextStream {
    fn format(&self) -> Format {
        Format::BedrockStream
    }

    fn feed(&mut self, _kind: &str, v: Value, at: At, out: &mut dyn FnMut(Out)) {
        let first = v.get("outputs").and_then(|o| o.get(0));
        let piece = v.get("generation").or_else(|| v.get("outputText")).or_else(|| first.and_then(|o| o.get("text")));
        let stop = ["stop_reason", "completionReason"]
            .iter()
            .find_map(|k| string(&v, k).or_else(|| first.and_then(|o| string(o, k))));
        let c = self.cur.get_or_insert_with(|| (at, String::new(), None));
        if let Some(t) = piece.and_then(Value::as_str) {
            c.1.push_str(t);
        }
        if stop.is_some() {
            c.2 = stop;
            self.finish(out);
        }
    }

    fn finish(&mut self, out: &mut dyn FnMut(Out)) {
        let Some((at, text, stop)) = self.cur.take() else { return };
        let mut meta = Meta::new(Format::BedrockStream);
        meta.stop = match stop.as_deref() {
            Some("length" | "LENGTH" | "max_tokens") => StopReason::Truncated,
            Some("stop" | "FINISH" | "end_turn") => StopReason::Finished,
            Some(_) => StopReason::Other,
            None => StopReason::Unknown,
        };
        meta.stop_detail = stop.map(Name::from);
        let ended = meta.stop_detail.is_some();
        let record = if text.is_empty() {
            NoText::default().into_record(None, meta)
        } else {
            Record::Reply { id: None, text, meta }
        };
        out(at.out(Ok(if ended { record } else { cut_short(record) })));
    }
}

/// The usage Bedrock adds to an invoke stream's last chunk, where the provider's own
/// events carry none.
fn invocation_metrics(chunk: &Value) -> Option<Tokens> {
    let m = chunk.get("amazon-bedrock-invocationMetrics")?;
    Some(Tokens { input: uint(m, "inputTokenCount"), output: uint(m, "outputTokenCount"), ..Tokens::default() })
}

/// A record of the provider's stream as a Bedrock stream's, with Bedrock's usage where the
/// provider's events gave none.
fn stamped(record: Record, metrics: Option<Tokens>) -> Record {
    match record {
        Record::Reply { id, text, mut meta } => {
            meta.format = Format::BedrockStream;
            if let Some(t) = metrics.filter(|_| meta.tokens == Tokens::default()) {
                meta.tokens = t;
            }
            Record::Reply { id, text, meta }
        }
        other => other.rewrap(None, Format::BedrockStream),
    }
}

/// Reads a Bedrock event stream: ConverseStream's events, or InvokeModelWithResponseStream's
/// `chunk`s (base64 of the provider's own events), each frame's CRCs checked. An exception
/// frame ends the stream under way and is a failed call of its own.
pub(crate) fn read_event_stream(inner: impl Read, max: usize, out: &mut dyn FnMut(Out)) -> io::Result<()> {
    let mut frames = Frames::new(inner, max);
    let mut converse = ConverseStream::default();
    let mut provider: Option<Provider> = None;
    let mut metrics: Option<Tokens> = None;
    let push = |o: Out, metrics: Option<Tokens>, out: &mut dyn FnMut(Out)| {
        out(Out { line: o.line, offset: o.offset, what: o.what.map(|r| stamped(r, metrics)) })
    };
    while let Some(frame) = frames.next_frame()? {
        let m = match frame {
            EventFrame::Message(m) => m,
            EventFrame::Bad { offset, problem, .. } => {
                out(Out { line: 0, offset, what: Err(problem) });
                continue;
            }
        };
        let at = At { line: 0, offset: m.offset };
        let payload: Option<Value> = serde_json::from_slice(&m.payload).ok();
        match m.header(":message-type").unwrap_or("event") {
            "event" => {}
            kind => {
                // An exception (`:exception-type`) or an unmodeled error (`:error-code`).
                let name = m.header(":exception-type").or_else(|| m.header(":error-code")).unwrap_or(kind);
                let said = payload
                    .as_ref()
                    .and_then(api_error::message)
                    .or_else(|| m.header(":error-message").map(|e| format!("API error: {e}")));
                let message = match said {
                    Some(s) if s.ends_with(')') => s,
                    Some(s) => format!("{s} ({name})"),
                    None => format!("API error ({name})"),
                };
                let mut flush = |o: Out| push(o, metrics, out);
                converse.finish(&mut flush);
                if let Some(p) = &mut provider {
                    p.assembler().finish(&mut flush);
                }
                let record = Record::event(None, EventKind::Failed, message, Meta::new(Format::BedrockStream));
                out(at.out(Ok(record)));
                continue;
            }
        }
        let event = m.header(":event-type").unwrap_or("");
        let Some(payload) = payload else {
            let what = format!("an event ({event}) at byte {} whose payload is not JSON", m.offset);
            out(at.out(Err(Problem::BadRecord(what))));
            continue;
        };
        if event != "chunk" {
            if !CONVERSE_EVENTS.contains(&event) {
                let what = format!("an event of a kind not read ({event}) at byte {}", m.offset);
                out(at.out(Err(Problem::BadRecord(what))));
                continue;
            }
            converse.feed(event, payload, at, &mut |o| push(o, metrics, out));
            continue;
        }
        // An invoke stream's chunk: the provider's own event, in base64.
        let chunk = payload
            .get("bytes")
            .and_then(Value::as_str)
            .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
            .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok());
        let Some(chunk) = chunk else {
            let what = format!("a chunk at byte {} whose bytes are not base64 of JSON", m.offset);
            out(at.out(Err(Problem::BadRecord(what))));
            continue;
        };
        if let Some(t) = invocation_metrics(&chunk) {
            metrics = Some(t);
        }
        if provider.is_none() {
            provider = Provider::of(&chunk);
        }
        match &mut provider {
            Some(p) => p.feed(chunk, at, &mut |o| push(o, metrics, out)),
            None => out(at.out(Err(Problem::unknown_shape(describe(&chunk))))),
        }
    }
    let mut flush = |o: Out| push(o, metrics, out);
    converse.finish(&mut flush);
    if let Some(p) = &mut provider {
        p.assembler().finish(&mut flush);
    }
    Ok(())
}
