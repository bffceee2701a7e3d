//! promptfoo's `eval -o out.json`: `{evalId, results: {results: [EvaluateResult…]}, config}`
//! from 0.14 on, `{version?, results: […], stats, table}` before; and `-o out.jsonl`, one
//! result a line.
//! A result's reply is `response.output` when it is a string (a provider that returns JSON
//! gives a value, not text); its provider, prompt label and test index are its metadata.

use serde_json::{Map, Value};

use super::shape::{Claim, Shape};
use crate::logs::formats::fields::{has, is_array, is_object, name, stop_from_word, string, uint};
use crate::logs::formats::record::Record;
use crate::logs::model::reply::{EventKind, Format, Meta, StopReason, Tokens};
use crate::visible::clip;

/// An output: `evalId` and its `results` object, or `results.results` (0.14 on); a `results`
/// array beside the `table` or `stats` (0.2 to 0.13); a line of `-o out.jsonl` (`evalId`,
/// `testIdx`, `response`).
pub(crate) fn claim(o: &Map<String, Value>) -> Option<Claim> {
    let output = has(o, "evalId") && is_object(o, "results")
        || o.get("results").and_then(|r| r.get("results")).is_some_and(Value::is_array)
        || is_array(o, "results") && (is_object(o, "table") || is_object(o, "stats"));
    if output {
        return Some(Claim::certain(Shape::Promptfoo));
    }
    let line = o.get("evalId").is_some_and(Value::is_string) && o.contains_key("testIdx") && is_object(o, "response");
    line.then(|| Claim::certain(Shape::PromptfooResult))
}

pub(crate) fn result(eval_id: Option<&str>, r: &Value) -> Record {
    let mut meta = Meta::new(Format::Promptfoo);
    meta.provider = match r.get("provider") {
        Some(Value::String(s)) => Some(s.as_str().into()),
        Some(p) => name(p, "label").filter(|l| !l.is_empty()).or_else(|| name(p, "id")),
        None => None,
    };
    let response = r.get("response").filter(|x| x.is_object());
    meta.model = response.and_then(|x| x.get("metadata")).and_then(|m| name(m, "model"));
    if let Some(label) = r.get("prompt").and_then(|p| string(p, "label")).filter(|l| !l.is_empty()) {
        meta.extra.push(("prompt".to_owned(), label));
    }
    for (key, name) in [("testIdx", "test"), ("promptIdx", "prompt_index")] {
        if let Some(n) = uint(r, key) {
            meta.extra.push((name.to_owned(), n.to_string()));
        }
    }
    if let Some(e) = eval_id {
        meta.extra.push(("eval".to_owned(), e.to_owned()));
    }
    meta.duration_ms = uint(r, "latencyMs");
    if let Some(u) = response.and_then(|x| x.get("tokenUsage")) {
        meta.tokens = Tokens {
            input: uint(u, "prompt"),
            output: uint(u, "completion"),
            cache_read: uint(u, "cached"),
            cache_write: None,
        };
    }
    meta.stop_detail = response.and_then(|x| name(x, "finishReason"));
    meta.stop = meta.stop_detail.as_deref().map_or(StopReason::Unknown, stop_from_word);
    let id = string(r, "id");
    match response.and_then(|x| x.get("output")) {
        Some(Value::String(text)) if !text.is_empty() => Record::Reply { id, text: text.clone(), meta },
        output => {
            let error = response.and_then(|x| string(x, "error")).or_else(|| string(r, "error"));
            let (kind, message) = match (error, output) {
                (Some(e), _) => (EventKind::Failed, clip(&e, 300)),
                (None, Some(v)) if !v.is_null() && !v.is_string() => {
                    (EventKind::Empty, "the output is a JSON value, not text".to_owned())
                }
                _ => (EventKind::Empty, "no output".to_owned()),
            };
            Record::event(id, kind, message, meta)
        }
    }
}

/// A whole output read as one value (a small one): its results.
pub(crate) fn document(doc: &Value) -> Record {
    let eval_id = string(doc, "evalId");
    let results = match doc.get("results") {
        Some(Value::Object(o)) => o.get("results"),
        other => other,
    };
    let records = match results {
        Some(Value::Array(rs)) => rs.iter().map(|r| result(eval_id.as_deref(), r)).collect(),
        _ => Vec::new(),
    };
    Record::Many(records)
}
