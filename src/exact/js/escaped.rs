//! A reply's text as the JSON string of its line wrote it, so that text printed in JSON again
//! can be copied from the line instead of escaped again.
//!
//! A batch reads each reply from a JSONL line, where the text is a JSON string, and prints
//! its answer, most of which is the reply's own text inside a JSON string again. Where the
//! line wrote a run of the text as `JSON.stringify` writes it, the run's JSON is the line's
//! bytes for it. A page whose quotes the repair reads as themselves (`":"` by the thousand)
//! is two bytes of escape for every three of text, which is costly to escape again byte by
//! byte.
//!
//! The decoder marks, every [`STEP`] bytes of text or so, a place in the text beside the same
//! place in the line; a place between marks is found from the one before it, an escape at a
//! time.

use crate::exact::lex::escape_of;

/// Text bytes between marks, at least.
const STEP: usize = 256;

/// Escapes read past a mark to find a place, at most, before giving up on it: a mark is
/// made at the first place at least [`STEP`] bytes on, so a place is a few hundred escapes
/// past one at the most, unless `\u` escapes (which the decoder marks less) come thick.
const SCAN: usize = 1024;

/// The text of a JSON string and where its line wrote each part of it.
pub struct Escaped<'a> {
    /// The string's body in the line, between its quotes.
    body: &'a str,
    /// Places in the text beside the same places in `body`, ascending; the string's start
    /// is one before them all.
    marks: Vec<(usize, usize)>,
    /// The decoded string's address and length: what [`Escaped::is_of`] recognizes.
    of: (usize, usize),
}

impl<'a> Escaped<'a> {
    /// Whether `text` is the string these marks were made decoding, of those the decoder
    /// made: it is known by its place in memory and its length, so the last of those made
    /// that answers is the one (a string made before it there was dropped; every long
    /// string is marked, escapes or not, so none unmarked takes the place of one marked).
    pub fn is_of(&self, text: &str) -> bool {
        self.of == (text.as_ptr().addr(), text.len())
    }

    /// `text[from..to]` as the line wrote it, where that is how `JSON.stringify` writes it
    /// inside a string: every escape in it one `JSON.stringify` writes (none is `\/`, or a
    /// `\u` escape of anything but a control). `None` where it is not, or a place is too far
    /// from a mark to find.
    pub fn written(&self, from: usize, to: usize) -> Option<&'a str> {
        let start = self.body_at(from)?;
        let end = self.body_at(to)?;
        let written = self.body.get(start..end)?;
        // What `JSON.stringify` never writes: `\/` (it writes `/`), and `\u` but for a control
        // without a short escape, in lowercase hex. A `\\` followed by `/` or `u` may be
        // taken for one too: the run is then escaped again, as it would have been.
        let bytes = written.as_bytes();
        if memchr::memmem::find(bytes, b"\\/").is_some() {
            return None;
        }
        for at in memchr::memmem::find_iter(bytes, b"\\u") {
            let digits = bytes.get(at + 2..at + 6)?;
            let unit = super::hex_unit(digits).filter(|_| !digits.iter().any(u8::is_ascii_uppercase))?;
            if u8::try_from(unit).ok().and_then(escape_of) != Some(b'u') {
                return None;
            }
        }
        Some(written)
    }

    /// The place in `body` of the place `at` in the text.
    fn body_at(&self, at: usize) -> Option<usize> {
        let marked = self.marks.partition_point(|&(text, _)| text <= at);
        let (mut text, mut line) = marked.checked_sub(1).and_then(|m| self.marks.get(m)).copied().unwrap_or((0, 0));
        let body = self.body.as_bytes();
        for _ in 0..SCAN {
            // Up to the next escape the text is the line's bytes, one for one.
            let escape = memchr::memchr(b'\\', body.get(line..)?).map_or(body.len(), |k| line + k);
            if at - text <= escape - line {
                return Some(line + (at - text));
            }
            text += escape - line;
            line = escape;
            let (written, read) = escape_lengths(body, escape)?;
            line += written;
            text += read;
            if text > at {
                return None;
            }
        }
        None
    }
}

/// The length in the line of the escape at `at` and of the text it decodes to; `None` for
/// a lone surrogate (whose string is not one of UTF-8 text) or a broken escape.
fn escape_lengths(body: &[u8], at: usize) -> Option<(usize, usize)> {
    if body.get(at + 1) != Some(&b'u') {
        return Some((2, 1));
    }
    let unit = |at: usize| body.get(at..at + 4).and_then(super::hex_unit);
    Some(match unit(at + 2)? {
        0..0x80 => (6, 1),
        0x80..0x800 => (6, 2),
        0xD800..0xDC00 if body.get(at + 6..at + 8) == Some(b"\\u") => match unit(at + 8)? {
            0xDC00..0xE000 => (12, 4),
            _ => return None,
        },
        0xD800..0xE000 => return None,
        _ => (6, 3),
    })
}

/// Marks made as a string is decoded ([`Escaped`]).
pub(super) struct Marks {
    marks: Vec<(usize, usize)>,
    /// Where the string's body begins in the line.
    body: usize,
    /// The text offset the next mark waits for.
    next: usize,
}

impl Marks {
    /// Marks for the string whose body begins at `body`.
    pub(super) fn new(body: usize) -> Marks {
        Marks { marks: Vec::new(), body, next: STEP }
    }

    /// Offers the place `text` in the text, `line` in the line, both at the same place
    /// between characters: it is marked if it is far enough from the last mark.
    #[inline(always)]
    pub(super) fn offer(&mut self, text: usize, line: usize) {
        if text >= self.next {
            self.marks.push((text, line - self.body));
            self.next = text + STEP;
        }
    }

    /// The marks of `text`, decoded from `body`.
    pub(super) fn finish<'a>(self, body: &'a str, text: &str) -> Escaped<'a> {
        Escaped { body, marks: self.marks, of: (text.as_ptr().addr(), text.len()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::js::{ColonRule, parse_recycled, print_repaired_at};
    use crate::exact::value::{JsString, Value, write_utf8_inside};

    /// The string of JSON `line`, decoded, and where the line wrote it.
    fn decoded(line: &str) -> (String, Escaped<'_>) {
        let (mut value, escaped) = parse_recycled(line).unwrap();
        let Value::String(JsString::Utf8(text)) = &mut value else { panic!("{line} is a string") };
        let text = std::mem::take(text);
        let written = escaped.into_iter().rfind(|e| e.is_of(&text)).expect("a long string is marked");
        (text, written)
    }

    fn escaped_again(text: &str) -> String {
        let mut out = String::new();
        write_utf8_inside(&mut out, text);
        out
    }

    /// The place at or before `at` between characters.
    fn boundary(text: &str, mut at: usize) -> usize {
        at = at.min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        at
    }

    /// Each character of `text` as JSON writes it, or (where `odd` says) as a line may write
    /// it otherwise: `/` as `\/`, anything as a `\u` escape, uppercase.
    fn line_of(text: &str, odd: &[bool]) -> String {
        let mut line = String::from("\"");
        for (i, c) in text.chars().enumerate() {
            if odd.get(i % odd.len().max(1)).copied().unwrap_or(false) {
                if c == '/' {
                    line.push_str("\\/");
                } else {
                    for unit in c.encode_utf16(&mut [0; 2]) {
                        line.push_str(&format!("\\u{unit:04X}"));
                    }
                }
            } else {
                line.push_str(&escaped_again(c.encode_utf8(&mut [0; 4])));
            }
        }
        line.push('"');
        line
    }

    fn text_of(pieces: &[&str], repeat: usize) -> String {
        pieces.concat().repeat(repeat)
    }

    const PIECES: [&str; 16] =
        ["\"", "\"", "\\", "/", "\n", "\t", "\u{1}", "\u{7f}", "é", "😀", "a", "bcdefgh", ":", " ", "\\u", "\\/"];

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config { cases: 200, ..Default::default() })]

        /// Where the line wrote the text as `JSON.stringify` would, what it wrote is the
        /// text escaped again; where it did not, nothing is copied from it.
        #[test]
        fn what_is_copied_is_the_text_escaped_again(
            pieces in proptest::collection::vec(proptest::sample::select(PIECES.to_vec()), 1..200),
            repeat in 1usize..40,
            odd in proptest::collection::vec(proptest::prop_oneof![9 => proptest::strategy::Just(false), 1 => proptest::strategy::Just(true)], 0..20),
            places in proptest::collection::vec((0usize..20_000, 0usize..20_000), 20),
        ) {
            let text = text_of(&pieces, repeat);
            proptest::prop_assume!(text.len() >= crate::exact::js::MARKED);
            let canonical = !odd.contains(&true);
            let line = line_of(&text, &odd);
            let (decoded, written) = decoded(&line);
            proptest::prop_assert_eq!(&decoded, &text);
            for (a, b) in places {
                let (from, to) = (boundary(&text, a.min(b)), boundary(&text, a.max(b)));
                let run = &text[from..to];
                match written.written(from, to) {
                    Some(copied) => proptest::prop_assert_eq!(copied, escaped_again(run)),
                    // Only a run the line wrote otherwise, or that holds what looks like it.
                    None => proptest::prop_assert!(!canonical || run.contains("\\u") || run.contains("\\/"), "{run:?}"),
                }
            }
        }
    }

    #[test]
    fn a_page_of_quotes_read_as_themselves_is_copied_whole() {
        let page = "\":\"".repeat(4000);
        let reply = format!("{{\"html\": \"{page}\"}}");
        let line = serde_json::to_string(&reply).unwrap();
        let (text, written) = decoded(&line);
        // The page between its quotes: the line's bytes for it.
        let at = text.find(&page).unwrap();
        let copied = written.written(at, at + page.len()).unwrap();
        assert!(copied == escaped_again(&page) && line.contains(copied));
        for rule in [ColonRule::Narrow, ColonRule::Wide] {
            let (mut copied, mut escaped) = (String::new(), String::new());
            let printed = print_repaired_at(&text, 0, rule, Some(&written), &mut copied);
            assert_eq!(printed, print_repaired_at(&text, 0, rule, None, &mut escaped));
            // The wide rule closes the page at its first `":`, and the reading fails.
            assert!(printed.is_some() == (rule == ColonRule::Narrow) && copied == escaped, "{rule:?}");
        }
    }

    #[test]
    fn marks_of_another_string_are_not_used() {
        let line = serde_json::to_string(&"\"".repeat(2000)).unwrap();
        let (text, written) = decoded(&line);
        let reply = format!("{{\"a\": \"{}\"}}", "x\"".repeat(1000));
        assert!(written.is_of(&text) && !written.is_of(&reply));
        let (mut with, mut without) = (String::new(), String::new());
        print_repaired_at(&reply, 0, ColonRule::Narrow, Some(&written), &mut with);
        print_repaired_at(&reply, 0, ColonRule::Narrow, None, &mut without);
        assert!(with == without);
    }
}
