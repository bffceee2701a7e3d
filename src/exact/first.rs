//! The first-wins reader (seed 001 `extractJsonObject`): the first balanced `{…}` candidate
//! that parses, returned as text; the raw reply when none does.
//!
//! It bounds its own work, which is why its answers differ from the last-wins reader's on
//! large or brace-laden replies: input longer than [`MAX_SCAN_INPUT_LENGTH`] UTF-16 code
//! units is not scanned at all, and at most [`MAX_CANDIDATE_ATTEMPTS`] candidates are tried.

use super::js;
use super::span::{Span, utf16_len};
use super::strict::strict_span;

/// Input longer than this (in UTF-16 code units, JavaScript's `.length`) is returned as is.
pub const MAX_SCAN_INPUT_LENGTH: usize = 256 * 1024;
/// At most this many `{` candidates are tried.
pub const MAX_CANDIDATE_ATTEMPTS: usize = 50;

/// One candidate the reader tried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    pub start: usize,
    /// The balanced span, or `None` when its braces never balance.
    pub span: Option<Span>,
    /// Whether the span's text parses.
    pub parses: bool,
}

/// How the reader ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FirstOutcome {
    /// A candidate parsed; its text is the answer.
    Found(Span),
    /// The reply is longer than the scan bound; the raw text is the answer.
    TooLong { utf16_len: usize },
    /// The attempt bound ran out before a candidate parsed; the raw text is the answer.
    Exhausted,
    /// No candidate parsed; the raw text is the answer.
    NotFound,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirstWins {
    pub attempts: Vec<Attempt>,
    pub outcome: FirstOutcome,
}

impl FirstWins {
    /// `extractJsonObject(text)`: the candidate's text, or the whole reply.
    pub fn text<'a>(&self, reply: &'a str) -> &'a str {
        match &self.outcome {
            FirstOutcome::Found(s) => reply.get(s.start..s.end).unwrap_or(reply),
            _ => reply,
        }
    }
}

/// `extractJsonObject(text)` with the candidates it tried.
pub fn first_wins(text: &str) -> FirstWins {
    let len = utf16_len(text);
    if len > MAX_SCAN_INPUT_LENGTH {
        return FirstWins { attempts: Vec::new(), outcome: FirstOutcome::TooLong { utf16_len: len } };
    }
    let mut attempts = Vec::new();
    let mut next = text.find('{');
    while let Some(start) = next {
        if attempts.len() == MAX_CANDIDATE_ATTEMPTS {
            return FirstWins { attempts, outcome: FirstOutcome::Exhausted };
        }
        // Seed 001's scan is the strict walk: the same string and escape tracking.
        let span = strict_span(text, start).map(|end| Span::new(start, end));
        let parses = span.is_some_and(|s| js::is_json(&text[s.start..s.end]));
        attempts.push(Attempt { start, span, parses });
        if parses && let Some(s) = span {
            return FirstWins { attempts, outcome: FirstOutcome::Found(s) };
        }
        next = text[start + 1..].find('{').map(|i| i + start + 1);
    }
    FirstWins { attempts, outcome: FirstOutcome::NotFound }
}

/// The candidate [`first_wins`] finds (its outcome `Found`), its attempts not kept, with
/// each brace read by `end_of`: where `JSON.parse` reads the object at that `{` to, if it
/// does. That is a span that parses: the strict span of a `{` parses exactly where the JSON
/// grammar accepts the object there, and then ends where the object does (see
/// [`super::memo`]), so a reader that shares what other readings of the reply learned can
/// tell it, under the same bounds.
pub fn first_found(text: &str, mut end_of: impl FnMut(usize) -> Option<usize>) -> Option<Span> {
    // UTF-16 is never longer than UTF-8: a reply within the bound in bytes is within it.
    if text.len() > MAX_SCAN_INPUT_LENGTH && utf16_len(text) > MAX_SCAN_INPUT_LENGTH {
        return None;
    }
    memchr::memchr_iter(b'{', text.as_bytes())
        .take(MAX_CANDIDATE_ATTEMPTS)
        .find_map(|start| end_of(start).map(|end| Span::new(start, end)))
}

/// `extractJsonObject(text)`.
pub fn extract_json_object(text: &str) -> &str {
    first_wins(text).text(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_parsing_candidate_wins() {
        let t = r#"x {bad} {"a":1} {"b":2}"#;
        assert_eq!(extract_json_object(t), r#"{"a":1}"#);
        assert_eq!(first_wins(t).attempts.len(), 2);
        assert_eq!(extract_json_object("no braces"), "no braces");
    }

    fn found(text: &str) -> Option<Span> {
        match first_wins(text).outcome {
            FirstOutcome::Found(s) => Some(s),
            _ => None,
        }
    }

    #[test]
    fn the_candidate_found_by_a_validator_is_the_one_the_spans_find() {
        let many = format!("{}{{\"a\":1}}", "{x} ".repeat(MAX_CANDIDATE_ATTEMPTS - 1));
        let too_many = format!("{}{{\"a\":1}}", "{x} ".repeat(MAX_CANDIDATE_ATTEMPTS));
        let long = format!("{{\"a\":1}}{}", "😀".repeat(MAX_SCAN_INPUT_LENGTH / 2));
        let within = format!("{{\"a\":1}}{}", "é".repeat(MAX_SCAN_INPUT_LENGTH / 2 - 8));
        for t in [
            r#"x {bad} {"a":1} {"b":2}"#,
            r#"{"s": "{\"in\": 1}", "b": [1, {"c": 2}]} tail"#,
            r#"{"a": "{"} {"b": 1}"#,
            "{ \"a\": 1 ",
            "no braces",
            many.as_str(),
            too_many.as_str(),
            long.as_str(),
            within.as_str(),
        ] {
            let mut strict = crate::exact::memo::Validator::new(t, crate::exact::memo::Mode::Strict);
            assert_eq!(first_found(t, |start| strict.value_at(start).ok()), found(t), "{t:.60}");
        }
        assert!(found(&many).is_some() && found(&within).is_some());
    }

    #[test]
    fn bounds_are_counted_in_utf16_units_and_attempts() {
        let just_over = format!("{{\"a\":1}}{}", "😀".repeat(MAX_SCAN_INPUT_LENGTH / 2));
        assert!(matches!(first_wins(&just_over).outcome, FirstOutcome::TooLong { .. }));
        let many = format!("{}{{\"a\":1}}", "{x} ".repeat(MAX_CANDIDATE_ATTEMPTS));
        assert_eq!(first_wins(&many).outcome, FirstOutcome::Exhausted);
        assert_eq!(extract_json_object(&many), many);
    }
}
