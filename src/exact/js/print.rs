//! `JSON.stringify` of a repaired reading, written straight from the reply as it is read.
//!
//! A batch prints a reply's answer, and where the answer is a repaired reading (a page with
//! quotes left unescaped), building its value to print it cost ten times what printing a
//! strict reading costs ([`crate::exact::reprint`]): a string allocated per string, a
//! container per container, each dropped again, and every string searched a second time for
//! what to escape. The reading's strings are what the repair makes of them, each run of text
//! read as itself, so a run is written escaped as `JSON.stringify` escapes it, and each
//! escape the repair keeps as the character it stands for.
//!
//! What the text does not say by itself is left to the value, as in the strict reprint: an
//! object with a key that may be an array index (JavaScript lists those first) or a key given
//! twice, a key with an escape, a `\u` escape. The print then writes nothing and says so, and
//! the caller builds the value; it does too where the reading does not parse, so that the
//! error is the parse's.

use super::{ColonRule, Escaped, Parser, next_string_special, push_run, simple_escape};
use crate::exact::lex::number_end;
use crate::exact::reprint::write_number;
use crate::exact::value::{Value, write_utf8_inside};

/// Keys an object may have and still be checked for repeats one by one.
const KEYS: usize = 32;

/// Runs of text at least this long are copied from where the line wrote them, if it did as
/// `JSON.stringify` would ([`Escaped::written`]); shorter ones cost less escaped again than
/// found there.
const COPIED: usize = 256;

/// What printing a repaired reading found beside its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Printed {
    /// Where the reading ends in the reply.
    pub end: usize,
    /// As [`super::RepairedReading::wide_is_the_same`].
    pub wide_is_the_same: bool,
    /// `stringsAreSelfContained(value)`: in no string value does a `}` close a `{` it never
    /// opened, or a `{` stay open.
    pub self_contained: bool,
}

/// Appends `JSON.stringify` of the repaired reading of the object at `start` under `rule`
/// (the value [`super::parse_repaired_at`] builds) to `out`; `None`, with nothing appended,
/// where the value must be built to know it or the reading does not parse. With `written`
/// (where a line wrote `text` in JSON), long runs of text are copied from there where it
/// wrote them as they are printed.
pub fn print_repaired_at(
    text: &str,
    start: usize,
    rule: ColonRule,
    written: Option<&Escaped>,
    out: &mut String,
) -> Option<Printed> {
    let opened = out.len();
    let mut parser = Parser::new(text, start, Some(rule));
    parser.written = written.filter(|w| w.is_of(text));
    let mut self_contained = true;
    let printed = (parser.peek() == Some(b'{')).then(|| parser.print_value(out, &mut self_contained)).flatten();
    if printed.is_none() {
        out.truncate(opened);
        return None;
    }
    Some(Printed { end: parser.at, wide_is_the_same: !parser.colon_kept_open, self_contained })
}

impl<'a> Parser<'a> {
    /// [`Parser::value`], written to `out` instead of built; clears `contained` at a string
    /// value that is not self-contained. `None` where the value is needed.
    fn print_value(&mut self, out: &mut String, contained: &mut bool) -> Option<()> {
        // Every open container: an object's keys from its mark in `keys`, or `None` for an
        // array.
        let mut frames: Vec<Option<usize>> = Vec::new();
        let mut keys: Vec<&'a str> = Vec::new();
        'value: loop {
            self.skip_ws();
            match self.peek()? {
                opener @ (b'{' | b'[') => {
                    let object = opener == b'{';
                    let closer = if object { b'}' } else { b']' };
                    self.at += 1;
                    self.skip_ws();
                    out.push(char::from(opener));
                    if self.peek() == Some(closer) {
                        self.at += 1;
                        out.push(char::from(closer));
                    } else {
                        let mark = keys.len();
                        frames.push(object.then_some(mark));
                        if object {
                            self.print_key(out, &mut keys, mark)?;
                        }
                        continue 'value;
                    }
                }
                b'"' => {
                    self.print_string(false, out, Some(contained))?;
                }
                b'-' | b'0'..=b'9' => {
                    let start = self.at;
                    self.at = number_end(self.bytes, start).ok()?;
                    write_number(self.text.get(start..self.at)?, out)?;
                }
                b => {
                    let word = match b {
                        b't' => "true",
                        b'f' => "false",
                        _ => "null",
                    };
                    self.literal(word.as_bytes(), Value::Null).ok()?;
                    out.push_str(word);
                }
            }
            // Close every container that ends here.
            loop {
                let Some(&frame) = frames.last() else { return Some(()) };
                self.skip_ws();
                match (frame, self.peek()?) {
                    (_, b',') => {
                        self.at += 1;
                        out.push(',');
                        if let Some(mark) = frame {
                            self.skip_ws();
                            self.print_key(out, &mut keys, mark)?;
                        }
                        continue 'value;
                    }
                    (None, b']') => {
                        self.at += 1;
                        out.push(']');
                        frames.pop();
                    }
                    (Some(mark), b'}') => {
                        self.at += 1;
                        out.push('}');
                        keys.truncate(mark);
                        frames.pop();
                    }
                    _ => return None,
                }
            }
        }
    }

    /// A key and its colon ([`Parser::key`]), among the keys of its object from `mark`.
    fn print_key(&mut self, out: &mut String, keys: &mut Vec<&'a str>, mark: usize) -> Option<()> {
        if self.peek() != Some(b'"') {
            return None;
        }
        let body = self.at + 1;
        if !self.print_string(true, out, None)? {
            return None;
        }
        let key = self.text.get(body..self.at - 1)?;
        let own = keys.get(mark..)?;
        if key.bytes().next().is_some_and(|c| c.is_ascii_digit()) || own.len() >= KEYS || own.contains(&key) {
            return None;
        }
        keys.push(key);
        self.skip_ws();
        if self.peek() != Some(b':') {
            return None;
        }
        self.at += 1;
        out.push(':');
        Some(())
    }

    /// A string from its opening quote ([`Parser::string`]), written; whether it held no
    /// escape (its value is then the text between its quotes). With `braces`, a string whose
    /// braces do not close clears it.
    fn print_string(&mut self, key: bool, out: &mut String, mut braces: Option<&mut bool>) -> Option<bool> {
        self.at += 1;
        let mut run = self.at;
        let mut plain = true;
        // Braces the string has opened and not closed; `None` once one closed none.
        let mut open = Some(0usize);
        out.push('"');
        loop {
            self.at = next_string_special(self.bytes, self.at);
            // Up to the first special byte the run is plain, and written as it is; what the
            // repair reads as itself from there is escaped as `JSON.stringify` escapes it.
            let plain_to = self.at;
            if self.repaired_at(self.at, key) {
                self.at = self.past_repaired(self.at, key);
            }
            match self.written.filter(|_| self.at - run >= COPIED).and_then(|w| w.written(run, self.at)) {
                Some(written) => out.push_str(written),
                None => {
                    push_run(out, self.text, run, plain_to);
                    if self.at > plain_to {
                        write_utf8_inside(out, self.text.get(plain_to..self.at)?);
                    }
                }
            }
            if braces.is_some() {
                open = open.and_then(|o| brace_depth(self.text.get(run..self.at).unwrap_or_default(), o));
            }
            match self.peek()? {
                b'"' => {
                    self.at += 1;
                    out.push('"');
                    if let Some(contained) = braces.as_deref_mut()
                        && open != Some(0)
                    {
                        *contained = false;
                    }
                    return Some(plain);
                }
                b'\\' => {
                    // An escape the repair keeps: the character it stands for, written as
                    // `JSON.stringify` writes it (`\/` as `/`, the rest as they are).
                    let e = *self.bytes.get(self.at + 1)?;
                    simple_escape(e)?;
                    if e == b'/' {
                        out.push('/');
                    } else {
                        out.push('\\');
                        out.push(char::from(e));
                    }
                    self.at += 2;
                    run = self.at;
                    plain = false;
                }
                _ => return None,
            }
        }
    }
}

/// The braces left open after `text`, `open` being open before it; `None` where a `}`
/// closes none.
fn brace_depth(text: &str, mut open: usize) -> Option<usize> {
    for i in memchr::memchr2_iter(b'{', b'}', text.as_bytes()) {
        if text.as_bytes().get(i) == Some(&b'{') {
            open += 1;
        } else {
            open = open.checked_sub(1)?;
        }
    }
    Some(open)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::js::parse_repaired;
    use crate::exact::walk::strings_are_self_contained;

    /// Printing agrees with building: the same text as the value's, the same end and the same
    /// colon decision, the gate's answer; or nothing printed, where the value is needed.
    fn agrees(text: &str, rule: ColonRule) -> bool {
        let mut out = String::from("before ");
        let printed = print_repaired_at(text, 0, rule, None, &mut out);
        let built = parse_repaired(text, 0, rule);
        match (printed, built) {
            (Some(p), Ok(b)) => {
                assert_eq!(out, format!("before {}", b.value.to_json()), "{text}");
                assert_eq!(p.end, b.end, "{text}");
                assert_eq!(p.wide_is_the_same, b.wide_is_the_same, "{text}");
                assert_eq!(p.self_contained, strings_are_self_contained(&b.value), "{text}");
                true
            }
            (Some(_), Err(e)) => panic!("printed a reading that does not parse ({e}): {text}"),
            (None, _) => {
                assert_eq!(out, "before ", "nothing is written where the value is needed");
                false
            }
        }
    }

    #[test]
    fn a_page_with_quotes_left_unescaped_prints_as_its_value() {
        let text = "{\"html\": \"<td class=\"x\">a\tb\nc \\ d</td>\", \"n\": [1, 2.50, -0, 1e400, true, null], \"s\": \"\\/\\n\\\"\"}";
        for rule in [ColonRule::Wide, ColonRule::Narrow] {
            assert!(agrees(text, rule), "{text}");
        }
        let mut out = String::new();
        let printed = print_repaired_at(text, 0, ColonRule::Narrow, None, &mut out).unwrap();
        assert_eq!(out, r#"{"html":"<td class=\"x\">a\tb\nc \\ d</td>","n":[1,2.5,0,null,true,null],"s":"/\n\""}"#);
        assert_eq!(printed.end, text.len());
        assert!(printed.wide_is_the_same && printed.self_contained);
    }

    #[test]
    fn what_the_text_does_not_say_is_left_to_the_value() {
        for text in [
            r#"{"b": 1, "0": 2}"#,
            r#"{"a": 1, "a": 2}"#,
            r#"{"k\n": 1}"#,
            r#"{"k": "\u00e9"}"#,
            r#"{"k": "unterminated"#,
            r#"{"k": 1,}"#,
            "[1]",
        ] {
            assert!(!agrees(text, ColonRule::Narrow), "{text}");
        }
    }

    #[test]
    fn braces_in_strings_answer_the_gate() {
        for (text, contained) in [
            (r#"{"a": "{x}", "b": ["}{"]}"#, false),
            (r#"{"a": "{x}", "b": ["{{}}"]}"#, true),
            (r#"{"a": "{"}"#, false),
            (r#"{"{": "}"}"#, false),
            (r#"{"{": "x"}"#, true),
        ] {
            let mut out = String::new();
            let printed = print_repaired_at(text, 0, ColonRule::Narrow, None, &mut out).unwrap();
            assert_eq!(printed.self_contained, contained, "{text}");
            assert!(agrees(text, ColonRule::Narrow));
        }
    }

    /// Text made mostly of the bytes the repair decides on ([`crate::exact::js::tests`] has the
    /// same kind for the parse).
    fn dense_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::strategy::Strategy;
        let pieces =
            ["\"", "\"", "\"", ":", ",", "}", "]", "{", "[", " ", "\\", "n", "/", "u00e9", "a", "\n", "\t", "é", "1"];
        proptest::collection::vec(proptest::sample::select(pieces.to_vec()), 0..60).prop_map(|p| p.concat())
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config { cases: 3000, ..Default::default() })]

        /// Over objects crowded with what the repair decides on, printing and building agree
        /// wherever printing answers, under both colon rules.
        #[test]
        fn printing_a_reading_agrees_with_building_it(body in dense_text(), other in dense_text(), narrow in proptest::bool::ANY) {
            let rule = if narrow { ColonRule::Narrow } else { ColonRule::Wide };
            for text in [
                format!(r#"{{"k": "{body}", "v": ["{other}", {{"w": "{body}"}}, 12]}}"#),
                format!("{{{body}}}"),
                format!(r#"{{"k": "{body}"}}"#),
            ] {
                agrees(&text, rule);
            }
        }
    }

    #[test]
    fn most_pages_are_printed_not_left_to_the_value() {
        // The shapes of the proptest above, counted: printing must answer most of them, or
        // the batch gains nothing from it.
        let bodies = ["<p class=\"a\">x</p>", "a \"quoted\" word", "line\nbreak", "tab\there", "\\d+ and \\n"];
        let printed = bodies
            .iter()
            .filter(|b| agrees(&format!(r#"{{"html": "{b}", "n": [1, "{b}"]}}"#), ColonRule::Narrow))
            .count();
        assert_eq!(printed, bodies.len());
    }
}
