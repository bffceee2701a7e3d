//! `readArrayPrefix`: the complete entries of a cut-off array field, what a reply cut off
//! inside `"edits": [` still yields.

use std::ops::Range;

use crate::exact::lex;
use crate::exact::member::past_container;
use crate::exact::value::Value;

use super::options::Readings;
use super::{Readers, read_object_at};

/// `readArrayPrefix(text, field)`: the complete entries of the LAST `"field": [` array in
/// the reply, and whether its `]` was reached.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayPrefix {
    pub entries: Vec<Value>,
    pub closed: bool,
    /// Byte offset just past the array's `[`.
    pub open: usize,
}

pub fn read_array_prefix(text: &str, field: &str) -> Option<ArrayPrefix> {
    let open = last_array_key(text, field)?;
    let mut entries = Vec::new();
    let closed = entries_of(text, open, &mut |i| {
        let (v, end) = read_object_at(text, i)?;
        entries.push(v);
        Some(end)
    });
    Some(ArrayPrefix { entries, closed, open })
}

/// How many complete entries [`read_array_prefix`] recovers, and whether the `]` was
/// reached, without building them.
pub fn count_array_prefix(text: &str, field: &str) -> Option<(usize, bool)> {
    // One set of readers for every entry: what reading one learned of the text (a string
    // that never closes, above all) the next need not learn again.
    count_array_prefix_with(&mut Readers::new(text), field)
}

/// [`count_array_prefix`] of the array that opens just before `open`.
fn count_from(readers: &mut Readers, open: usize) -> (usize, bool) {
    let text = readers.text;
    let mut n = 0;
    let closed = entries_of(text, open, &mut |i| {
        // Most entries a walk before read strictly (strict-only's descends into the answer),
        // or the narrow reading of the whole reply told.
        let end = match readers.known_strictly(i) {
            Some(end) => end,
            None => readers.read(i, Readings::StrictThenWide)?.0,
        };
        n += 1;
        Some(end)
    });
    (n, closed)
}

/// [`count_array_prefix`] read with `readers`, and what they learned of the text before.
pub(super) fn count_array_prefix_with(readers: &mut Readers, field: &str) -> Option<(usize, bool)> {
    let open = last_array_key(readers.text, field)?;
    Some(count_from(readers, open))
}

/// [`count_array_prefix`] of a reply known to be JSON as it stands over `json` (a span its
/// strict reading read, or the whole reply where `JSON.parse` read it): where the array lies in
/// that span, its entries are stepped over by their brackets instead of read.
///
/// That is the same count. In JSON every quote not escaped opens or closes a string, and one
/// that closes is followed by `,` `:` `}` `]` or whitespace, never by a letter: the quote of a
/// `"field"` the search finds (it passes over one after a backslash) opens the key of an array,
/// which closes within the span. Between its entries JSON allows only commas and JSON's
/// whitespace, and an entry that is an object reads strictly, to its closing brace.
pub fn count_array_prefix_within(text: &str, field: &str, json: Range<usize>) -> Option<(usize, bool)> {
    let open = last_array_key(text, field)?;
    // The `[` lies in the span (the key's quote then does too: the span opens with a bracket).
    if !(json.start < open && open <= json.end) {
        return Some(count_from(&mut Readers::new(text), open));
    }
    let mut n = 0;
    let closed = entries_of(text, open, &mut |i| {
        n += 1;
        past_container(text.as_bytes(), i)
    });
    Some((n, closed))
}

/// The entries of the array whose `[` is just before `open` (the last `"field": [`), each
/// handed to `entry` at its `{` (which reads it and says where it ends, or `None` where it
/// does not read): whether its `]` was reached.
fn entries_of(text: &str, open: usize, entry: &mut dyn FnMut(usize) -> Option<usize>) -> bool {
    let bytes = text.as_bytes();
    let mut i = open;
    loop {
        while i < bytes.len() {
            if bytes[i] == b',' {
                i += 1;
            } else if let Some(n) = lex::whitespace_len_at(text, i) {
                i += n;
            } else {
                break;
            }
        }
        // A `]` is the list the model finished; anything else that is not an entry is where
        // reading stops, the cut itself or a shape this cannot use.
        if bytes.get(i) != Some(&b'{') {
            return bytes.get(i) == Some(&b']');
        }
        match entry(i) {
            None => return false,
            Some(end) => i = end,
        }
    }
}

/// The offset just past the `[` of the last match of `"field"\s*:\s*\[` (matches taken left
/// to right without overlap, as a global regex does) not preceded by a backslash.
///
/// For a field named by letters, digits, `_` and `-`, two matches cannot overlap (one could
/// begin inside another only at a quote, and a match's quotes are its key's), so the last is
/// the last place the pattern matches at all: found from the reply's end, at its `[`, which
/// prose seldom holds, instead of by a search for the key over the whole reply.
fn last_array_key(text: &str, field: &str) -> Option<usize> {
    if field.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        last_array_key_from_the_end(text, field)
    } else {
        last_array_key_in_order(text, field)
    }
}

/// [`last_array_key`] read backwards from each `[`, the last first.
fn last_array_key_from_the_end(text: &str, field: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let needle = format!("\"{field}\"");
    memchr::memrchr_iter(b'[', bytes).find_map(|bracket| {
        let colon = lex::whitespace_start_before(text, bracket).checked_sub(1)?;
        if bytes[colon] != b':' {
            return None;
        }
        let close = lex::whitespace_start_before(text, colon);
        let at = close.checked_sub(needle.len())?;
        let matched = &bytes[at..close] == needle.as_bytes() && (at == 0 || bytes[at - 1] != b'\\');
        matched.then_some(bracket + 1)
    })
}

/// [`last_array_key`], every match of the key searched for in order.
fn last_array_key_in_order(text: &str, field: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let needle = format!("\"{field}\"");
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    let mut open = None;
    let mut from = 0;
    while let Some(found) = bytes.get(from..).and_then(|t| finder.find(t)) {
        let at = from + found;
        let mut j = at + needle.len();
        let skip_ws = |j: &mut usize| {
            while let Some(n) = lex::whitespace_len_at(text, *j) {
                *j += n;
            }
        };
        skip_ws(&mut j);
        let matched = bytes.get(j) == Some(&b':') && {
            j += 1;
            skip_ws(&mut j);
            bytes.get(j) == Some(&b'[')
        };
        if matched {
            if at == 0 || bytes[at - 1] != b'\\' {
                open = Some(j + 1);
            }
            from = j + 1;
        } else {
            from = at + 1;
        }
    }
    open
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]
        /// The last `"field": [` found from the end is the one found in order, whatever the
        /// keys, colons, brackets, backslashes and whitespace (JavaScript's, some of it wider
        /// than a byte, or bytes that only look like it) around it.
        #[test]
        fn the_last_array_key_from_the_end_is_the_last_in_order(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    "\"edits\"", "\"edits\"", "\"edit\"", "edits\"", ":", "[", "[", " ", "\n", "\u{a0}", "\u{2028}",
                    "\u{3000}", "\u{85}", "\\", "\"", "e", "é", "]", "{", "\u{feff}", "\u{200b}",
                ]),
                0..40,
            ),
        ) {
            let text = pieces.concat();
            proptest::prop_assert_eq!(
                last_array_key_from_the_end(&text, "edits"),
                last_array_key_in_order(&text, "edits"),
                "{:?}", text
            );
        }
    }

    #[test]
    fn array_prefix_reads_the_entries_that_arrived() {
        let t = r#"{"edits":[{"a":1},{"b":2},{"c":"#;
        let p = read_array_prefix(t, "edits").unwrap();
        assert_eq!(p.entries.len(), 2);
        assert!(!p.closed);
        assert_eq!(count_array_prefix(t, "edits"), Some((2, false)));
        let p = read_array_prefix(r#"{"edits" : [ {"a":1} ] , "x""#, "edits").unwrap();
        assert!(p.closed);
        assert!(read_array_prefix(r#"{"text": "\"edits\":[{}]"}"#, "edits").is_none());
        assert!(read_array_prefix("none", "edits").is_none());
    }

    /// JSON with an `edits` array whose entries hold what brackets and quotes can be inside
    /// strings, written compact or spaced out, in prose that may quote another, cut off.
    fn a_reply() -> impl proptest::strategy::Strategy<Value = (String, std::ops::Range<usize>)> {
        use proptest::prelude::*;
        let word = prop::sample::select(vec![
            "a",
            "]",
            "}",
            "[{",
            "\"edits\": [",
            "\\",
            "\u{1}",
            "é",
            " ",
            "\n",
            "{\"x\": 1}",
        ]);
        let string = prop::collection::vec(word, 0..6).prop_map(|w| serde_json::Value::String(w.concat()));
        let leaf = prop_oneof![
            string.clone(),
            Just(serde_json::json!(1.5)),
            Just(serde_json::json!(null)),
            Just(serde_json::json!([])),
        ];
        let value = leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::Array),
                prop::collection::vec(("[a-c]{1,2}", inner), 0..4)
                    .prop_map(|kv| serde_json::Value::Object(kv.into_iter().collect())),
            ]
        });
        let entry = prop_oneof![
            4 => prop::collection::vec(("find|replace|edits|note", value.clone()), 0..4)
                .prop_map(|kv| serde_json::Value::Object(kv.into_iter().collect())),
            1 => value.clone(),
        ];
        let edits = prop::collection::vec(entry, 0..5);
        (edits, value, any::<bool>(), prop::sample::select(vec!["", "Then: \"edits\": [{\"a\": 1}, {\"b\"", " done"]))
            .prop_map(|(edits, other, pretty, after)| {
                let envelope = serde_json::json!({"note": other, "edits": edits});
                let json =
                    if pretty { serde_json::to_string_pretty(&envelope) } else { serde_json::to_string(&envelope) };
                let json = json.unwrap_or_default();
                let before = "Here are the edits:\n";
                (format!("{before}{json}{after}"), before.len()..before.len() + json.len())
            })
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config { cases: 2000, ..Default::default() })]
        /// Stepped over by its brackets or read entry by entry, an array in JSON as it stands
        /// counts the same.
        #[test]
        fn counting_by_brackets_is_counting_by_reading((text, json) in a_reply()) {
            proptest::prop_assert_eq!(count_array_prefix_within(&text, "edits", json), count_array_prefix(&text, "edits"));
        }
    }
}
