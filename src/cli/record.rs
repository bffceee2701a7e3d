//! The per-reply record `bracewalk extract --jsonl` prints: the keys and values the reference
//! oracle (`run.mjs`) prints for the same input, so the two can be compared line for line.

use std::fmt::Write;

use crate::exact::js;
use crate::exact::span::Utf16Index;
use crate::exact::trace::Trace;
use crate::exact::value::{JsString, Object, Value, write_json_string};
use crate::exact::walk::{Visit, Visited};
use crate::exact::{first, served, walk};

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

/// Why an input line is not a record `{"id", "text", "fields"?}`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    #[error("not JSON: {0}")]
    NotJson(js::ParseError),
    #[error("expected an object with \"text\", found a {0}")]
    NotAnObject(&'static str),
    #[error("\"text\" is a {0}, not a string")]
    TextNotAString(&'static str),
    #[error("no \"text\" key")]
    NoText,
    #[error("\"fields\" holds a {0}, not a string")]
    FieldNotAString(&'static str),
    #[error("\"fields\" is a {0}, not an array")]
    FieldsNotAnArray(&'static str),
}

/// One input record: `{"id", "text", "fields"?}`.
pub struct Input<'a> {
    /// The id exactly as given (any JSON value).
    pub id: Value,
    pub text: String,
    pub fields: Vec<String>,
    /// Where the line wrote the text, for printing it again as it was written.
    pub escaped: Option<js::Escaped<'a>>,
}

impl<'a> Input<'a> {
    /// A record of these, its text not read from a line.
    pub fn new(id: Value, text: String, fields: Vec<String>) -> Input<'a> {
        Input { id, text, fields, escaped: None }
    }

    /// Reads one JSONL line. The error says what is wrong with it. Its text may hold the
    /// thread's decoding buffer: a caller done with it hands it back with [`js::recycle`].
    pub fn parse(line: &'a str) -> Result<Input<'a>, InputError> {
        let (mut value, escaped) = js::parse_recycled(line).map_err(InputError::NotJson)?;
        let Value::Object(obj) = &mut value else {
            return Err(InputError::NotAnObject(value.kind()));
        };
        // Where the line wrote the text: the last string decoded where the text is (another
        // there before may have been dropped, a key given twice, its place taken by this one).
        let mut escaped = escaped.into_iter();
        let (text, escaped) = match obj.get_mut("text") {
            // Taken, not copied: it may be most of the line.
            Some(Value::String(s)) => match std::mem::take(s) {
                JsString::Utf8(s) => {
                    let written = escaped.rfind(|e| e.is_of(&s));
                    (s, written)
                }
                // Made anew here, not where the line wrote it.
                units => (units.to_string_lossy().into_owned(), None),
            },
            Some(other) => return Err(InputError::TextNotAString(other.kind())),
            None => return Err(InputError::NoText),
        };
        let fields = match obj.get("fields") {
            None | Some(Value::Null) => vec!["edits".to_owned()],
            Some(Value::Array(items)) => items
                .iter()
                .map(|f| match f {
                    Value::String(s) => Ok(s.to_string_lossy().into_owned()),
                    other => Err(InputError::FieldNotAString(other.kind())),
                })
                .collect::<Result<_, _>>()?,
            Some(other) => return Err(InputError::FieldsNotAnArray(other.kind())),
        };
        let id = obj.get("id").cloned().unwrap_or(Value::Null);
        Ok(Input { id, text, fields, escaped })
    }
}

/// Prints the record for `input`, restricted to `keys` when given.
pub fn render(input: &Input, offsets: Offsets, keys: Option<&[String]>) -> String {
    let mut out = String::new();
    write(&mut out, input, offsets, keys);
    out
}

/// What the record's keys ask of the seed's walk, the least that gives them: the answer
/// alone ([`walk::print_answer`]); the decision too ([`walk::run`] unrecorded); or every
/// candidate too ([`walk::visits`]). Each is linear in the reply and exactly what the
/// recorded walk says.
enum Walked<'a> {
    Nothing,
    /// The answer alone, found as it is printed ([`walk::print_answer`]).
    Answer,
    Decision(Trace),
    Visits(Trace, Visited<'a>),
}

impl<'a> Walked<'a> {
    fn of(text: &'a str, wanted: &dyn Fn(&str) -> bool) -> Walked<'a> {
        if wanted("candidates") {
            let (trace, visits) = walk::visits(text);
            Walked::Visits(trace, visits)
        } else if ["decided_by", "whole_reply", "walk_end"].iter().any(|k| wanted(k)) {
            Walked::Decision(walk::run(text, &walk::WalkOptions::SEED, false))
        } else if wanted("extract_json") {
            Walked::Answer
        } else {
            Walked::Nothing
        }
    }

    fn trace(&self) -> Option<&Trace> {
        match self {
            Walked::Decision(t) | Walked::Visits(t, _) => Some(t),
            Walked::Nothing | Walked::Answer => None,
        }
    }

    /// Writes the answer as `JSON.stringify` would, or `null`.
    fn write_value(&self, text: &str, escaped: Option<&js::Escaped>, out: &mut String) {
        match self {
            Walked::Answer => walk::print_answer(text, escaped, &walk::WalkOptions::SEED, out),
            Walked::Decision(t) | Walked::Visits(t, _) => match &t.value {
                Some(v) => v.write_json(out),
                None => out.push_str("null"),
            },
            Walked::Nothing => out.push_str("null"),
        }
    }
}

/// [`render`] appended to `out`: a batch writes every record into one buffer, with nothing
/// made in between but the values it prints.
pub fn write(out: &mut String, input: &Input, offsets: Offsets, keys: Option<&[String]>) {
    let text = input.text.as_str();
    let wanted = |k: &str| keys.is_none_or(|ks| ks.iter().any(|w| w == k));
    let mut walked = Walked::of(text, &wanted);
    // Only offsets need the UTF-16 index, and only in a reply that is not ASCII.
    let index = (offsets == Offsets::Utf16 && walked.trace().is_some()).then(|| Utf16Index::new(text));
    let off = |b: usize| index.as_ref().map_or(b, |i| i.utf16(b));

    let opened = out.len();
    out.push('{');
    let key = |out: &mut String, k: &str| {
        if out.len() > opened + 1 {
            out.push(',');
        }
        out.push('"');
        out.push_str(k);
        out.push_str("\":");
    };
    if wanted("id") {
        key(out, "id");
        input.id.write_json(out);
    }
    if wanted("extract_json") {
        key(out, "extract_json");
        walked.write_value(text, input.escaped.as_ref(), out);
    }
    if let Some(t) = walked.trace() {
        if wanted("decided_by") {
            key(out, "decided_by");
            let _ = write!(out, "\"{}\"", t.decided_by.name());
        }
        if wanted("whole_reply") {
            key(out, "whole_reply");
            let _ = write!(out, "\"{}\"", t.whole_reply.name());
        }
        if wanted("walk_end") {
            key(out, "walk_end");
            match t.walk_end {
                Some(e) => {
                    let _ = write!(out, "{}", off(e));
                }
                None => out.push_str("-1"),
            }
        }
    }
    if let Walked::Visits(_, visited) = &mut walked
        && wanted("candidates")
    {
        key(out, "candidates");
        let strict = visited.strict_ends();
        write_candidates(out, &visited.visits, &strict, &walk::repaired_ends(text, &visited.visits), &off);
    }
    if wanted("array_prefix") {
        key(out, "array_prefix");
        out.push_str(&array_prefixes(text, &input.fields));
    }
    if wanted("extract_json_object") {
        key(out, "extract_json_object");
        write_json_string(out, &JsString::from(first::extract_json_object(text)));
    }
    if wanted("leading_json_values") {
        key(out, "leading_json_values");
        let l = served::leading_json_values(text);
        out.push_str("{\"values\":");
        Value::Array(l.values).write_json(out);
        out.push_str(",\"rest\":");
        write_json_string(out, &JsString::from(l.rest));
        out.push('}');
    }
    if wanted("json_prefix_of") {
        key(out, "json_prefix_of");
        match served::json_prefix_of(text) {
            None => out.push_str("null"),
            Some(p) => {
                out.push_str("{\"leaves\":");
                Value::Array(p.leaves.into_iter().map(Value::String).collect()).write_json(out);
                if let Some(w) = p.words {
                    out.push_str(",\"words\":");
                    write_json_string(out, &w);
                }
                out.push('}');
            }
        }
    }
    out.push('}');
}

/// The visits, each with the ends of its strict and repaired spans (one of each a visit).
fn write_candidates(
    out: &mut String,
    visits: &[Visit],
    strict: &[Option<usize>],
    repaired: &[Option<usize>],
    off: &dyn Fn(usize) -> usize,
) {
    // Each is 96 bytes and four offsets at most: room made once for a list that may be a
    // hundred times the reply, not by doubling.
    let digits = visits.last().map_or(1, |v| off(v.start).max(1).ilog10() as usize + 1);
    out.reserve(visits.len() * (96 + 4 * digits) + 2);
    out.push('[');
    for (i, ((v, strict_end), repaired_end)) in visits.iter().zip(strict).zip(repaired).enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{{\"start\":{},\"strict\":", off(v.start));
        write_end(out, strict_end.map(off), true);
        let _ = write!(out, ",\"strict_ok\":{},\"repaired\":", v.strict_ok);
        write_end(out, repaired_end.map(off), true);
        let _ = write!(out, ",\"repaired_ok\":{},\"read_end\":", v.repaired_ok);
        write_end(out, v.read_end.map(off), false);
        out.push('}');
    }
    out.push(']');
}

/// An offset, `null` for none; a span's as `{"end":N}`.
fn write_end(out: &mut String, end: Option<usize>, span: bool) {
    let _ = match (end, span) {
        (None, _) => write!(out, "null"),
        (Some(e), true) => write!(out, "{{\"end\":{e}}}"),
        (Some(e), false) => write!(out, "{e}"),
    };
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
