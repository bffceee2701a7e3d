//! How long one string member of a JSON object is, read from its text.
//!
//! A scan measures each page it delivers: the characters of its answer's `html` string. Where
//! the answer is JSON as it stands (a strict reading, or the whole reply), building its value
//! to measure one string copies every string and container of it, and on the replies where
//! every reader agrees nothing else needs that value. The text says the same: its members
//! are stepped over by their brackets and quotes (the text is known to be JSON), and the
//! string is counted where it stands, its escapes decoded as they are counted.

use super::js;
use super::lex::{next_string_special, past_json_whitespace as whitespace, scalar_end};

/// What `JSON.parse(json)[key]` is, measured: the characters (code points, a lone surrogate
/// counting as one, as [`super::value::JsString::char_len`] counts) of the string it is,
/// where `json` is an object whose member `key` is a string. The last member of that name
/// stands, as it does in the value. `json` must be JSON (a reading the strict rule read):
/// text that is not is measured as nothing, or as the JSON it starts with.
pub fn string_member_chars(json: &str, key: &str) -> Option<usize> {
    let bytes = json.as_bytes();
    let mut i = whitespace(bytes, 0);
    if bytes.get(i) != Some(&b'{') {
        return None;
    }
    i = whitespace(bytes, i + 1);
    if bytes.get(i) == Some(&b'}') {
        return None;
    }
    // The last member named `key`: its string's characters, or `None` where it is no string.
    let mut found = None;
    loop {
        let key_end = string_end(bytes, i)?;
        let named = is_key(json, i, key_end, key);
        i = whitespace(bytes, key_end);
        if bytes.get(i) != Some(&b':') {
            return None;
        }
        let value = whitespace(bytes, i + 1);
        // The named string is measured as it is passed: one pass over a page, not two.
        let value_end = match (named, bytes.get(value)) {
            (true, Some(b'"')) => {
                let (end, chars) = string_measured(json, value)?;
                found = Some(Some(chars));
                end
            }
            (true, _) => {
                found = Some(None);
                value_end(bytes, value)?
            }
            (false, _) => value_end(bytes, value)?,
        };
        i = whitespace(bytes, value_end);
        match bytes.get(i) {
            Some(b',') => i = whitespace(bytes, i + 1),
            Some(b'}') => return found.flatten(),
            _ => return None,
        }
    }
}

/// Just past the string whose opening quote is at `i`.
fn string_end(bytes: &[u8], i: usize) -> Option<usize> {
    if bytes.get(i) != Some(&b'"') {
        return None;
    }
    let mut at = next_string_special(bytes, i + 1);
    loop {
        match bytes.get(at)? {
            b'"' => return Some(at + 1),
            // An escape: two bytes (a `\u` escape's four digits hold no quote or backslash).
            b'\\' => at = next_string_special(bytes, at + 2),
            // A control character, which JSON does not hold in a string.
            _ => return None,
        }
    }
}

/// Just past the value at `i`.
fn value_end(bytes: &[u8], i: usize) -> Option<usize> {
    match bytes.get(i)? {
        b'"' => string_end(bytes, i),
        b'{' | b'[' => past_container(bytes, i),
        _ => scalar_end(bytes, i).ok(),
    }
}

/// Just past the container whose bracket is at `i`, in text that is JSON there: its brackets
/// counted, its strings stepped over.
pub(crate) fn past_container(bytes: &[u8], mut i: usize) -> Option<usize> {
    let mut depth = 0usize;
    loop {
        match *bytes.get(i)? {
            b'"' => {
                i = next_string_special(bytes, i + 1);
                while *bytes.get(i)? != b'"' {
                    // An escape, two bytes (JSON holds no control character in a string).
                    i = next_string_special(bytes, i + 2);
                }
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// Whether the key string at `open..end` (its quotes included) is `key`: compared as it
/// stands, or decoded where it holds an escape (`"\u0068tml"` is `html`).
fn is_key(json: &str, open: usize, end: usize, key: &str) -> bool {
    let Some(raw) = json.get(open + 1..end - 1) else { return false };
    if !raw.contains('\\') {
        return raw == key;
    }
    match json.get(open..end).map(js::parse) {
        Some(Ok(value)) => value.as_js_string().and_then(|s| s.as_str()) == Some(key),
        _ => false,
    }
}

/// Just past the JSON string whose opening quote is at `open`, and its characters, decoded
/// as counted: an escape is one character, but for a `\u` escape of a high surrogate followed
/// at once by one of a low surrogate, which together are one.
fn string_measured(json: &str, open: usize) -> Option<(usize, usize)> {
    let bytes = json.as_bytes();
    let mut chars = 0;
    let mut at = open + 1;
    // The escape just counted was a high surrogate's `\u`, ending here.
    let mut high_ends = None;
    loop {
        let special = next_string_special(bytes, at);
        chars += json.get(at..special).map_or(0, |run| run.chars().count());
        match bytes.get(special)? {
            b'"' => return Some((special + 1, chars)),
            b'\\' if bytes.get(special + 1) == Some(&b'u') => {
                let unit =
                    json.get(special + 2..special + 6).and_then(|h| u16::from_str_radix(h, 16).ok()).unwrap_or(0);
                let pairs = high_ends == Some(special) && (0xDC00..0xE000).contains(&unit);
                if !pairs {
                    chars += 1;
                }
                high_ends = ((0xD800..0xDC00).contains(&unit) && !pairs).then_some(special + 6);
                at = special + 6;
            }
            b'\\' => {
                chars += 1;
                high_ends = None;
                at = special + 2;
            }
            // A control character, which JSON does not hold in a string.
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::value::Value;

    /// What building the value says: the member's string's characters, the last member of
    /// the name standing.
    fn built(json: &str, key: &str) -> Option<usize> {
        match &js::parse(json).ok()? {
            Value::Object(o) => match o.get(key)? {
                Value::String(s) => Some(s.char_len()),
                _ => None,
            },
            _ => None,
        }
    }

    #[test]
    fn a_member_is_measured_where_it_stands() {
        for json in [
            r#"{"html": "<p>hi</p>", "log": "ok"}"#,
            r#" { "log" : [1, {"html": "no"}, "]"] , "html" : "a\"b\\c\nd" } "#,
            r#"{"html": "first", "html": "second one"}"#,
            r#"{"html": "a string", "html": 3}"#,
            r#"{"html": null}"#,
            r#"{"\u0068tml": "escaped key", "html\u0000": "other key"}"#,
            r#"{"html": "\ud83d\ude00 pair, \ud83d lone, \ude00 lone, \ud83d\u0041 not a pair, 😀 raw"}"#,
            r#"{"html": "\ud83d\ud83d\ude00"}"#,
            r#"{}"#,
            r#"[{"html": "x"}]"#,
            r#""html""#,
            r#"{"a": {"b": ["{", "}", "\\"]}, "html": "é\u00e9", "c": -1.5e3, "d": true}"#,
        ] {
            assert_eq!(string_member_chars(json, "html"), built(json, "html"), "{json}");
        }
    }

    proptest::proptest! {
        /// Any JSON object, written compact or spaced out: the member's string measured from
        /// the text is the one measured in the value.
        #[test]
        fn measured_from_the_text_as_in_the_value(
            members in proptest::collection::vec(
                (
                    proptest::sample::select(vec!["html", "log", "h\\u0074ml", "x"]),
                    proptest::sample::select(vec![
                        "\"\"", "\"plain\"", "\"a\\\"b\\\\c\\/d\\n\"", "\"\\ud83d\\ude00\\ud83d\"", "\"é😀\"",
                        "1", "-2.5e-3", "true", "null", "[]", "{\"html\": \"in\"}", "[\"]\", {\"}\": 1}]",
                    ]),
                ),
                0..6,
            ),
            spaced in proptest::bool::ANY,
        ) {
            let sep = if spaced { " \n" } else { "" };
            let body: Vec<String> = members.iter().map(|(k, v)| format!("{sep}\"{k}\"{sep}:{sep}{v}{sep}")).collect();
            let json = format!("{{{}}}", body.join(","));
            proptest::prop_assert_eq!(string_member_chars(&json, "html"), built(&json, "html"), "{}", json);
        }
    }
}
