//! Any other JSON or JSONL, read through the user's pointers: `--text-path` to the reply's
//! text, `--meta NAME=POINTER` to its metadata.

use serde_json::Value;

use crate::logs::formats::fields::{describe, page_of_image, stop_from_word};
use crate::logs::formats::record::Record;
use crate::logs::model::diagnostic::Problem;
use crate::logs::model::reply::{Format, Meta};

/// A record read through the user's pointers.
pub(crate) fn record(record: &Value, text_path: &str, meta_paths: &[(String, String)]) -> Record {
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
            "agent" => meta.agent = Some(s.strip_suffix(".md").unwrap_or(&s).into()),
            "phase" => meta.phase = Some(s.into()),
            "page" => meta.page = n.and_then(|n| u32::try_from(n).ok()),
            "image" => {
                meta.page = meta.page.or_else(|| page_of_image(&s));
                meta.image = Some(s.into());
            }
            "round" => meta.round = Some(s.into()),
            "document" => meta.document = Some(s.into()),
            "iteration" => meta.iteration = n.and_then(|n| u32::try_from(n).ok()),
            "model" => meta.model = Some(s.into()),
            "provider" => meta.provider = Some(s.into()),
            "stop_reason" => {
                meta.stop = stop_from_word(&s);
                meta.stop_detail = Some(s.into());
            }
            "input_tokens" => meta.tokens.input = n,
            "output_tokens" => meta.tokens.output = n,
            "ts" => meta.ts = Some(s.into()),
            "document_outcome" => meta.document_outcome = Some(s.into()),
            _ => meta.extra.push((name.clone(), s)),
        }
    }
    Record::Reply { id, text, meta }
}
