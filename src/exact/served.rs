//! The served-result readers (seed 002 `leadingJsonValues`, `jsonPrefixOf`).
//!
//! `leading_json_values` reads the complete JSON values a text opens with (an MCP result's
//! blocks, a tool value with notes after it); `json_prefix_of` reads JSON cut short, token by
//! token, as far as it goes. Both count brackets of either kind together and skip strings by
//! their escapes, as the seed does, and treat only space, tab, LF and CR as whitespace.

use super::value::{JsString, Value, js_number_to_string};
use super::{js, lex};

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t')
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(|&b| is_space(b)) {
        at += 1;
    }
    at
}

/// The end of the bracketed value opening at `start` (brackets of both kinds counted
/// together, strings skipped), or `None` when the text ends first.
fn value_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut depth: i64 = 0;
    let mut in_string = false;
    let mut i = start;
    while i < bytes.len() {
        let ch = bytes[i];
        if in_string {
            if ch == b'\\' {
                i += 1;
            } else if ch == b'"' {
                in_string = false;
            }
        } else if ch == b'"' {
            in_string = true;
        } else if ch == b'{' || ch == b'[' {
            depth += 1;
        } else if ch == b'}' || ch == b']' {
            depth -= 1;
            if depth == 0 {
                return Some(i + 1);
            }
        }
        i += 1;
    }
    None
}

/// What `leadingJsonValues` returns.
#[derive(Debug, Clone, PartialEq)]
pub struct Leading<'a> {
    pub values: Vec<Value>,
    /// The text after the last value, from its first non-space character.
    pub rest: &'a str,
}

/// `leadingJsonValues(text)`.
pub fn leading_json_values(text: &str) -> Leading<'_> {
    let bytes = text.as_bytes();
    let mut values = Vec::new();
    let mut at = skip_space(bytes, 0);
    while let Some(b'{' | b'[') = bytes.get(at) {
        let Some(end) = value_end(bytes, at) else { break };
        let Ok(value) = js::parse(&text[at..end]) else { break };
        values.push(value);
        at = skip_space(bytes, end);
    }
    Leading { values, rest: &text[at..] }
}

/// What `jsonPrefixOf` returns for JSON cut short.
#[derive(Debug, Clone, PartialEq)]
pub struct Prefix {
    /// Complete leaves in order: keys and string values as strings, `true` / `false`, and
    /// numbers as JavaScript prints them.
    pub leaves: Vec<JsString>,
    /// The whole words of the string the text ends inside, if any.
    pub words: Option<JsString>,
}

const DELIMITERS: &[u8] = b"{}[],:\"";

/// `jsonPrefixOf(text)`: `None` where the seed returns `undefined`.
pub fn json_prefix_of(text: &str) -> Option<Prefix> {
    let bytes = text.as_bytes();
    let mut at = skip_space(bytes, 0);
    if !matches!(bytes.get(at), Some(b'{' | b'[')) {
        return None;
    }
    let mut leaves = Vec::new();
    let mut open: Vec<u8> = Vec::new();
    while at < bytes.len() {
        let ch = bytes[at];
        if is_space(ch) || ch == b',' || ch == b':' {
            at += 1;
        } else if ch == b'{' || ch == b'[' {
            open.push(if ch == b'{' { b'}' } else { b']' });
            at += 1;
        } else if ch == b'}' || ch == b']' {
            if open.pop() != Some(ch) || open.is_empty() {
                return None;
            }
            at += 1;
        } else if ch == b'"' {
            let Some(end) = string_end(bytes, at) else {
                // The text ends inside this string: its whole words are text, not a leaf.
                let words = whole_words_of(&text[at + 1..]);
                return Some(Prefix { leaves, words });
            };
            let JsonString(s) = parse_string(&text[at..end])?;
            leaves.push(s);
            at = end;
        } else {
            let mut end = at;
            while end < bytes.len() && !DELIMITERS.contains(&bytes[end]) && !is_space(bytes[end]) {
                end += 1;
            }
            let literal = &text[at..end];
            // Ends inside this literal: only the beginning of a JSON literal may be cut.
            if end == bytes.len() {
                return is_literal_start(literal).then_some(Prefix { leaves, words: None });
            }
            if literal == "true" || literal == "false" {
                leaves.push(JsString::from(literal));
            } else if is_json_number(literal) {
                let n: f64 = literal.parse().ok()?;
                leaves.push(JsString::from(js_number_to_string(n)));
            } else if literal != "null" {
                return None;
            }
            at = end;
        }
    }
    Some(Prefix { leaves, words: None })
}

struct JsonString(JsString);

/// `JSON.parse` of a string literal's text, or `None`.
fn parse_string(text: &str) -> Option<JsonString> {
    js::parse(text).ok()?.into_js_string().map(JsonString)
}

fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'"' => return Some(i + 1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// The body up to its last space, read as a JSON string; `None` when nothing is left but
/// the word the cut may have split, or it does not read.
fn whole_words_of(body: &str) -> Option<JsString> {
    let last_space = body.rfind(' ')?;
    let JsonString(words) = parse_string(&format!("\"{}\"", &body[..last_space]))?;
    let blank = match &words {
        JsString::Utf8(s) => lex::trim(s).is_empty(),
        // Lone surrogates are not whitespace, so such a string is never blank.
        JsString::Utf16(_) => false,
    };
    (!blank).then_some(words)
}

/// `/^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/`
fn is_json_number(s: &str) -> bool {
    super::lex::number_end(s.as_bytes(), 0) == Ok(s.len())
}

/// `/^-?(?:\d+(?:\.\d*)?(?:[eE][+-]?\d*)?)?$/`: the beginning of a number.
fn is_number_start(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let from = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - from
    };
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    if digits(&mut i) > 0 {
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
        if let Some(b'e' | b'E') = b.get(i) {
            i += 1;
            if let Some(b'+' | b'-') = b.get(i) {
                i += 1;
            }
            digits(&mut i);
        }
    }
    i == b.len()
}

fn is_literal_start(literal: &str) -> bool {
    "true".starts_with(literal)
        || "false".starts_with(literal)
        || "null".starts_with(literal)
        || is_number_start(literal)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaves(p: &Prefix) -> Vec<String> {
        p.leaves.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn leading_values_and_the_rest() {
        let l = leading_json_values("{\"id\":4417}\n{\"id\":2210}\n\n[identical call: …]");
        assert_eq!(l.values.len(), 2);
        assert_eq!(l.rest, "[identical call: …]");
        assert!(leading_json_values("plain").values.is_empty());
    }

    #[test]
    fn prefix_reads_leaves_and_words() {
        let p = json_prefix_of(r#"{"hosts":[{"id":4417,"up":true},{"id":22"#).unwrap();
        assert_eq!(leaves(&p), ["hosts", "id", "4417", "up", "true", "id"]);
        let p = json_prefix_of(r#"{"id":4417,"msg":"disk full on host-7 and mo"#).unwrap();
        assert_eq!(leaves(&p), ["id", "4417", "msg"]);
        assert_eq!(p.words.unwrap().to_string(), "disk full on host-7 and");
        assert!(json_prefix_of("[INFO] x").is_none());
        assert!(json_prefix_of("{level=info").is_none());
        assert!(json_prefix_of(r#"{"a":1}"#).is_none());
        assert_eq!(leaves(&json_prefix_of("[1e400, -0, 1.50,").unwrap()), ["Infinity", "0", "1.5"]);
    }

    #[test]
    fn number_grammars() {
        for s in ["0", "-1.5e+3", "10"] {
            assert!(is_json_number(s), "{s}");
        }
        for s in ["01", "1.", "-", "+1", ".5", "1e"] {
            assert!(!is_json_number(s), "{s}");
        }
        for s in ["", "-", "1.", "1.5e", "1.5e-", "12e+3"] {
            assert!(is_number_start(s), "{s:?}");
        }
        for s in ["x", "1x", "-.5", ".", "e5"] {
            assert!(!is_number_start(s), "{s:?}");
        }
    }
}
