//! lm-evaluation-harness `--log_samples`: `samples_<task>_<date>.jsonl`, one line per document
//! and filter (a task with two filters logs each document twice), or, from v0.4.2 and before,
//! one JSON array. `results_<date>.json` beside it holds the scores: context, passed over.
//!
//! A line's `resps` holds, per request, what the model answered. Only `generate_until`
//! requests are generations (their `arguments` give the prompt and an object of generation
//! settings, and their `resps` one string per repeat); a multiple-choice or perplexity task's
//! requests are log-likelihoods, which are not replies. `filtered_resps` is what the task's
//! filters made of the answer (the extracted number, the majority vote), kept beside it. The
//! harness records no stop reason and no usage: a reply cut at `max_gen_toks` cannot be told
//! from one that ended, and is left unknown.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use serde_json::{Map, Value};

use super::shape::{Claim, Shape};
use crate::logs::formats::fields::{is_array, is_object};
use crate::logs::formats::record::Record;
use crate::logs::model::reply::{Format, Meta};

/// A sample line (`doc_id`, `resps`, `filtered_resps`), or a results file (`results`,
/// `configs`, `versions`).
pub(crate) fn claim(o: &Map<String, Value>) -> Option<Claim> {
    if o.contains_key("doc_id") && is_array(o, "resps") && is_array(o, "filtered_resps") {
        return Some(Claim::certain(Shape::LmEvalSample));
    }
    let results = is_object(o, "results") && is_object(o, "configs") && o.contains_key("versions");
    results.then(|| Claim::certain(Shape::LmEvalResults))
}

/// The model of the run each samples file belongs to, from the results file the run wrote
/// beside it (`samples_<task>_<date>.jsonl` and `results_<date>.json` share the date): read
/// once per results file, and shared by every file of a load.
#[derive(Debug, Default)]
pub(crate) struct Runs {
    models: Mutex<HashMap<PathBuf, Option<String>>>,
}

/// A results file larger than this is not read for its model.
const RESULTS_MAX: u64 = 64 << 20;

impl Runs {
    /// The model the run of the samples file at `samples` evaluated, if its results file
    /// says.
    pub fn model(&self, samples: &Path) -> Option<String> {
        let results = results_beside(samples)?;
        let mut models = self.models.lock().unwrap_or_else(PoisonError::into_inner);
        models.entry(results).or_insert_with_key(|r| model_of(r)).clone()
    }
}

/// `results_<date>.json` beside `samples_<task>_<date>.jsonl`.
fn results_beside(samples: &Path) -> Option<PathBuf> {
    let name = samples.file_name()?.to_str()?;
    let stem = name.strip_prefix("samples_")?.strip_suffix(".jsonl")?;
    let (_, date) = stem.rsplit_once('_')?;
    Some(samples.with_file_name(format!("results_{date}.json")))
}

/// The model a results file names: `model_name`, else the `pretrained=` or `model=` of its
/// model arguments.
fn model_of(results: &Path) -> Option<String> {
    if std::fs::metadata(results).ok()?.len() > RESULTS_MAX {
        return None;
    }
    let doc: Value = serde_json::from_slice(&std::fs::read(results).ok()?).ok()?;
    if let Some(name) = doc.get("model_name").and_then(Value::as_str).filter(|n| !n.is_empty()) {
        return Some(name.to_owned());
    }
    let args = doc.get("config").and_then(|c| c.get("model_args")).and_then(Value::as_str)?;
    args.split(',')
        .find_map(|kv| kv.strip_prefix("pretrained=").or_else(|| kv.strip_prefix("model=")))
        .map(str::to_owned)
}

/// The arguments of request `i`: `{"gen_args_0": {"arg_0", "arg_1"}}` from v0.4.3 on, a list
/// of argument lists before.
fn argument(arguments: Option<&Value>, i: usize, n: usize) -> Option<&Value> {
    match arguments? {
        Value::Object(o) => o.get(&format!("gen_args_{i}")).and_then(|a| a.get(format!("arg_{n}"))),
        Value::Array(a) => a.get(i).and_then(|args| args.get(n)),
        _ => None,
    }
}

/// One sample line: a reply per generation (per repeat of each `generate_until` request).
pub(crate) fn sample(record: &Value) -> Record {
    let Some(Value::Array(resps)) = record.get("resps") else { return Record::Context };
    let arguments = record.get("arguments");
    let filtered = record.get("filtered_resps").and_then(Value::as_array);
    let text_of = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        _ => None,
    };
    let mut replies = Vec::new();
    for (i, answers) in resps.iter().enumerate() {
        // Generation settings (`until`, `max_gen_toks`) make a request a generation.
        let Some(settings) = argument(arguments, i, 1).filter(|s| s.is_object()) else { continue };
        let answers: Vec<String> = match answers {
            Value::Array(each) => each.iter().filter_map(text_of).collect(),
            other => text_of(other).into_iter().collect(),
        };
        for text in answers {
            let mut meta = Meta::new(Format::LmEval);
            if let Some(doc) = record.get("doc_id") {
                meta.extra.push(("doc_id".to_owned(), doc.as_str().map_or_else(|| doc.to_string(), str::to_owned)));
            }
            if let Some(f) = record.get("filter").and_then(Value::as_str) {
                meta.extra.push(("filter".to_owned(), f.to_owned()));
            }
            if let Some(f) = filtered.and_then(|f| f.get(i)).and_then(text_of) {
                meta.extra.push(("filtered".to_owned(), f));
            }
            if let Some(n) = settings.get("max_gen_toks").filter(|n| n.is_number()) {
                meta.extra.push(("max_gen_toks".to_owned(), n.to_string()));
            }
            replies.push(Record::Reply { id: None, text, meta });
        }
    }
    match replies.len() {
        0 => Record::Context,
        1 => replies.pop().unwrap_or(Record::Context),
        _ => Record::Many(replies),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_generations_are_replies() {
        let generation = json!({"doc_id": 4, "resps": [[" 5, because", " 5"]], "filtered_resps": ["5"], "filter": "strict-match",
            "arguments": {"gen_args_0": {"arg_0": "Q: 2+3?\nA:", "arg_1": {"until": ["Q:"], "max_gen_toks": 16}}}});
        let Record::Many(many) = sample(&generation) else { panic!("two repeats") };
        let texts: Vec<_> = many
            .iter()
            .map(|r| match r {
                Record::Reply { text, .. } => text.as_str(),
                _ => "",
            })
            .collect();
        assert_eq!(texts, [" 5, because", " 5"]);
        let choices = json!({"doc_id": 0, "resps": [[["-0.41", "True"]], [["-3.20", "False"]]],
            "filtered_resps": [["-0.41", "True"], ["-3.20", "False"]],
            "arguments": {"gen_args_0": {"arg_0": "Sky is", "arg_1": " blue"}, "gen_args_1": {"arg_0": "Sky is", "arg_1": " red"}}});
        assert!(matches!(sample(&choices), Record::Context));
        let rolling = json!({"doc_id": 0, "resps": [["-12.5"]], "filtered_resps": ["-12.5"], "arguments": {"gen_args_0": {"arg_0": "text"}}});
        assert!(matches!(sample(&rolling), Record::Context));
    }
}
