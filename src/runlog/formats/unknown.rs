//! A record no format claims: where its likeliest reply text is, so that the diagnostic can
//! offer the exact `--text-path` that reads it. The likeliest text is the longest string.

use serde_json::Value;

use crate::runlog::diagnostic::Offer;

/// Strings shorter than this are ids and labels, not replies: nothing is offered for them.
const LIKELY_CHARS: usize = 16;

/// The JSON pointer of the longest string in `record`, and its length in characters; `None`
/// when no string in it is long enough to be a reply. The record is walked with a stack of
/// its own, not by recursion (its depth is the input's).
pub(crate) fn offer(record: &Value) -> Option<Offer> {
    let mut best: Option<(usize, String)> = None;
    let mut stack: Vec<(&Value, String)> = vec![(record, String::new())];
    while let Some((value, pointer)) = stack.pop() {
        match value {
            // Characters are counted only for a string that could be longer than the best.
            Value::String(s) if best.as_ref().is_none_or(|(chars, _)| s.len() > *chars) => {
                let chars = s.chars().count();
                if best.as_ref().is_none_or(|(have, _)| chars > *have) {
                    best = Some((chars, pointer));
                }
            }
            Value::Array(items) => {
                stack.extend(items.iter().enumerate().rev().map(|(i, v)| (v, format!("{pointer}/{i}"))));
            }
            Value::Object(o) => {
                stack.extend(o.iter().rev().map(|(k, v)| (v, format!("{pointer}/{}", escape(k)))));
            }
            _ => {}
        }
    }
    best.filter(|(chars, _)| *chars >= LIKELY_CHARS).map(|(chars, pointer)| Offer { pointer, chars })
}

/// A key as a JSON pointer writes it (RFC 6901): `~` as `~0`, `/` as `~1`.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_longest_string_is_offered_by_a_pointer_that_reads_it() {
        let long = "é".repeat(40);
        let record = json!({"id": "x-1", "result": {"message": {"content": [{"type": "text", "text": long}]}},
            "a/b~": ["short", "s".repeat(39)]});
        let o = offer(&record).unwrap();
        assert_eq!((o.pointer.as_str(), o.chars), ("/result/message/content/0/text", 40));
        assert_eq!(record.pointer(&o.pointer).and_then(Value::as_str), Some(long.as_str()));
        let odd = json!({"a/b~": ["short", "s".repeat(41)]});
        let o = offer(&odd).unwrap();
        assert_eq!(o.pointer, "/a~1b~0/1");
        assert!(odd.pointer(&o.pointer).is_some());
        assert_eq!(offer(&json!({"prompt": "p", "completion_text": "c"})), None);
    }
}
