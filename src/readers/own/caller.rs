//! How the caller of an extractor reads what it returned: one rule for every language, applied
//! here, so that a JavaScript and a Python extractor returning the same thing are read alike.
//!
//! A returned value is the reading and `null` is nothing; a returned string is JSON text the
//! caller parses (with `JSON.parse`'s rules, [`js::parse`]): its parse is the reading, and
//! text that does not parse is nothing read, kept for display; a throw is nothing read,
//! counted as such. Every reading is taken as JSON text carries it (`JSON.stringify`'s view,
//! [`json_view`]: a number that is not finite inside a value is `null`), as the built-in
//! readers' answers are when they are compared with it; a reading that is such a number
//! alone, which JSON would make nothing of, fails the reply, with the reason. Callers that
//! read otherwise say so after `?` in the spec:
//!
//! * `unwrap=/json/pointer`: the reading is what the pointer finds in the value (absent:
//!   nothing read), for an extractor that wraps its answer (`{"ok": true, "data": …}`);
//! * `nothing=JSON`: this value means nothing read (`nothing={}`);
//! * `strings=value`: a returned string is a value, not JSON text;
//! * `throws=fail`: a throw is a failure, not nothing read.
//!
//! Options are joined with `&` (`?unwrap=/data&nothing={}`).

use std::sync::Arc;

use crate::exact::js;
use crate::exact::value::{JsString, Value};
use crate::readers::given::{Given, changes_in_json, json_view};

use crate::readers::error::OptionError;
use crate::readers::protocol::Answer;

/// What a returned string is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Strings {
    /// JSON text the caller parses.
    #[default]
    Json,
    /// A value in its own right.
    Value,
}

/// What a throw is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Throws {
    /// Nothing read, counted as a throw.
    #[default]
    Nothing,
    /// A failure of the reply.
    Fail,
}

/// How the caller reads a reader's answers: the options of its spec.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Caller {
    /// A JSON pointer into the returned value, split into its tokens, unescaped.
    pub unwrap: Option<Vec<String>>,
    /// The returned value that means nothing read.
    pub nothing: Option<Value>,
    pub strings: Strings,
    pub throws: Throws,
}

// A `nothing` value comes from JSON text, which holds no NaN: equality is total.
impl Eq for Caller {}

// Equal callers hash alike: every part but the `nothing` value's contents (a value is not
// hashed; that it is there is).
impl std::hash::Hash for Caller {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.unwrap.hash(state);
        self.nothing.is_some().hash(state);
        self.strings.hash(state);
        self.throws.hash(state);
    }
}

impl Caller {
    /// The options after `?`: `key=value` joined by `&`. A `&` that does not start a
    /// known option belongs to the value before it (`nothing={"a":"b&c"}`).
    pub fn parse(options: &str) -> Result<Caller, OptionError> {
        let mut caller = Caller::default();
        let mut parts: Vec<String> = Vec::new();
        for piece in options.split('&') {
            let starts_option = ["unwrap=", "nothing=", "strings=", "throws="].iter().any(|k| piece.starts_with(k));
            match parts.last_mut() {
                Some(last) if !starts_option => {
                    last.push('&');
                    last.push_str(piece);
                }
                _ => parts.push(piece.to_owned()),
            }
        }
        for part in parts.iter().filter(|p| !p.is_empty()) {
            let Some((key, value)) = part.split_once('=') else {
                return Err(OptionError::NotAnOption { part: part.clone() });
            };
            match (key, value) {
                ("unwrap", p) => caller.unwrap = Some(pointer(p)?),
                ("nothing", v) => {
                    let value =
                        js::parse(v).map_err(|e| OptionError::NotJson { given: v.to_owned(), why: e.to_string() })?;
                    caller.nothing = Some(value);
                }
                ("strings", "value") => caller.strings = Strings::Value,
                ("strings", "json") => caller.strings = Strings::Json,
                ("throws", "fail") => caller.throws = Throws::Fail,
                ("throws", "nothing") => caller.throws = Throws::Nothing,
                ("strings" | "throws", v) => {
                    return Err(OptionError::BadValue { key: key.to_owned(), given: v.to_owned() });
                }
                _ => return Err(OptionError::Unknown { key: key.to_owned() }),
            }
        }
        Ok(caller)
    }

    /// What the caller holds of one answer.
    pub fn read(&self, answer: Answer) -> Given {
        let value = match answer {
            Answer::Threw(message) => {
                let message = Arc::from(crate::visible::clip(&message, 500));
                return match self.throws {
                    Throws::Nothing => Given::Threw(message),
                    Throws::Fail => Given::Failed(Arc::from(format!("threw: {message}"))),
                };
            }
            Answer::Failed(why) => return Given::Failed(Arc::from(crate::visible::clip(&why, 500))),
            Answer::Value(value) => value,
            Answer::Text(text) => match self.strings {
                Strings::Value => Some(Value::String(text)),
                Strings::Json => match parse_text(&text) {
                    Some(v) => Some(v),
                    None => return Given::not_json(&text.to_string_lossy()),
                },
            },
        };
        let value = match (&self.unwrap, value) {
            (Some(tokens), Some(v)) => at_pointer(v, tokens),
            (_, v) => v,
        };
        // A number that is not finite, alone, is what JSON cannot carry: JSON.stringify would
        // make `null`, nothing read, of it. Said, never nothing.
        if let Some(Value::Number(n)) = &value
            && !n.is_finite()
        {
            let name = if n.is_nan() {
                "NaN"
            } else if *n > 0.0 {
                "Infinity"
            } else {
                "-Infinity"
            };
            return Given::Failed(Arc::from(format!("its answer is {name}, which JSON cannot carry")));
        }
        // JSON.stringify's view, as every answer that arrives as JSON text is: a number that
        // is not finite inside a value (`[1e400]` parsed) is `null`.
        let value = match value {
            Some(v) if changes_in_json(&v) => json_view(&v),
            v => v,
        };
        match value {
            Some(v) if self.nothing.as_ref() == Some(&v) => Given::Nothing,
            v => Given::from_value(v),
        }
    }
}

/// `JSON.parse(text)`. A lone surrogate can stand in JSON text only inside a string, where
/// its `\u` escape stands for the same unit, and is an error anywhere else, as a backslash
/// is: so the text with its lone surrogates escaped parses as the text would.
fn parse_text(text: &JsString) -> Option<Value> {
    match text {
        JsString::Utf8(s) => js::parse(s).ok(),
        JsString::Utf16(units) => {
            let mut escaped = String::with_capacity(units.len());
            for unit in char::decode_utf16(units.iter().copied()) {
                match unit {
                    Ok(c) => escaped.push(c),
                    Err(lone) => escaped.push_str(&format!("\\u{:04x}", lone.unpaired_surrogate())),
                }
            }
            js::parse(&escaped).ok()
        }
    }
}

/// A JSON pointer's tokens (RFC 6901): `""` is the whole value, else `/` then tokens with
/// `~1` for `/` and `~0` for `~`.
fn pointer(p: &str) -> Result<Vec<String>, OptionError> {
    if p.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = p.strip_prefix('/') else {
        return Err(OptionError::NotAPointer { pointer: p.to_owned() });
    };
    Ok(rest.split('/').map(|t| t.replace("~1", "/").replace("~0", "~")).collect())
}

/// What the pointer finds in `value`: an object's member, an array's entry by its index in
/// decimal; `None` where there is none.
fn at_pointer(mut value: Value, tokens: &[String]) -> Option<Value> {
    for token in tokens {
        let next = match &mut value {
            Value::Object(o) => o.remove(token)?,
            Value::Array(a) => {
                let canonical = token == "0" || (!token.starts_with('0') && token.bytes().all(|b| b.is_ascii_digit()));
                let i: usize = token.parse().ok().filter(|_| canonical)?;
                std::mem::replace(a.get_mut(i)?, Value::Null)
            }
            _ => return None,
        };
        value = next;
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(json: &str) -> Value {
        js::parse(json).unwrap()
    }

    fn read(options: &str, answer: Answer) -> Given {
        Caller::parse(options).unwrap().read(answer)
    }

    fn text(s: &str) -> Answer {
        Answer::Text(JsString::from(s))
    }

    #[test]
    fn a_returned_string_is_json_text_the_caller_parses() {
        assert_eq!(read("", text(r#" {"a": [1, 2]} "#)), Given::Read(value(r#"{"a":[1,2]}"#)));
        assert_eq!(read("", text("null")), Given::Nothing);
        // What JSON text carries: Infinity is `null` inside a value; alone, it is said.
        assert_eq!(
            read("", text("1e400")),
            Given::Failed(Arc::from("its answer is Infinity, which JSON cannot carry"))
        );
        assert_eq!(read("", text("-1e400")).failure(), Some("its answer is -Infinity, which JSON cannot carry"));
        assert_eq!(read("unwrap=/x", text(r#"{"x": 1e400}"#)).outcome(), crate::readers::Outcome::Failed);
        assert_eq!(read("", text("[1e400, 1]")), Given::Read(value("[null,1]")));
        assert_eq!(read("", text("Sure! {\"a\": 1}")), Given::NotJson(Arc::from("Sure! {\"a\": 1}")));
        // JSON.parse's whitespace, not JavaScript's: U+FEFF is not JSON.
        assert!(matches!(read("", text("\u{feff}[1]")), Given::NotJson(_)));
        assert_eq!(read("strings=value", text("[1]")), Given::Read(Value::String(JsString::from("[1]"))));
        // A lone surrogate inside a string survives; outside one it is not JSON.
        let lone = JsString::from_utf16(vec![u16::from(b'"'), 0xd800, u16::from(b'"')]);
        assert_eq!(read("", Answer::Text(lone)), Given::Read(value(r#""\ud800""#)));
        let bare = JsString::from_utf16(vec![0xd800]);
        assert!(matches!(read("", Answer::Text(bare)), Given::NotJson(_)));
    }

    #[test]
    fn throws_values_and_the_options() {
        assert_eq!(read("", Answer::Threw("Error: no".into())), Given::Threw(Arc::from("Error: no")));
        assert_eq!(
            read("throws=fail", Answer::Threw("Error: no".into())),
            Given::Failed(Arc::from("threw: Error: no"))
        );
        assert_eq!(read("", Answer::Value(None)), Given::Nothing);
        let wrapped = || Answer::Value(Some(value(r#"{"ok":true,"data":{"a/b":[0,{"x":1}]}}"#)));
        assert_eq!(read("unwrap=/data/a~1b/1/x", wrapped()), Given::Read(Value::Number(1.0)));
        assert_eq!(read("unwrap=/data/a~1b/01", wrapped()), Given::Nothing, "not an index");
        assert_eq!(read("unwrap=/missing", wrapped()), Given::Nothing);
        assert_eq!(read("unwrap=", wrapped()), read("", wrapped()));
        // The pointer reads the parse of a returned string.
        assert_eq!(read("unwrap=/data", text(r#"{"data": [1]}"#)), Given::Read(value("[1]")));
        assert_eq!(read("nothing={}", Answer::Value(Some(value("{}")))), Given::Nothing);
        assert_eq!(read("nothing={}", Answer::Value(Some(value(r#"{"a":1}"#)))), Given::Read(value(r#"{"a":1}"#)));
        assert_eq!(read("nothing={}", text(" {} ")), Given::Nothing);
        assert_eq!(read("unwrap=/data&nothing=[]", Answer::Value(Some(value(r#"{"data":[]}"#)))), Given::Nothing);
        let c = Caller::parse(r#"nothing={"a":"b&c"}&strings=value"#).unwrap();
        assert_eq!((c.nothing, c.strings), (Some(value(r#"{"a":"b&c"}"#)), Strings::Value));
    }

    #[test]
    fn bad_options_say_what_they_take() {
        let e = |options: &str| Caller::parse(options).unwrap_err().to_string();
        assert_eq!(e("unwrap=data"), "unwrap=data: not a JSON pointer (they start with /)");
        assert!(e("nothing={").starts_with("nothing={: not JSON ("), "{}", e("nothing={"));
        assert_eq!(e("strings=text"), "strings=text: strings takes value or json");
        assert_eq!(e("throws=yes"), "throws=yes: throws takes fail or nothing");
        assert!(e("throw=fail").starts_with("unknown option \"throw\"; the options are unwrap=/POINTER"));
        assert!(e("unwrap").starts_with("\"unwrap\" is not an option; the options are"));
    }
}
