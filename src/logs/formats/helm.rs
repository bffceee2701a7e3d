//! HELM's `scenario_state.json` (`benchmark_output/runs/<suite>/<run>/`): the adapter's settings
//! (`adapter_spec`, with the model), then a request state per request, its result's
//! completions the replies. HELM writes no null field, so a missing key is a null one.
//!
//! A completion's `finish_reason` is an object, `{"reason": "length"}` when the token limit
//! cut it, and may be missing or `""` (some clients set none); then a completion whose
//! `tokens` reached the request's `max_tokens` was cut at the limit. Requests that score log-likelihoods
//! (`max_tokens: 0`, the language-modeling and separate multiple-choice methods) give no
//! reply; a failed request (`success: false`) is a call without one, with its error. The
//! run's other files (`run_spec.json`, `stats.json`, `per_instance_stats.json`, the display
//! files) are context beside it.

use std::path::Path;

use serde_json::{Map, Value};

use super::shape::{Claim, Shape};
use crate::logs::formats::fields::{is_array, is_object, iso, name, stop_from_word, string};
use crate::logs::formats::is_beside;
use crate::logs::formats::record::{NoText, Record};
use crate::logs::model::reply::{EventKind, Format, Meta, StopReason};
use crate::visible::clip;

/// The file of a run whose replies are read.
pub(crate) const SCENARIO_STATE: &str = "scenario_state.json";

/// A run's files that describe it rather than hold its replies.
const RUN_FILES: [&str; 8] = [
    "run_spec.json",
    "scenario.json",
    "stats.json",
    "per_instance_stats.json",
    "instances.json",
    "display_requests.json",
    "display_predictions.json",
    "costs.json",
];

/// `adapter_spec` and `request_states`.
pub(crate) fn claim(o: &Map<String, Value>) -> Option<Claim> {
    (is_object(o, "adapter_spec") && is_array(o, "request_states")).then(|| Claim::certain(Shape::HelmScenarioState))
}

/// Whether `path` is one of a HELM run's other files: named so, beside its scenario state.
pub(crate) fn is_run_file(path: &Path) -> bool {
    is_beside(path, &RUN_FILES, SCENARIO_STATE)
}

/// A whole scenario state read as one value (a small one): its request states.
pub(crate) fn scenario_state(doc: &Value) -> Record {
    let adapter = doc.get("adapter_spec").unwrap_or(&Value::Null);
    let states = doc.get("request_states").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    Record::Many(states.iter().map(|s| request_state(adapter, s)).collect())
}

fn stop(reason: Option<&str>) -> StopReason {
    match reason {
        // HELM's metric counts these two as finished (`endoftext` from older clients).
        Some("endoftext") => StopReason::Finished,
        Some("unknown") | None => StopReason::Unknown,
        Some(word) => stop_from_word(word),
    }
}

/// One request state, under its run's adapter settings: a reply per completion.
pub(crate) fn request_state(adapter: &Value, state: &Value) -> Record {
    let request = state.get("request");
    if request.and_then(|r| r.get("max_tokens")).and_then(Value::as_u64) == Some(0) {
        // A log-likelihood scored, not a generation.
        return Record::Context;
    }
    let Some(result) = state.get("result") else { return Record::Context };
    let mut meta = Meta::new(Format::Helm);
    meta.model = request.and_then(|r| name(r, "model")).or_else(|| name(adapter, "model"));
    let instance = state.get("instance");
    if let Some(id) = instance.and_then(|i| string(i, "id")) {
        meta.extra.push(("instance".to_owned(), id));
    }
    if let Some(split) = instance.and_then(|i| string(i, "split")) {
        meta.extra.push(("split".to_owned(), split));
    }
    if let Some(p) = instance.and_then(|i| i.get("perturbation")).and_then(|p| string(p, "name")) {
        meta.extra.push(("perturbation".to_owned(), p));
    }
    for key in ["train_trial_index", "reference_index"] {
        if let Some(n) = state.get(key).filter(|n| n.is_number()) {
            meta.extra.push((key.to_owned(), n.to_string()));
        }
    }
    meta.duration_ms = result.get("request_time").and_then(Value::as_f64).map(|s| (s * 1000.0).round() as u64);
    meta.ts =
        result.get("request_datetime").and_then(Value::as_u64).map(|s| iso(s.saturating_mul(1_000_000_000)).into());
    if result.get("success").and_then(Value::as_bool) == Some(false) {
        let error = string(result, "error").unwrap_or_else(|| "failed".to_owned());
        return Record::event(None, EventKind::Failed, clip(&error, 300), meta);
    }
    // A client that passes on no finish reason (HELM's Anthropic client gives `""`) leaves it
    // unknown; a completion whose tokens reached the request's `max_tokens` was cut there.
    let max_tokens =
        request.and_then(|r| r.get("max_tokens")).or_else(|| adapter.get("max_tokens")).and_then(Value::as_u64);
    let completions = result.get("completions").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let mut replies: Vec<Record> = completions
        .iter()
        .map(|c| {
            let mut meta = meta.clone();
            meta.stop_detail = c.get("finish_reason").and_then(|f| name(f, "reason"));
            meta.stop = stop(meta.stop_detail.as_deref());
            if meta.stop == StopReason::Unknown
                && let Some(limit) = max_tokens.filter(|&m| m > 0)
                && let Some(n) = c.get("tokens").and_then(Value::as_array).map(Vec::len)
                && n as u64 >= limit
            {
                meta.stop = StopReason::Truncated;
                meta.stop_detail = Some(format!("cut off at the limit: {n} tokens of max_tokens {limit}").into());
                meta.infer("stop");
            }
            match string(c, "text").filter(|t| !t.is_empty()) {
                Some(text) => Record::Reply { id: None, text, meta },
                None => NoText::default().into_record(None, meta),
            }
        })
        .collect();
    match replies.len() {
        0 => NoText::default().into_record(None, meta),
        1 => replies.pop().unwrap_or(Record::Context),
        _ => Record::Many(replies),
    }
}
