//! LangSmith runs, as the SDK hands them out (`client.list_runs`, dumped as a JSON array or
//! one run a line), each with its child runs when those were loaded. Every run of type `llm`
//! is a model call; chains, tools and retrievers around it are not.
//!
//! An LLM run's `outputs` are what its tracer recorded: LangChain's `LLMResult`
//! (`generations[0][0]`, its `text`, `generation_info.finish_reason`, the serialized
//! `AIMessage` with its `response_metadata` and `usage_metadata`), the provider's own
//! response for the SDK's wrappers (`wrap_openai`, `wrap_anthropic`), or anything a traced
//! function returned (a message, `{"output": …}`), read as `message` reads it. A run that
//! raised has its `error` (a traceback) and no outputs: a failed call.

use serde_json::{Map, Value};

use super::message;
use super::shape::{Claim, Shape};
use crate::logs::formats::fields::{name, string, uint};
use crate::logs::formats::record::{NoText, Record};
use crate::logs::model::reply::{EventKind, Format, Meta, Tokens};
use crate::visible::clip;

/// A run: `run_type`, its place in a trace (`trace_id` or `dotted_order`), and its `inputs`
/// or `outputs`.
pub(crate) fn claim(o: &Map<String, Value>) -> Option<Claim> {
    let run = o.get("run_type").is_some_and(Value::is_string)
        && (o.contains_key("trace_id") || o.contains_key("dotted_order"))
        && (o.contains_key("inputs") || o.contains_key("outputs"));
    run.then(|| Claim::certain(Shape::LangSmithRun))
}

/// A run and its child runs, walked without recursion (a tree's depth is the input's): the
/// record of each LLM run among them, in the order they were written.
pub(crate) fn run(record: &Value) -> Record {
    let mut calls = Vec::new();
    let mut stack = vec![record];
    while let Some(run) = stack.pop() {
        if matches!(run.get("run_type").and_then(Value::as_str), Some("llm" | "chat_model")) {
            calls.push(llm(run));
        }
        if let Some(Value::Array(children)) = run.get("child_runs") {
            stack.extend(children.iter().rev());
        }
    }
    match calls.len() {
        0 => Record::Context,
        1 => calls.pop().unwrap_or(Record::Context),
        _ => Record::Many(calls),
    }
}

/// What the run records of the call besides its outputs.
fn meta_of(run: &Value) -> Meta {
    let mut meta = Meta::new(Format::LangSmith);
    let extra = run.get("extra");
    let metadata = extra.and_then(|e| e.get("metadata"));
    let params = extra.and_then(|e| e.get("invocation_params"));
    meta.model = metadata
        .and_then(|m| name(m, "ls_model_name"))
        .or_else(|| params.and_then(|p| name(p, "model").or_else(|| name(p, "model_name"))));
    meta.provider = metadata.and_then(|m| name(m, "ls_provider"));
    meta.tokens =
        Tokens { input: uint(run, "prompt_tokens"), output: uint(run, "completion_tokens"), ..Tokens::default() };
    meta.ts = name(run, "start_time");
    meta
}

/// One LLM run.
fn llm(run: &Value) -> Record {
    let mut meta = meta_of(run);
    // The SDK's wrappers move the response's usage to `usage_metadata`.
    if let Some(u) = run.get("outputs").and_then(|o| o.get("usage_metadata")).filter(|u| u.is_object()) {
        meta.tokens = Tokens { input: uint(u, "input_tokens"), output: uint(u, "output_tokens"), ..Tokens::default() };
    }
    let id = string(run, "id");
    let outputs = run.get("outputs").filter(|o| !o.is_null());
    let Some(outputs) = outputs else {
        return match string(run, "error").filter(|e| !e.is_empty()) {
            // The error is a traceback: its first line says what was raised.
            Some(e) => {
                let first = e.lines().find(|l| !l.trim().is_empty()).unwrap_or(&e).to_owned();
                Record::event(id, EventKind::Failed, clip(&first, 300), meta)
            }
            None => NoText::default().into_record(id, meta),
        };
    };
    let record = match outputs.get("generations") {
        Some(generations) => generation(generations, outputs.get("llm_output"), meta.clone()),
        None => message::read(outputs, Format::LangSmith)
            .or_else(|| outputs.get("output").and_then(|o| message::read(o, Format::LangSmith)))
            .unwrap_or_else(|| {
                Record::event(None, EventKind::Empty, "the outputs are JSON, not text".to_owned(), meta.clone())
            }),
    };
    fill(record, id, &meta)
}

/// LangChain's `LLMResult`: `generations[0][0]`, the first choice for the first prompt.
fn generation(generations: &Value, llm_output: Option<&Value>, mut meta: Meta) -> Record {
    let first = generations.get(0).and_then(|g| if g.is_array() { g.get(0) } else { Some(g) });
    let Some(g) = first else { return NoText::default().into_record(None, meta) };
    let message = g.get("message").map(|m| m.get("kwargs").unwrap_or(m));
    let response = message.and_then(|m| m.get("response_metadata"));
    let info = g.get("generation_info");
    meta.stop_detail = info
        .and_then(|i| name(i, "finish_reason").or_else(|| name(i, "stop_reason")))
        .or_else(|| response.and_then(|r| name(r, "finish_reason").or_else(|| name(r, "stop_reason"))));
    meta.stop = meta.stop_detail.as_deref().map_or_else(Default::default, crate::logs::formats::fields::stop_from_word);
    meta.model = response
        .and_then(|r| name(r, "model_name").or_else(|| name(r, "model")))
        .or_else(|| llm_output.and_then(|o| name(o, "model_name")))
        .or(meta.model);
    if let Some(u) = message.and_then(|m| m.get("usage_metadata")) {
        meta.tokens = Tokens { input: uint(u, "input_tokens"), output: uint(u, "output_tokens"), ..Tokens::default() };
    } else if let Some(u) = llm_output.and_then(|o| o.get("token_usage")) {
        meta.tokens =
            Tokens { input: uint(u, "prompt_tokens"), output: uint(u, "completion_tokens"), ..Tokens::default() };
    }
    match string(g, "text").filter(|t| !t.is_empty()) {
        Some(text) => Record::Reply { id: None, text, meta },
        // No text: what the message holds (its tool calls, say).
        None => match message.and_then(|m| super::message::read(m, Format::LangSmith)) {
            Some(Record::Event { kind, message, .. }) => Record::Event { id: None, kind, message, meta },
            Some(Record::Reply { text, .. }) => Record::Reply { id: None, text, meta },
            _ => NoText::default().into_record(None, meta),
        },
    }
}

/// The record under the run's id, with what the run says where the outputs say nothing.
fn fill(record: Record, id: Option<String>, outer: &Meta) -> Record {
    let fill = |mut meta: Meta| {
        meta.format = Format::LangSmith;
        meta.model = meta.model.or(outer.model.clone());
        meta.provider = meta.provider.or(outer.provider.clone());
        if meta.tokens == Tokens::default() {
            meta.tokens = outer.tokens;
        }
        meta.ts = meta.ts.or(outer.ts.clone());
        meta
    };
    match record {
        Record::Reply { text, meta, .. } => Record::Reply { id, text, meta: fill(meta) },
        Record::Event { kind, message, meta, .. } => Record::Event { id, kind, message, meta: fill(meta) },
        other => other,
    }
}
