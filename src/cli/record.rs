//! The per-reply record `bracewalk extract --jsonl` prints: the keys and values the reference
//! oracle (`run.mjs`) prints for the same input, so the two can be compared line for line.

use std::fmt::Write;

use crate::read::js;
use crate::read::span::Utf16Index;
use crate::read::trace::{Reading, Trace};
use crate::read::value::{JsString, Object, Value, write_json_string};
use crate::read::{first, served, walk};

/// The record's keys, in the order they are printed.
pub const KEYS: [&str; 10] = [
    "id",
    "extract_json",
    "decided_by",
    "whole_reply",
    "walk_end",
    "candidates",
    "array_prefix",
    "extract_json_object",
    "leading_json_values",
    "json_prefix_of",
];

/// The unit offsets are printed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Offsets {
    /// Byte offsets into the reply's UTF-8 text.
    Bytes,
    /// UTF-16 code unit offsets: JavaScript string indices, as the pipeline logs them.
    Utf16,
}

/// One input record: `{"id", "text", "fields"?}`.
pub struct Input {
    /// The id exactly as given (any JSON value).
    pub id: Value,
    pub text: String,
    pub fields: Vec<String>,
}

impl Input {
    /// Reads one JSONL line. The error says what is wrong with it.
    pub fn parse(line: &str) -> Result<Input, String> {
        let value = js::parse(line).map_err(|e| format!("not JSON: {e}"))?;
        let Value::Object(obj) = &value else {
            return Err(format!("expected an object with \"text\", found a {}", value.kind()));
        };
        let text = match obj.get("text") {
            Some(Value::String(s)) => s.to_string_lossy().into_owned(),
            Some(other) => return Err(format!("\"text\" is a {}, not a string", other.kind())),
            None => return Err("no \"text\" key".to_owned()),
        };
        let fields = match obj.get("fields") {
            None | Some(Value::Null) => vec!["edits".to_owned()],
            Some(Value::Array(items)) => items
                .iter()
                .map(|f| match f {
                    Value::String(s) => Ok(s.to_string_lossy().into_owned()),
                    other => Err(format!("\"fields\" holds a {}, not a string", other.kind())),
                })
                .collect::<Result<_, _>>()?,
            Some(other) => return Err(format!("\"fields\" is a {}, not an array", other.kind())),
        };
        let id = obj.get("id").cloned().unwrap_or(Value::Null);
        Ok(Input { id, text, fields })
    }
}

/// Prints the record for `input`, restricted to `keys` when given.
pub fn render(input: &Input, offsets: Offsets, keys: Option<&[String]>) -> String {
    let text = input.text.as_str();
    let wanted = |k: &str| keys.is_none_or(|ks| ks.iter().any(|w| w == k));
    let needs_trace = ["extract_json", "decided_by", "whole_reply", "walk_end", "candidates"].iter().any(|k| wanted(k));
    // Every candidate, however long that takes: the oracle's record lists them all.
    let trace = needs_trace.then(|| walk::run(text, &walk::WalkOptions::SEED, true));
    let index = Utf16Index::new(text);
    let off = |b: usize| match offsets {
        Offsets::Bytes => b,
        Offsets::Utf16 => index.utf16(b),
    };

    let mut out = String::from("{");
    let key = |out: &mut String, k: &str| {
        if out.len() > 1 {
            out.push(',');
        }
        let _ = write!(out, "\"{k}\":");
    };
    if wanted("id") {
        key(&mut out, "id");
        out.push_str(&input.id.to_json());
    }
    if let Some(t) = &trace {
        if wanted("extract_json") {
            key(&mut out, "extract_json");
            out.push_str(&t.value.as_ref().map_or_else(|| "null".to_owned(), Value::to_json));
        }
        if wanted("decided_by") {
            key(&mut out, "decided_by");
            let _ = write!(out, "\"{}\"", t.decided_by.name());
        }
        if wanted("whole_reply") {
            key(&mut out, "whole_reply");
            let _ = write!(out, "\"{}\"", t.whole_reply.name());
        }
        if wanted("walk_end") {
            key(&mut out, "walk_end");
            match t.walk_end {
                Some(e) => {
                    let _ = write!(out, "{}", off(e));
                }
                None => out.push_str("-1"),
            }
        }
        if wanted("candidates") {
            key(&mut out, "candidates");
            write_candidates(&mut out, t, &off);
        }
    }
    if wanted("array_prefix") {
        key(&mut out, "array_prefix");
        out.push_str(&array_prefixes(text, &input.fields));
    }
    if wanted("extract_json_object") {
        key(&mut out, "extract_json_object");
        write_json_string(&mut out, &JsString::from(first::extract_json_object(text)));
    }
    if wanted("leading_json_values") {
        key(&mut out, "leading_json_values");
        let l = served::leading_json_values(text);
        out.push_str("{\"values\":");
        out.push_str(&Value::Array(l.values).to_json());
        out.push_str(",\"rest\":");
        write_json_string(&mut out, &JsString::from(l.rest));
        out.push('}');
    }
    if wanted("json_prefix_of") {
        key(&mut out, "json_prefix_of");
        match served::json_prefix_of(text) {
            None => out.push_str("null"),
            Some(p) => {
                out.push_str("{\"leaves\":");
                out.push_str(&Value::Array(p.leaves.into_iter().map(Value::String).collect()).to_json());
                if let Some(w) = p.words {
                    out.push_str(",\"words\":");
                    write_json_string(&mut out, &w);
                }
                out.push('}');
            }
        }
    }
    out.push('}');
    out
}

fn write_candidates(out: &mut String, t: &Trace, off: &dyn Fn(usize) -> usize) {
    out.push('[');
    for (i, c) in t.candidates.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let span = |r: &Reading| r.span().map_or_else(|| "null".to_owned(), |s| format!("{{\"end\":{}}}", off(s.end)));
        let _ = write!(
            out,
            "{{\"start\":{},\"strict\":{},\"strict_ok\":{},\"repaired\":{},\"repaired_ok\":{},\"read_end\":{}}}",
            off(c.start),
            span(&c.strict),
            c.strict.parses(),
            span(&c.wide),
            c.wide.parses(),
            c.read_end().map_or_else(|| "null".to_owned(), |e| off(e).to_string()),
        );
    }
    out.push(']');
}

/// `{field: readArrayPrefix(text, field), …}` as JavaScript builds and prints the object:
/// repeated and integer-like field names take JavaScript's order, the last assignment wins.
fn array_prefixes(text: &str, fields: &[String]) -> String {
    let prefixes: Object = fields
        .iter()
        .map(|f| {
            let prefix = match walk::read_array_prefix(text, f) {
                None => Value::Null,
                Some(p) => Value::Object(
                    [("entries".into(), Value::Array(p.entries)), ("closed".into(), Value::Bool(p.closed))]
                        .into_iter()
                        .collect(),
                ),
            };
            (JsString::from(f.as_str()), prefix)
        })
        .collect();
    Value::Object(prefixes).to_json()
}

/// The line printed for an input line that could not be read.
pub fn error_line(line_number: usize, message: &str) -> String {
    let mut out = format!("{{\"id\":{line_number},\"error\":");
    write_json_string(&mut out, &JsString::from(message));
    out.push('}');
    out
}
