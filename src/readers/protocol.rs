//! The protocol a reader command speaks: one JSON object a line each way, answered in order.
//!
//! bracewalk writes `{"id": "<reply id>", "text": "<the reply text>"}`; the reader writes, for
//! each, one of
//!
//! * `{"id": "<same id>", "value": <any JSON>}`: what the extractor returned (`null` or no
//!   `value`: nothing);
//! * `{"id": …, "json": "<text>"}`: the extractor returned this text, which its caller parses
//!   as JSON;
//! * `{"id": …, "error": "<message>"}`: the extractor threw;
//! * `{"id": …, "fail": "<why>"}`: the reply has no answer (what the extractor returned
//!   could not be carried as JSON).
//!
//! Lines are read with JavaScript's `JSON.parse` ([`js::parse`]), so a value is what a
//! JavaScript caller of the reader would hold. The [caller](super::own::caller) then reads the
//! answer as the spec's options say.
//!
//! An adapter (`js:`, `py:`) first says whether it loaded the extractor, before any reply is
//! sent: `{"ready": {"function": "<its name>", "how": "named" | "default" | "only"}}`, or `{"unready": {"stage": "load", "error":
//! "<message>"}}`, or `{"unready": {"stage": "function", "wanted": "<name>" | null,
//! "functions": ["<name>", …]}}` ([`parse_handshake`]).

use super::adapter::Found;
use crate::exact::js;
use crate::exact::lex;
use crate::exact::value::{JsString, Value, write_json_str};
use crate::visible::visible;

/// How much of a line a message quotes.
const QUOTED: usize = 80;

/// Appends the request for one reply: `{"id":…,"text":…}` and a newline.
pub fn request(out: &mut String, id: &str, text: &str) {
    out.push_str("{\"id\":");
    write_json_str(out, id);
    out.push_str(",\"text\":");
    write_json_str(out, text);
    out.push_str("}\n");
}

/// What one answer says about its reply.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// The extractor's value, `null` already nothing.
    Value(Option<Value>),
    /// The extractor returned this text.
    Text(JsString),
    /// The extractor threw, with this message.
    Threw(String),
    /// The reply has no answer, and why.
    Failed(String),
}

/// One line a reader printed.
#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    Answer {
        id: JsString,
        answer: Answer,
    },
    /// Not an answer: what it is instead (`a line that is not JSON (…): "…"`).
    Bad(String),
}

/// Reads one line of a reader's output (its newline included or not); `None` for a blank
/// line, which is passed over.
pub fn parse_line(bytes: &[u8]) -> Option<Line> {
    let Ok(line) = std::str::from_utf8(bytes) else {
        let shown = String::from_utf8_lossy(bytes);
        return Some(Line::Bad(format!("a line that is not UTF-8: {}", quote(&shown))));
    };
    let line = lex::trim(line);
    if line.is_empty() {
        return None;
    }
    let mut value = match js::parse(line) {
        Ok(v) => v,
        Err(e) => return Some(Line::Bad(format!("a line that is not JSON ({e}): {}", quote(line)))),
    };
    let Value::Object(object) = &mut value else {
        return Some(Line::Bad(format!("JSON that is not an answer {{\"id\", \"value\"}}: {}", quote(line))));
    };
    let Some(id) = object.remove("id").and_then(Value::into_js_string) else {
        return Some(Line::Bad(format!("an answer with no \"id\" string: {}", quote(line))));
    };
    let message = |v: Value| v.into_js_string().map_or_else(|| e_json(line), |s| s.to_string_lossy().into_owned());
    let present = |v: Option<Value>| v.filter(|v| !matches!(v, Value::Null));
    let answer = if let Some(e) = present(object.remove("error")) {
        Answer::Threw(message(e))
    } else if let Some(f) = present(object.remove("fail")) {
        Answer::Failed(message(f))
    } else {
        match present(object.remove("json")).map(Value::into_js_string) {
            Some(Some(text)) => Answer::Text(text),
            None => Answer::Value(crate::readers::given::held(object.remove("value"))),
            Some(None) => return Some(Line::Bad(format!("an answer whose \"json\" is not a string: {}", quote(line)))),
        }
    };
    Some(Line::Answer { id, answer })
}

/// What an adapter says once it has loaded the extractor, before any reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Handshake {
    /// It calls the function of this name, found so.
    Ready { function: String, found: Option<Found> },
    /// The module could not be loaded: what it threw.
    NotLoaded { error: String },
    /// The module holds no function of the name asked for (`wanted`) or, with none asked
    /// for, no one function to take; the functions it does hold.
    NoFunction { wanted: Option<String>, functions: Vec<String> },
    /// Something else: what.
    Bad(String),
}

/// Reads an adapter's first line.
pub fn parse_handshake(bytes: &[u8]) -> Handshake {
    let line = String::from_utf8_lossy(bytes);
    let text = |v: Option<&Value>| v.and_then(Value::as_js_string).map(|s| s.to_string_lossy().into_owned());
    let parsed = js::parse(lex::trim(&line));
    let Some(o) = parsed.as_ref().ok().and_then(Value::as_object) else {
        return Handshake::Bad(format!("printed {} where it was to say it was ready", quote(&line)));
    };
    if let Some(ready) = o.get("ready").and_then(Value::as_object) {
        let found = text(ready.get("how")).as_deref().and_then(Found::parse);
        return Handshake::Ready { function: text(ready.get("function")).unwrap_or_default(), found };
    }
    let Some(unready) = o.get("unready").and_then(Value::as_object) else {
        return Handshake::Bad(format!("printed {} where it was to say it was ready", quote(&line)));
    };
    match text(unready.get("stage")).as_deref() {
        Some("function") => Handshake::NoFunction {
            wanted: text(unready.get("wanted")),
            functions: unready
                .get("functions")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(|f| text(Some(f))).collect())
                .unwrap_or_default(),
        },
        _ => Handshake::NotLoaded {
            error: text(unready.get("error")).unwrap_or_else(|| "it did not say why".to_owned()),
        },
    }
}

/// An error that is not a string, as the line has it.
fn e_json(line: &str) -> String {
    crate::visible::clip(line, QUOTED)
}

/// A line as a message quotes it: clipped, control characters shown.
fn quote(line: &str) -> String {
    format!("{:?}", visible(&crate::visible::clip(line, QUOTED), false))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str) -> Option<Line> {
        parse_line(line.as_bytes())
    }

    #[test]
    fn requests_are_json_lines() {
        let mut out = String::new();
        request(&mut out, "a:1", "line\n\"quoted\"\u{2028}\u{1b}");
        request(&mut out, "b", "");
        let lines: Vec<&str> = out.split_terminator('\n').collect();
        assert_eq!(lines[0], "{\"id\":\"a:1\",\"text\":\"line\\n\\\"quoted\\\"\u{2028}\\u001b\"}");
        assert_eq!(lines[1], r#"{"id":"b","text":""}"#);
        // What a reader's JSON.parse reads back is the text.
        let back = js::parse(lines[0]).unwrap();
        let text = back.as_object().and_then(|o| o.get("text")).and_then(Value::as_js_string).unwrap();
        assert_eq!(text.as_str(), Some("line\n\"quoted\"\u{2028}\u{1b}"));
    }

    #[test]
    fn answers_errors_and_what_is_neither() {
        let value = |v: &str| {
            Some(Line::Answer { id: JsString::from("r"), answer: Answer::Value(Some(js::parse(v).unwrap())) })
        };
        let nothing = Some(Line::Answer { id: JsString::from("r"), answer: Answer::Value(None) });
        assert_eq!(answer(r#"{"id":"r","value":{"a":[1,2]}}"#), value(r#"{"a":[1,2]}"#));
        // The last of duplicate keys, as JSON.parse keeps it.
        assert_eq!(answer(r#"{"id":"r","value":1,"value":2}"#), value("2"));
        assert_eq!(answer(r#"{"id":"r","value":null}"#), nothing);
        assert_eq!(answer(" {\"id\":\"r\"}\r\n"), nothing);
        assert_eq!(answer(r#"{"id":"r","error":null,"value":3}"#), value("3"));
        assert_eq!(
            answer(r#"{"id":"r","error":"bad escape"}"#),
            Some(Line::Answer { id: JsString::from("r"), answer: Answer::Threw("bad escape".to_owned()) })
        );
        let r = |answer| Some(Line::Answer { id: JsString::from("r"), answer });
        assert_eq!(answer(r#"{"id":"r","fail":"a cycle"}"#), r(Answer::Failed("a cycle".to_owned())));
        assert_eq!(answer(r#"{"id":"r","json":" [1] "}"#), r(Answer::Text(JsString::from(" [1] "))));
        assert_eq!(answer(r#"{"id":"r","json":null,"value":1}"#), value("1"));
        assert_eq!(
            answer(r#"{"id":"r","error":{"code":1}}"#),
            r(Answer::Threw(r#"{"id":"r","error":{"code":1}}"#.to_owned()))
        );
        assert_eq!(answer("  \n"), None);
        let bad = |l: &str| match answer(l) {
            Some(Line::Bad(why)) => why,
            other => panic!("{l:?}: {other:?}"),
        };
        assert!(bad("hello").starts_with("a line that is not JSON"), "{}", bad("hello"));
        assert!(bad("[1]").starts_with("JSON that is not an answer"));
        assert!(bad(r#"{"value":1}"#).starts_with("an answer with no \"id\""));
        assert!(bad(r#"{"id":7,"value":1}"#).starts_with("an answer with no \"id\""));
        assert!(parse_line(b"{\"id\":\"\xff\"}").is_some_and(|l| matches!(l, Line::Bad(w) if w.contains("not UTF-8"))));
        assert!(bad("\u{1b}[31mred").contains('␛'), "control characters are shown, not sent");
        assert!(bad(r#"{"id":"r","json":[1]}"#).contains("not a string"));
    }

    #[test]
    fn handshakes() {
        let h = |l: &str| parse_handshake(l.as_bytes());
        assert_eq!(
            h(r#"{"ready":{"function":"extractJson","how":"only"}}"#),
            Handshake::Ready { function: "extractJson".to_owned(), found: Some(Found::Only) }
        );
        assert_eq!(
            h(r#"{"ready":{"function":"extractJson"}}"#),
            Handshake::Ready { function: "extractJson".to_owned(), found: None }
        );
        assert_eq!(
            h(r#"{"unready":{"stage":"load","error":"SyntaxError: x"}}"#),
            Handshake::NotLoaded { error: "SyntaxError: x".to_owned() }
        );
        assert_eq!(
            h(r#"{"unready":{"stage":"function","wanted":null,"functions":["a","b"]}}"#),
            Handshake::NoFunction { wanted: None, functions: vec!["a".to_owned(), "b".to_owned()] }
        );
        assert!(matches!(h("hello"), Handshake::Bad(w) if w.contains("\"hello\"")));
        assert!(matches!(h(r#"{"id":"r"}"#), Handshake::Bad(_)));
    }
}
