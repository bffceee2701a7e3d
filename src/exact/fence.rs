//! The fence-first reader: the pipeline's `extractJson` as first published, before the
//! last-wins walk. It prefers the first fenced block, then the whole text, then the first
//! balanced `{…}`, read once: the rule that bound the 62-character scratch template of
//! issue #170, which the seed's comments argue against ("matching a fence FIRST is what
//! bound the scratch template above").
//!
//! Its fence is the regex `` /```(?:json)?\s*([\s\S]*?)```/i ``, and JavaScript's regex
//! semantics are part of the answer: `\s` is JavaScript's whitespace (U+FEFF yes, U+0085
//! no), the match is the leftmost one and the block inside it the shortest, and without the
//! `u` flag case-insensitivity folds ASCII letters only (no other character uppercases to
//! one of `json` and stays itself). Matched by hand rather than by the `regex` crate, whose
//! `\s` and case folding are Unicode's.

use std::sync::LazyLock;

use memchr::memmem;

use super::js;
use super::lex;
use super::value::Value;

const FENCE: &[u8] = b"```";

/// The fence's searcher, built once: every reply is searched for it.
static FENCES: LazyLock<memmem::Finder<'static>> = LazyLock::new(|| memmem::Finder::new(FENCE));

/// What the original `extractJson(text)` returns: the fenced block's (or the whole text's)
/// value, else the value of the first balanced `{…}` span, else `None` (its `null`). A
/// `Some(Value::Null)` is a text that is literally `null`.
pub fn fence_first(text: &str) -> Option<Value> {
    let tries = FenceTries::of(text);
    if let Some(Ok(v)) = text.get(tries.trimmed.clone()).map(js::parse) {
        return Some(v);
    }
    // One candidate only: the first span that balances is parsed or the answer is null.
    text.get(tries.balanced(text)?).and_then(|t| js::parse(t).ok())
}

/// What [`fence_first`] hands to `JSON.parse`, as byte ranges of the reply: first the
/// fenced block (or, with no fence, the whole text) trimmed, then, where that does not
/// parse, the first balanced span of the block. A caller that can tell whether a range
/// parses without building its value (a scan comparing answers by where they are) reads
/// the reader through these.
pub struct FenceTries {
    /// The block, or the whole text, trimmed the JavaScript way.
    pub trimmed: std::ops::Range<usize>,
    /// Where the block (or the whole text) starts and ends.
    candidate: std::ops::Range<usize>,
}

impl FenceTries {
    pub fn of(text: &str) -> FenceTries {
        let candidate = fenced_range(text).unwrap_or(0..text.len());
        let (start, end) = lex::trim_range(text.get(candidate.clone()).unwrap_or_default());
        FenceTries { trimmed: candidate.start + start..candidate.start + end, candidate }
    }

    /// Where the second try's span would open: the block's first `{`.
    pub fn first_brace(&self, text: &str) -> Option<usize> {
        let at = self.candidate.start;
        Some(at + memchr::memchr(b'{', text.as_bytes().get(self.candidate.clone())?)?)
    }

    /// Where the block (or the whole text) ends.
    pub fn end(&self) -> usize {
        self.candidate.end
    }

    /// The second try: the first balanced `{…}` of the block, if there is one.
    pub fn balanced(&self, text: &str) -> Option<std::ops::Range<usize>> {
        let at = self.candidate.start;
        let span = first_balanced(text.get(self.candidate.clone())?)?;
        Some(at + span.start..at + span.end)
    }
}

/// The text inside the first fenced block, if the fence regex matches.
///
/// The leftmost match starts at the first ```` ``` ````: a later start could only close at a
/// fence the first one also reaches, as nothing between a start and its block (`json` and
/// whitespace) is a backtick. After it, `(?:json)?` and `\s*` are greedy, and the lazy block
/// ends at the first ```` ``` ```` from there; when none follows, no start matches.
pub fn fenced_block(text: &str) -> Option<&str> {
    text.get(fenced_range(text)?)
}

/// Where [`fenced_block`]'s text is in the reply.
fn fenced_range(text: &str) -> Option<std::ops::Range<usize>> {
    let bytes = text.as_bytes();
    let open = FENCES.find(bytes)?;
    let mut at = open + FENCE.len();
    if bytes.get(at..at + 4).is_some_and(|tag| tag.eq_ignore_ascii_case(b"json")) {
        at += 4;
    }
    while let Some(n) = lex::whitespace_len_at(text, at) {
        at += n;
    }
    let close = at + FENCES.find(bytes.get(at..)?)?;
    Some(at..close)
}

/// The byte range from the first `{` to the `}` that balances it, strings skipped with their
/// escapes (a backslash escapes the next code unit; the seed counts UTF-16 units and these
/// bytes are all ASCII, so bytes step the same way). Between the bytes that matter the
/// search jumps (a reply is mostly string; a step a byte at a time was a twentieth of what
/// the inspector spent reading a campaign).
fn first_balanced(candidate: &str) -> Option<std::ops::Range<usize>> {
    let bytes = candidate.as_bytes();
    let start = memchr::memchr(b'{', bytes)?;
    let mut depth = 0usize;
    let mut i = start;
    loop {
        let k = i + memchr::memchr3(b'"', b'{', b'}', bytes.get(i..)?)?;
        i = k + 1;
        match bytes.get(k) {
            Some(b'"') => loop {
                // Inside a string: to its closing quote, past each escape and what it escapes.
                let m = i + memchr::memchr2(b'"', b'\\', bytes.get(i..)?)?;
                i = m + 1;
                if bytes.get(m) == Some(&b'\\') {
                    i += 1;
                } else {
                    break;
                }
            },
            Some(b'{') => depth += 1,
            _ => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(start..k + 1);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first balanced span as the seed finds it, a byte at a time.
    fn first_balanced_byte_by_byte(candidate: &str) -> Option<std::ops::Range<usize>> {
        let bytes = candidate.as_bytes();
        let start = memchr::memchr(b'{', bytes)?;
        let (mut depth, mut in_str, mut esc) = (0usize, false, false);
        for (i, &c) in bytes.iter().enumerate().skip(start) {
            if in_str {
                if esc {
                    esc = false;
                } else if c == b'\\' {
                    esc = true;
                } else if c == b'"' {
                    in_str = false;
                }
            } else if c == b'"' {
                in_str = true;
            } else if c == b'{' {
                depth += 1;
            } else if c == b'}' {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(start..i + 1);
                }
            }
        }
        None
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config { cases: 4000, ..Default::default() })]
        /// However braces, quotes and escapes fall, the search that jumps finds the span the
        /// seed's step a byte at a time finds.
        #[test]
        fn the_first_balanced_span_is_the_seeds(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec!["{", "}", "\"", "\\", "a", "é", "plain text", ":", "\\\"", "}}", "{{"]),
                0..80,
            ),
        ) {
            let text = pieces.concat();
            proptest::prop_assert_eq!(first_balanced(&text), first_balanced_byte_by_byte(&text));
        }
    }

    fn json(text: &str) -> String {
        fence_first(text).map_or_else(|| "null".to_owned(), |v| v.to_json())
    }

    #[test]
    fn the_fence_regex_as_javascript_matches_it() {
        // Case-insensitive tag, JavaScript whitespace after it (U+FEFF, U+2028), not U+0085.
        assert_eq!(fenced_block("a ```JSON\n{}\n``` b"), Some("{}\n"));
        assert_eq!(fenced_block("```Json\u{feff}\u{2028}{}```"), Some("{}"));
        assert_eq!(fenced_block("```json\u{85}{}```"), Some("\u{85}{}"));
        // No tag, another tag, the tag glued to its text.
        assert_eq!(fenced_block("```\n[1]```"), Some("[1]"));
        assert_eq!(fenced_block("```js\n{}```"), Some("js\n{}"));
        assert_eq!(fenced_block("```jsonc{}```"), Some("c{}"));
        // The shortest block, the first fence; an unclosed fence is no fence.
        assert_eq!(fenced_block("```a``` ```b```"), Some("a"));
        assert_eq!(fenced_block("```json {\"a\":1}"), None);
        assert_eq!(fenced_block("``````"), Some(""));
        assert_eq!(fenced_block("````x```"), Some("`x"));
        assert_eq!(fenced_block("~~~json\n{}\n~~~"), None);
        // Only ASCII folds: the long s uppercases to S, but JavaScript keeps it itself.
        assert_eq!(fenced_block("```j\u{17f}on{}```"), Some("j\u{17f}on{}"));
    }

    #[test]
    fn fence_then_whole_text_then_the_first_balanced_span_once() {
        // The scratch template fenced first binds the answer (#170).
        let t = "Template:\n```json\n{ \"html\": \"...\" }\n```\nAnswer:\n```json\n{\"html\": \"<p>real</p>\"}\n```";
        assert_eq!(json(t), r#"{"html":"..."}"#);
        // No fence: the whole text, trimmed the JavaScript way.
        assert_eq!(json("\u{feff} [1, 2] "), "[1,2]");
        // Then the first `{`, balanced with strings skipped, parsed once.
        assert_eq!(json(r#"prose {"a": "}"} then {"b": 2}"#), r#"{"a":"}"}"#);
        assert_eq!(json("the contract {html, log} then {\"b\": 2}"), "null");
        assert_eq!(json(r#"{"a": "\"}", "b": 1} tail"#), r#"{"a":"\"}","b":1}"#);
        // Inside the fence only.
        assert_eq!(json("```\nsee {\"a\":1}\n``` {\"b\":2}"), r#"{"a":1}"#);
        assert_eq!(json("```\n```{\"b\":2}"), "null");
        assert_eq!(json("nothing"), "null");
        assert_eq!(json("{\"a\": 1"), "null");
        assert_eq!(fence_first(" null "), Some(Value::Null));
    }
}
