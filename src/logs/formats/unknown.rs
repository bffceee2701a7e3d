//! A record no format claims: where its likeliest reply text is, so that the diagnostic can
//! offer the exact `--text-path` that reads it, or say that there is no reply in it. The
//! likeliest text is the longest string that could be a model's writing: not one under a key
//! that holds what was asked or how (a prompt, an input, a configuration, metadata), and not a
//! word of the machine's (an id, a type name, a URL, a time). A record whose every string is
//! one of those has no reply in it; one whose only other strings are short (a word, a letter)
//! may, and is offered no pointer.

use serde_json::Value;

use crate::logs::model::diagnostic::Offer;

/// Strings shorter than this are ids and labels, not replies: nothing is offered for them.
const LIKELY_CHARS: usize = 16;

/// Keys under which a record keeps the request's side: what was asked, and how.
const ASKED: [&str; 15] = [
    "input",
    "inputs",
    "instructions",
    "system",
    "config",
    "configuration",
    "vars",
    "variables",
    "question",
    "query",
    "request",
    "params",
    "parameters",
    "settings",
    "metadata",
];

/// Whether the value under `key` is the request's side rather than a reply: a key of
/// [`ASKED`], or one that names a prompt (`prompt`, `prompts`, `system_prompt`, …).
fn asked(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    key.contains("prompt") || ASKED.contains(&key.as_str())
}

/// A word of the machine's: no whitespace, only what ids, type names, URLs, versions and times
/// are made of, and a digit or a separator among them (`response.input_tokens`,
/// `eval-k3P-2025-08-21T09:14:03`, `v20.11.1`). JSON text a model wrote has quotes or braces,
/// prose has spaces, and a word alone (`Paris`) may be a reply.
fn machine_word(s: &str) -> bool {
    const SEPARATORS: &[u8] = b"._-:/@+=?&%#~,";
    s.bytes().all(|b| b.is_ascii_alphanumeric() || SEPARATORS.contains(&b))
        && s.bytes().any(|b| b.is_ascii_digit() || SEPARATORS.contains(&b))
}

/// Where `record`'s likeliest reply text is, as a JSON pointer and its length in characters;
/// [`Offer::Nothing`] when no string in it could be a reply; `None` when the only ones that
/// could are too short to tell. The record is walked with a stack of its own, not by
/// recursion (its depth is the input's).
pub(crate) fn offer(record: &Value) -> Option<Offer> {
    let mut best: Option<(usize, String)> = None;
    let mut stack: Vec<(&Value, String)> = vec![(record, String::new())];
    while let Some((value, pointer)) = stack.pop() {
        match value {
            // Characters are counted only for a string that could be longer than the best.
            Value::String(s) if best.as_ref().is_none_or(|(chars, _)| s.len() > *chars) && !machine_word(s) => {
                let chars = s.chars().count();
                if best.as_ref().is_none_or(|(have, _)| chars > *have) {
                    best = Some((chars, pointer));
                }
            }
            Value::Array(items) => {
                stack.extend(items.iter().enumerate().rev().map(|(i, v)| (v, format!("{pointer}/{i}"))));
            }
            Value::Object(o) => {
                let replies = o.iter().rev().filter(|(k, _)| !asked(k));
                stack.extend(replies.map(|(k, v)| (v, format!("{pointer}/{}", escape(k)))));
            }
            _ => {}
        }
    }
    match best {
        Some((chars, pointer)) if chars >= LIKELY_CHARS => Some(Offer::Text { pointer, chars }),
        Some(_) => None,
        None => Some(Offer::Nothing),
    }
}

/// A key as a JSON pointer writes it (RFC 6901): `~` as `~0`, `/` as `~1`.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(pointer: &str, chars: usize) -> Option<Offer> {
        Some(Offer::Text { pointer: pointer.to_owned(), chars })
    }

    #[test]
    fn the_longest_string_is_offered_by_a_pointer_that_reads_it() {
        let long = "é ".repeat(20);
        let record = json!({"id": "x-1", "result": {"message": {"content": [{"type": "text", "text": long}]}},
            "a/b~": ["short", "s ".repeat(19)]});
        assert_eq!(offer(&record), text("/result/message/content/0/text", 40));
        assert_eq!(record.pointer("/result/message/content/0/text").and_then(Value::as_str), Some(long.as_str()));
        let odd = json!({"a/b~": ["short", "{\"s\":1}".repeat(6)]});
        assert_eq!(offer(&odd), text("/a~1b~0/1", 42));
        assert!(odd.pointer("/a~1b~0/1").is_some());
        // A reply too short to tell from a label is offered no pointer, and not said to be none.
        assert_eq!(offer(&json!({"prompt": "p", "completion_text": "c"})), None);
        assert_eq!(offer(&json!({"question": "Capital of France?", "answer": "Paris"})), None);
    }

    #[test]
    fn what_was_asked_and_words_of_the_machines_are_no_reply() {
        // OpenAI's count of a request's input tokens: a type name and a number.
        assert_eq!(offer(&json!({"object": "response.input_tokens", "input_tokens": 1187})), Some(Offer::Nothing));
        // An eval's configuration with its prompts, saved without its results.
        let config = json!({"evalId": "eval-k3P-2025-08-21T09:14:03",
            "config": {"prompts": [{"raw": "Transcribe the page image as JSON with html and log fields."}]},
            "metadata": {"platform": "linux", "exportedAt": "2025-08-21T09:20:11.482Z"},
            "shareableUrl": "https://example.com/eval/?evalId=eval-k3P"});
        assert_eq!(offer(&config), Some(Offer::Nothing));
        // Beside what was asked, the reply is offered, even when shorter.
        let both = json!({"system_prompt": "You are a careful transcriber of annual reports.",
            "input": {"page": "Transcribe page three of the report, every table."},
            "output": "{\"html\": \"<p>Three</p>\"}"});
        assert_eq!(offer(&both), text("/output", 24));
    }
}
