//! Inspect AI eval logs: one reply per sample and epoch.
//!
//! A `.eval` log is a zip archive (deflated, or zstd since Inspect made it the default):
//! `header.json` holds the eval (task, model), `samples/{id}_epoch_{n}.json` one sample each;
//! a log still being written has `_journal/start.json` in place of the header. A `.json` log
//! is the same `EvalLog` whole, its `samples` an array (streamed by `document`), and may hold
//! Python's bare `NaN` (read by `nan`). A sample's reply is `output.completion`, which Inspect
//! fills from the first choice's text (its `text` parts joined with `\n`, reasoning left out);
//! that rule is read where `completion` is empty.

use std::fs::File;
use std::io::{BufReader, Read, Seek};

use serde_json::{Map, Value};

use super::shape::{Claim, Shape};
use crate::logs::bytes::json::json_error;
use crate::logs::bytes::nan;
use crate::logs::formats::fields::{is_object, name, string, uint};
use crate::logs::formats::record::{NoText, Record};
use crate::logs::model::diagnostic::Problem;
use crate::logs::model::reply::{EventKind, Format, Meta, StopReason, Tokens};
use crate::visible::clip;

/// A `.json` log: its `eval` header, and `samples` or a `status`.
pub(crate) fn claim(o: &Map<String, Value>) -> Option<Claim> {
    (is_object(o, "eval") && (o.contains_key("samples") || o.contains_key("status")))
        .then(|| Claim::certain(Shape::InspectLog))
}

fn stop(reason: Option<&str>) -> StopReason {
    match reason {
        Some("stop") => StopReason::Finished,
        // A context-window stop cuts the output as the ceiling does.
        Some("max_tokens" | "model_length") => StopReason::Truncated,
        Some("unknown") | None => StopReason::Unknown,
        Some(_) => StopReason::Other,
    }
}

/// `ChatMessage.text`: a string as it is, or the `text` parts joined with `\n`.
fn message_text(message: &Value) -> String {
    match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            texts.join("\n")
        }
        _ => String::new(),
    }
}

fn id_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => "?".to_owned(),
        Some(other) => other.to_string(),
    }
}

/// One sample, under the log's header. `base` names the log, for the sample's id.
pub(crate) fn sample(header: &Value, sample: &Value, base: &str) -> Record {
    let eval = header.get("eval");
    let (sid, epoch) = (id_text(sample.get("id")), id_text(sample.get("epoch")));
    let id = Some(format!("{base}#{sid}_epoch_{epoch}"));
    let mut meta = Meta::new(Format::Inspect);
    meta.round = eval.and_then(|e| name(e, "task"));
    meta.extra.push(("sample".to_owned(), sid));
    meta.extra.push(("epoch".to_owned(), epoch));
    let output = sample.get("output");
    meta.model = output.and_then(|o| name(o, "model")).or_else(|| eval.and_then(|e| name(e, "model")));
    let choice = output.and_then(|o| o.get("choices")).and_then(|c| c.get(0));
    meta.stop_detail = choice.and_then(|c| name(c, "stop_reason"));
    meta.stop = stop(meta.stop_detail.as_deref());
    if let Some(u) = output.and_then(|o| o.get("usage")) {
        meta.tokens = Tokens {
            input: uint(u, "input_tokens"),
            output: uint(u, "output_tokens"),
            cache_read: uint(u, "input_tokens_cache_read"),
            cache_write: uint(u, "input_tokens_cache_write"),
        };
    }
    meta.ts = name(sample, "completed_at").or_else(|| name(sample, "started_at"));
    meta.duration_ms = sample.get("total_time").and_then(Value::as_f64).map(|s| (s * 1000.0).round() as u64);
    let mut text = output.and_then(|o| string(o, "completion")).unwrap_or_default();
    if text.is_empty() {
        text = choice.and_then(|c| c.get("message")).map(message_text).unwrap_or_default();
    }
    if text.is_empty() {
        if let Some(error) = sample.get("error").filter(|e| !e.is_null()) {
            let message = string(error, "message").unwrap_or_else(|| error.to_string());
            return Record::event(id, EventKind::Failed, clip(&message, 300), meta);
        }
        let tools = match choice.and_then(|c| c.get("message")).and_then(|m| m.get("tool_calls")) {
            Some(Value::Array(calls)) => calls.iter().map(|c| string(c, "function").unwrap_or_default()).collect(),
            _ => Vec::new(),
        };
        return NoText { tools, ..NoText::default() }.into_record(id, meta);
    }
    Record::Reply { id, text, meta }
}

/// A `.json` log read whole (a small one, on a line of its own): its samples.
pub(crate) fn log(record: &Value, base: &str) -> Record {
    let samples = match record.get("samples") {
        Some(Value::Array(s)) => s.iter().map(|s| sample(record, s, base)).collect(),
        _ => Vec::new(),
    };
    Record::Many(samples)
}

/// Whether `file` is a zip archive laid out as an Inspect log.
pub(crate) fn is_eval_archive(file: &File) -> bool {
    let Ok(archive) = zip::ZipArchive::new(BufReader::new(file)) else { return false };
    archive.file_names().any(|n| n == "header.json" || n == "_journal/start.json" || n.starts_with("samples/"))
}

fn member<R: Read + Seek>(archive: &mut zip::ZipArchive<R>, index: usize) -> Result<(String, Value), Problem> {
    let entry = archive.by_index(index).map_err(|e| Problem::BadRecord(format!("member {index}: {e}")))?;
    let name = entry.name().to_owned();
    let input = BufReader::with_capacity(1 << 16, nan::Tolerant::new(BufReader::with_capacity(1 << 16, entry)));
    let value =
        serde_json::from_reader(input).map_err(|e| Problem::MalformedJson(format!("{name}: {}", json_error(&e))))?;
    Ok((name, value))
}

/// Every sample of a `.eval` archive, in the archive's order, one in memory at a time.
pub(crate) fn read_eval(file: &File, base: &str, out: &mut dyn FnMut(Result<Record, Problem>)) {
    let mut archive = match zip::ZipArchive::new(BufReader::new(file)) {
        Ok(a) => a,
        Err(e) => return out(Err(Problem::BadRecord(format!("not a readable .eval archive: {e}")))),
    };
    let names: Vec<String> = archive.file_names().map(str::to_owned).collect();
    let header_at = ["header.json", "_journal/start.json"].iter().find_map(|h| archive.index_for_name(h));
    let header = match header_at.map(|i| member(&mut archive, i)) {
        Some(Ok((_, v))) => v,
        Some(Err(p)) => {
            out(Err(p));
            Value::Null
        }
        None => Value::Null,
    };
    for (i, _) in names.iter().enumerate().filter(|(_, n)| n.starts_with("samples/") && n.ends_with(".json")) {
        match member(&mut archive, i) {
            Ok((_, s)) => out(Ok(sample(&header, &s, base))),
            Err(p) => out(Err(p)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn completion_first_then_the_text_parts_and_max_tokens_is_truncation() {
        let header = json!({"eval": {"task": "ada", "model": "anthropic/claude"}});
        let s = json!({"id": 3, "epoch": 2, "output": {"model": "claude", "completion": "",
            "choices": [{"message": {"role": "assistant", "content": [{"type": "reasoning", "reasoning": "r"},
            {"type": "text", "text": "{\"a\":"}, {"type": "text", "text": "1"}]}, "stop_reason": "max_tokens"}]}});
        let Record::Reply { id, text, meta } = sample(&header, &s, "x.eval") else { panic!("a reply") };
        assert_eq!((id.as_deref(), text.as_str()), (Some("x.eval#3_epoch_2"), "{\"a\":\n1"));
        assert_eq!(
            (meta.stop, meta.round.as_deref(), meta.model.as_deref()),
            (StopReason::Truncated, Some("ada"), Some("claude"))
        );
    }
}
