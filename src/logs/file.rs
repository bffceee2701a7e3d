//! What a file is, decided in one place ([`what`]): a run's context file or a campaign's
//! ledger (read for the logs beside them), an eval archive, a binary event stream, or text,
//! told by its content: a stream saved as server-sent events; a JSON document (one value,
//! several, an array, pretty-printed or not); JSON Lines; or a reply as written. Its name
//! only breaks ties (a `.json` file of no known shape is a record to report, a `.txt` one a
//! reply). The loader acts on the decision.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use serde::de::IgnoredAny;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::logs::bytes::eventstream;
use crate::logs::bytes::json::{cut_short, parse_line};
use crate::logs::bytes::lines::{LineAt, Lines};
use crate::logs::bytes::sse;
use crate::logs::campaign::{RUN_LOG, is_run_context_file};
use crate::logs::formats::{self, ReadAs, Shape, Sniffed, classify, helm, inspect};
use crate::logs::model::diagnostic::Problem;
use crate::logs::model::options::LoadOptions;
use crate::logs::model::reply::Format;

/// How much of a file is looked at to tell text from binary.
const SNIFF: usize = 8192;

/// What a file is, told from its metadata and first bytes before any of it is read as
/// replies.
pub(crate) enum Look {
    /// A run's context file: read with its log, not as replies.
    Context,
    /// An Inspect AI eval archive.
    Eval(File),
    /// A Bedrock binary event stream.
    BedrockStream(File),
    /// Anything else, to be planned from its first bytes ([`plan`]).
    Text { file: File, len: u64, head: Vec<u8> },
}

/// What the file at `path` is, from its metadata and first bytes, or why it is not read.
/// `listed`: a walk found it, so that it is gone now means it vanished.
pub(crate) fn look(opts: &LoadOptions, path: &Path, listed: bool) -> Result<Look, Problem> {
    let mut file = File::open(path).map_err(|e| Problem::from_io(&e, listed))?;
    let len = match file.metadata() {
        Ok(m) if m.is_file() => m.len(),
        Ok(_) => return Err(Problem::NotAFile),
        Err(e) => return Err(Problem::from_io(&e, listed)),
    };
    if len == 0 {
        return Err(Problem::Empty);
    }
    if is_run_context_file(path) || helm::is_run_file(path) {
        return Ok(Look::Context);
    }
    let head = head(&mut file).map_err(|e| Problem::from_io(&e, listed))?;
    let as_eval = matches!(opts.format, None | Some(Format::Inspect));
    if as_eval && head.starts_with(b"PK\x03\x04") && inspect::is_eval_archive(&file) {
        return Ok(Look::Eval(file));
    }
    // A Bedrock event stream is binary: told by its first frame, before any binary file.
    if matches!(opts.format, None | Some(Format::BedrockStream)) && eventstream::opens_a_frame(&head) {
        return Ok(Look::BedrockStream(file));
    }
    if let Some(what) = binary(&head) {
        return Err(Problem::Binary(what.to_owned()));
    }
    Ok(Look::Text { file, len, head })
}

/// What a file is and how it is to be read: the one decision the loader acts on.
pub(crate) enum What {
    /// A run's context file: read with its log, not as replies.
    Context,
    /// A campaign's ledger: context too, read once for the run logs beside it.
    Ledger,
    /// An Inspect AI eval archive.
    Eval(File),
    /// A Bedrock binary event stream.
    BedrockStream(File),
    /// A file of text, opened, with its plan.
    Opened(Opened),
}

/// A file of text opened to be read as `plan` says: its length and first bytes.
pub(crate) struct Opened {
    pub file: File,
    pub len: u64,
    pub head: Vec<u8>,
    pub plan: Plan,
}

/// What the file at `path`, which a walk found, is ([`look`]) and how it is read ([`plan`]),
/// or why it is not read.
pub(crate) fn what(opts: &LoadOptions, path: &Path) -> Result<What, Problem> {
    let (mut file, len, head) = match look(opts, path, true)? {
        Look::Text { file, len, head } => (file, len, head),
        Look::Context => return Ok(What::Context),
        Look::Eval(file) => return Ok(What::Eval(file)),
        Look::BedrockStream(file) => return Ok(What::BedrockStream(file)),
    };
    let plan = plan(opts, path, &mut file, &head, len).map_err(|e| Problem::from_io(&e, true))?;
    if matches!(plan, Plan::Jsonl(Some(Shape::Ledger))) && opts.format.is_none() {
        return Ok(What::Ledger);
    }
    Ok(What::Opened(Opened { file, len, head, plan }))
}

/// How a file is to be read.
pub(crate) enum Plan {
    Text,
    /// A JSON document (one value, several, an array of records), read as a stream. Should
    /// it turn out not to be one, `look_on` says to look for a record on a later line.
    Document {
        look_on: bool,
    },
    Jsonl(Option<Shape>),
    /// A stream saved to a file, of this format.
    Stream(Format),
    /// Not read, for this reason.
    Refused(Problem),
}

pub(crate) fn plan(opts: &LoadOptions, path: &Path, file: &mut File, head: &[u8], len: u64) -> io::Result<Plan> {
    let forced = opts.format;
    if forced == Some(Format::Text) {
        return Ok(Plan::Text);
    }
    if let Some(f) = forced.filter(|&f| formats::spec(f).read == ReadAs::Stream) {
        return Ok(Plan::Stream(f));
    }
    if forced.is_none() && sse::looks_like_events(head) {
        let sniffed = formats::sniff_stream(BufReader::with_capacity(1 << 16, &*file), opts.max_line)?;
        file.seek(SeekFrom::Start(0))?;
        match sniffed {
            Sniffed::Stream(f) => return Ok(Plan::Stream(f)),
            // Events of JSON data are a capture: of no stream known, they are not a reply.
            Sniffed::Unknown(what) => return Ok(Plan::Refused(Problem::UnknownStream(what))),
            Sniffed::NotEvents => {}
        }
    }
    let ext = extension(path);
    let json_ext = matches!(ext.as_str(), "json" | "jsonl" | "ndjson");
    let line_ext = matches!(ext.as_str(), "jsonl" | "ndjson");
    let text_ext = matches!(ext.as_str(), "txt" | "text" | "md" | "markdown" | "html" | "htm");
    let opens = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head).iter().find(|b| !b.is_ascii_whitespace());
    if forced.is_none() && !json_ext && !matches!(opens, Some(b'{' | b'[')) {
        return Ok(Plan::Text);
    }
    let first = first_record(file, opts.max_line, false)?;
    file.seek(SeekFrom::Start(0))?;
    // A first line that is JSON cut short is the start of a document spread over lines
    // (pretty-printed): read as one, whatever a later line happens to be on its own.
    if first.opens_a_value {
        return Ok(Plan::Document { look_on: true });
    }
    // An array, or an eval log, on one line is still a document of many records: read a
    // record at a time, not as one line held whole.
    let many = matches!(first.shape, Some(Shape::InspectLog | Shape::Promptfoo | Shape::HelmScenarioState));
    if first.on_first_line && (first.opens_array || many) {
        return Ok(Plan::Document { look_on: false });
    }
    // A later line that is a record of a known shape makes a file JSONL whose first line
    // is broken; an unknown shape there proves nothing.
    let lines_by_name = line_ext || forced.is_some() || opts.text_path.is_some();
    let shape = first.shape.filter(|&s| first.on_first_line || lines_by_name || s != Shape::Unknown);
    // The lines of a stream saved as NDJSON (Ollama's, Cohere v1's) are read as the stream.
    let stream = shape.and_then(Shape::format).filter(|&f| forced.is_none() && formats::spec(f).read == ReadAs::Stream);
    if let Some(f) = stream {
        return Ok(Plan::Stream(f));
    }
    Ok(match shape {
        Some(shape) => {
            let reads_as_text =
                forced.is_none() && shape == Shape::Unknown && (text_ext || (!json_ext && opts.text_path.is_none()));
            if reads_as_text { Plan::Text } else { Plan::Jsonl(Some(shape)) }
        }
        None if line_ext || len > opts.max_whole => Plan::Jsonl(None),
        None => Plan::Document { look_on: false },
    })
}

/// A tail's file that looks like JSONL whose first line is still being written.
pub(crate) fn may_be_unfinished_jsonl(path: &Path, head: &[u8], len: u64) -> bool {
    let ext = extension(path);
    let jsonish = matches!(ext.as_str(), "jsonl" | "ndjson" | "json") || path.ends_with(RUN_LOG);
    jsonish && (len as usize) <= head.len() && !head.contains(&b'\n')
}

/// Whether a line after the first is a record of a known shape.
pub(crate) fn later_record(opts: &LoadOptions, file: &mut File) -> bool {
    let first = first_record(file, opts.max_line, true);
    first.is_ok_and(|f| !f.on_first_line && f.shape.is_some_and(|s| s != Shape::Unknown))
}

pub(crate) fn head(file: &mut File) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(SNIFF);
    file.take(SNIFF as u64).read_to_end(&mut head)?;
    file.seek(SeekFrom::Start(0))?;
    Ok(head)
}

/// What the first lines of a file say it is.
struct First {
    /// The shape of the first record among the first few non-blank lines.
    shape: Option<Shape>,
    /// That record was the first non-blank line.
    on_first_line: bool,
    /// The first non-blank line is JSON cut short: a value goes on past it.
    opens_a_value: bool,
    /// The first non-blank line opens an array.
    opens_array: bool,
}

/// `past_first`: look on past a first line that opens a value, for a record on a later one.
fn first_record(file: &mut File, max_line: usize, past_first: bool) -> io::Result<First> {
    file.seek(SeekFrom::Start(0))?;
    let mut lines = Lines::new(BufReader::with_capacity(1 << 16, &*file), 0, 0, max_line);
    let mut buf = Vec::new();
    let mut tried = 0;
    let mut opens_a_value = false;
    let mut opens_array = false;
    while let Some(at) = lines.next_line(&mut buf)? {
        if at.too_long || buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if tried == 0 {
            let line = buf.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&buf);
            opens_array = line.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[');
        }
        if let Some(shape) = shape_of(&buf, &at) {
            return Ok(First { shape: Some(shape), on_first_line: tried == 0, opens_a_value, opens_array });
        }
        if tried == 0 {
            opens_a_value = cut_short(buf.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&buf));
            // A document spread over lines is read as one; its later lines (one may be most
            // of the file) are looked at only if it turns out not to be one.
            if opens_a_value && !past_first {
                break;
            }
        }
        tried += 1;
        if tried == 16 {
            break;
        }
    }
    Ok(First { shape: None, on_first_line: false, opens_a_value, opens_array })
}

/// Values longer than this are not read to learn a record's shape.
const SHAPE_VALUE_MAX: usize = 4096;

/// A record's shape, or `None` when the line is not JSON. The shape is in a record's keys and
/// short fields, so a long value (the reply in it) is only checked, not copied: a file that is
/// one 200 MB line is read once to learn that it is a text reply, not three times over.
fn shape_of(line: &[u8], at: &LineAt) -> Option<Shape> {
    if line.len() <= SHAPE_VALUE_MAX {
        return parse_line(line, at).ok().map(|(v, _)| classify(&v));
    }
    let Ok(fields) = serde_json::from_slice::<BTreeMap<String, &RawValue>>(line) else {
        // Not an object (no known shape), or not UTF-8 (decoded lossily and read whole).
        let not_an_object = std::str::from_utf8(line).is_ok() && serde_json::from_slice::<IgnoredAny>(line).is_ok();
        return if not_an_object { Some(Shape::Unknown) } else { parse_line(line, at).ok().map(|(v, _)| classify(&v)) };
    };
    // Two levels of keys: Bedrock's shape is `output.message`.
    let record = fields
        .into_iter()
        .map(|(k, raw)| {
            let long_object = raw.get().len() > SHAPE_VALUE_MAX && raw.get().starts_with('{');
            let inner = long_object.then(|| serde_json::from_str::<BTreeMap<String, &RawValue>>(raw.get()).ok());
            let value = match inner.flatten() {
                Some(inner) => Value::Object(inner.into_iter().map(|(k, v)| (k, stand_in(v))).collect()),
                None => stand_in(raw),
            };
            (k, value)
        })
        .collect();
    Some(classify(&Value::Object(record)))
}

/// A value as it is for a short one; for a long one, a value of its kind that is empty.
fn stand_in(raw: &RawValue) -> Value {
    let text = raw.get();
    if text.len() <= SHAPE_VALUE_MAX {
        return serde_json::from_str(text).unwrap_or(Value::Null);
    }
    match text.as_bytes().first() {
        Some(b'{') => Value::Object(serde_json::Map::new()),
        Some(b'[') => Value::Array(Vec::new()),
        Some(b'"') => Value::String(String::new()),
        _ => serde_json::from_str(text).unwrap_or(Value::Null),
    }
}

/// What kind of binary file `head` begins, if it is one.
pub(crate) fn binary(head: &[u8]) -> Option<&'static str> {
    const MAGIC: [(&[u8], &str); 11] = [
        (b"\x89PNG", "a PNG image"),
        (b"\xff\xd8\xff", "a JPEG image"),
        (b"GIF8", "a GIF image"),
        (b"%PDF-", "a PDF"),
        (b"PK\x03\x04", "a zip archive"),
        (b"\x1f\x8b", "gzip data"),
        (b"\x28\xb5\x2f\xfd", "zstd data"),
        (b"\x7fELF", "an executable"),
        (b"SQLite format 3\0", "an SQLite database"),
        (b"\xff\xfe", "UTF-16 text, which is not read: convert it to UTF-8"),
        (b"\xfe\xff", "UTF-16 text, which is not read: convert it to UTF-8"),
    ];
    if let Some((_, what)) = MAGIC.iter().find(|(m, _)| head.starts_with(m)) {
        return Some(what);
    }
    head.contains(&0).then_some("it contains NUL bytes")
}

/// Whether the file is named as JSONL.
pub(crate) fn is_line_named(path: &Path) -> bool {
    matches!(extension(path).as_str(), "jsonl" | "ndjson")
}

pub(crate) fn extension(path: &Path) -> String {
    path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::bytes::lines::Ending;

    #[test]
    fn binary_files_are_told_by_magic_or_nul() {
        assert_eq!(binary(b"\x89PNG\r\n\x1a\n"), Some("a PNG image"));
        assert_eq!(binary(b"abc\0def"), Some("it contains NUL bytes"));
        assert_eq!(binary("plain é text".as_bytes()), None);
    }

    #[test]
    fn a_long_record_is_shaped_without_reading_its_long_values() {
        let long = "x".repeat(3 * SHAPE_VALUE_MAX);
        let at = LineAt { number: 1, offset: 0, ending: Ending::Newline, len: 0, too_long: false };
        for record in [
            format!(r#"{{"type":"message","role":"assistant","content":[{{"type":"text","text":"{long}"}}]}}"#),
            format!(
                r#"{{"output":{{"message":{{"role":"assistant","content":[{{"text":"{long}"}}]}}}},"usage":{{}}}}"#
            ),
            format!(r#"{{"choices":[{{"message":{{"content":"{long}"}}}}]}}"#),
            format!(r#"{{"ts":"t","type":"agent_call","output":"{long}"}}"#),
            format!(r#"{{"html":"{long}","log":"ok"}}"#),
            format!(r#"[{{"html":"{long}"}}]"#),
        ] {
            let full: Value = serde_json::from_str(&record).unwrap();
            assert_eq!(shape_of(record.as_bytes(), &at), Some(classify(&full)), "{}", &record[..60]);
        }
        assert_eq!(shape_of(format!(r#"{{"html":"{long}"#).as_bytes(), &at), None);
    }
}
