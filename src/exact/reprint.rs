//! `JSON.stringify(JSON.parse(json))` written straight from the JSON, without the value.
//!
//! A batch prints most answers as they stand in the reply: a strict reading's text is JSON,
//! and what `JSON.stringify` makes of its value is that text less its whitespace, with
//! every string as it was (a string's escapes in JSON are the ones `JSON.stringify` writes,
//! but for `\/`, written `/`), and every number as JavaScript prints it. Building the value
//! to print it costs an allocation per string and container and a second pass over each.
//!
//! What the text does not say by itself is left to the value: an object with a key that is
//! an array index (JavaScript lists those first) or a key twice (the last value stands, in
//! the first one's place), a key with an escape (which key it is takes decoding), a `\u`
//! escape. [`reprint`] then writes nothing and says so, and the caller prints the value.

use super::lex::{next_string_special, number_end};
use super::value::js_number_to_string;

/// Keys an object may have and still be checked for repeats one by one.
const KEYS: usize = 32;

/// Appends `JSON.stringify(JSON.parse(&text[start..end]))` to `out`, for a text known to be
/// JSON; `false`, with nothing appended, where the value must be built to know it.
pub fn reprint(text: &str, start: usize, end: usize, out: &mut String) -> bool {
    let opened = out.len();
    let done = write(text, start, end, out).is_some();
    if !done {
        out.truncate(opened);
    }
    done
}

/// `None` where the value is needed.
fn write(text: &str, start: usize, end: usize, out: &mut String) -> Option<()> {
    let bytes = text.as_bytes().get(..end)?;
    // The keys of every open object, each object's from its frame's mark; `None` marks an
    // array.
    let mut keys: Vec<&str> = Vec::new();
    let mut frames: Vec<Option<usize>> = Vec::new();
    let mut key_next = false;
    let mut i = start;
    while let Some(&b) = bytes.get(i) {
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'{' | b'[' => {
                frames.push((b == b'{').then_some(keys.len()));
                key_next = b == b'{';
                out.push(char::from(b));
                i += 1;
            }
            b'}' | b']' => {
                if let Some(Some(mark)) = frames.pop() {
                    keys.truncate(mark);
                }
                key_next = false;
                out.push(char::from(b));
                i += 1;
            }
            b',' => {
                key_next = matches!(frames.last(), Some(Some(_)));
                out.push(',');
                i += 1;
            }
            b':' => {
                out.push(':');
                i += 1;
            }
            b'"' if key_next => {
                let close = next_string_special(bytes, i + 1);
                if bytes.get(close) != Some(&b'"') {
                    return None;
                }
                let key = text.get(i + 1..close)?;
                let mark = frames.last().copied().flatten()?;
                let own = keys.get(mark..)?;
                if key.bytes().next().is_some_and(|c| c.is_ascii_digit()) || own.len() >= KEYS || own.contains(&key) {
                    return None;
                }
                keys.push(key);
                out.push_str(text.get(i..=close)?);
                key_next = false;
                i = close + 1;
            }
            b'"' => i = string(text, i, out)?,
            b't' | b'f' | b'n' => {
                let word: &str = match b {
                    b't' => "true",
                    b'f' => "false",
                    _ => "null",
                };
                out.push_str(word);
                i += word.len();
            }
            _ => {
                let stop = number_end(bytes, i).ok()?;
                write_number(text.get(i..stop)?, out)?;
                i = stop;
            }
        }
    }
    frames.is_empty().then_some(())
}

/// Writes the JSON number `number` as `JSON.stringify` prints its value.
pub(crate) fn write_number(number: &str, out: &mut String) -> Option<()> {
    // An integer of up to 15 digits is a double exactly, printed as written.
    let digits = number.strip_prefix('-').unwrap_or(number);
    if digits.len() <= 15
        && digits.bytes().all(|c| c.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
        && number != "-0"
    {
        out.push_str(number);
    } else {
        let n: f64 = number.parse().ok()?;
        out.push_str(&if n.is_finite() { js_number_to_string(n) } else { "null".to_owned() });
    }
    Some(())
}

/// A string value from its opening quote at `at`, written as `JSON.stringify` writes it:
/// where it ends.
fn string(text: &str, at: usize, out: &mut String) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut run = at;
    let mut i = at + 1;
    loop {
        i = next_string_special(bytes, i);
        match (bytes.get(i), bytes.get(i + 1)) {
            (Some(b'"'), _) => {
                out.push_str(text.get(run..=i)?);
                return Some(i + 1);
            }
            (Some(b'\\'), Some(b'/')) => {
                out.push_str(text.get(run..i)?);
                out.push('/');
                i += 2;
                run = i;
            }
            (Some(b'\\'), Some(b'u')) => return None,
            (Some(b'\\'), Some(_)) => {
                // Escapes in a row (`\"` by the page) are passed two bytes at a time, where a
                // search for the next would cost more than the bytes it passes over.
                i += 2;
                while let (Some(b'\\'), Some(&e)) = (bytes.get(i), bytes.get(i + 1))
                    && e != b'/'
                    && e != b'u'
                {
                    i += 2;
                }
            }
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::js;

    fn same(json: &str) {
        let mut out = String::from("before ");
        let want = js::parse(json).unwrap().to_json();
        if reprint(json, 0, json.len(), &mut out) {
            assert_eq!(out, format!("before {want}"), "{json}");
        } else {
            assert_eq!(out, "before ", "{json}");
        }
    }

    #[test]
    fn reprinted_json_is_what_stringify_prints_of_its_value() {
        for json in [
            r#" { "a" : [1, -2, 0, -0, 1.50, 1e3, 12345678901234567890, 1e400, true, false, null] , "b": {} } "#,
            r#"{"html": "<p class=\"x\">a\nb\\c\/d é 😀</p>", "e": [[], [{}], {"x": [ ]}]}"#,
            r#"[ "a", "\u00e9", {"k": "v"} ]"#,
            r#"{"1": 1, "a": 2}"#,
            r#"{"a": 1, "a": 2}"#,
            r#"{"a\"b": 1}"#,
            r#""just a string""#,
            "  42 ",
            r#"{"a": {"b": 1}, "b": {"a": 1, "b": 2}}"#,
            r#"{"a": [{"a": 1}, {"a": 2}]}"#,
        ] {
            same(json);
        }
    }

    proptest::proptest! {
        /// Strings of escapes in a row, every kind beside every other, and plain text between:
        /// reprinted as their value prints.
        #[test]
        fn escapes_in_a_row_reprint_as_their_value_prints(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![r#"\""#, r#"\\"#, r#"\/"#, r#"\n"#, r#"\t"#, "a", "é", " "]),
                0..80,
            ),
        ) {
            let body = pieces.concat();
            same(&format!(r#"{{"k": "{body}", "l": ["{body}", "x{body}"]}}"#));
        }
    }

    #[test]
    fn what_it_leaves_to_the_value_it_says_so() {
        for json in [r#"{"0": 1}"#, r#"{"a": 1, "a": 2}"#, r#"{"\u0061": 1}"#, r#"["\u00e9"]"#] {
            let mut out = String::new();
            assert!(!reprint(json, 0, json.len(), &mut out), "{json}");
            assert!(out.is_empty());
        }
        let many: String = format!("{{{}}}", (0..40).map(|i| format!("\"k{i}\": {i}")).collect::<Vec<_>>().join(","));
        assert!(!reprint(&many, 0, many.len(), &mut String::new()));
        same(&many);
    }
}
