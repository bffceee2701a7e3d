//! What the walk's candidates have in common, computed once per reply.
//!
//! The seed reads every candidate from scratch: a span scan to the matching brace, then
//! `JSON.parse` of the span. On brace-laden text that is quadratic or worse (a reply of `{`
//! scans to the end once per brace). The answers do not need that work, because two facts
//! make the readings of different candidates share almost everything:
//!
//! 1. **A reading parses iff the JSON grammar accepts the object at its `{` in the whole
//!    text.** The strict span is the string-aware brace match; where the text is valid JSON
//!    up to a point, the parser and the span scanner agree on every string and every brace,
//!    so the parser closes the object exactly where the span ends, and a parse that fails
//!    fails inside the span. The repaired reading is the same statement over the repaired
//!    text: the repair's string rule (the quote lookahead, `isEscape`, the escaped
//!    controls) decides the parser's strings too. So the walk needs no span scan at all:
//!    it asks the validator below whether the object at `j` reads, in which mode.
//! 2. **JSON is context-free from a value's start.** The object, array or string that
//!    starts at a position validates the same, and ends (or fails) at the same place,
//!    inside any enclosing candidate. So each outcome is memoized by position: once the
//!    outer candidate has validated (or failed through) a nested object, the walk's later
//!    descent into it costs one lookup. A string's end is shared further: every quote a
//!    string scan passes over without closing (an escaped `\"`, or in the repaired mode a
//!    quote the lookahead does not let close) continues the same scan from the same state,
//!    so a string opened there ends where the outer one does.
//!
//! Values are built only for the answer (one span, parsed once at the end). The counters
//! in [`Work`] exist so that a test can check linearity by counting, not by timing.

use super::js::next_string_special;
use super::repair::{is_escape, quote_closes};

/// Which reading: the strict one, or the repaired one under the wide or the narrow colon
/// rule. Under the narrow rule a quote followed by `:` ends only a key, which the validator
/// knows from the grammar (for text valid so far, the grammar's keys are exactly the
/// repair's key strings). A string's outcome then depends on whether it is a key as well as
/// on its position, so narrow strings are memoized in two tables, keys apart; a container
/// decides which of its strings are keys itself, so its outcome is memoized by position as in
/// the other modes (the narrow-colon what-ifs read every candidate this way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Strict,
    Wide,
    Narrow,
}

/// The end of a value (exclusive), or the position where reading it fails.
pub(crate) type Outcome = Result<usize, usize>;

/// Bytes examined, for the counting tests.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Work {
    /// Bytes the validator stepped over (including skipped whitespace and string bodies).
    pub bytes: u64,
    /// Memo lookups that saved a re-read.
    pub hits: u64,
}

/// Memoized validation of candidate readings for one reply, in one mode.
pub struct Validator<'a> {
    text: &'a str,
    bytes: &'a [u8],
    mode: Mode,
    /// Outcomes of containers, by start position. Only containers whose outcome lies far
    /// from their start are kept: a short one is cheaper to re-read than to store.
    containers: Table,
    /// Outcomes of strings, by the position of the quote that opens them (shared by every
    /// quote the scan passed over inside them).
    strings: Table,
    /// In the narrow mode, the outcomes of strings in key position (`strings` holds the
    /// others).
    keys: Table,
    /// Scratch space reused across calls: the open containers, a string's inner quotes.
    stack: Vec<Frame>,
    inner: Vec<usize>,
    pub work: Work,
}

/// Outcomes by position, in pages allocated where entries land: O(1) and cache-friendly
/// where the memo is dense (adversarial text), nearly nothing where it is sparse. An entry
/// is the outcome's distance from its position, so it fits in 32 bits; a reply longer than
/// that is not memoized (each lookup misses, and reading stays correct).
#[derive(Default)]
pub(crate) struct Table {
    pages: Vec<Option<Box<[u32; PAGE]>>>,
}

const PAGE: usize = 64;
const ERR_BIT: u32 = 1 << 31;

impl Table {
    pub(crate) fn get(&self, pos: usize) -> Option<Outcome> {
        let page = self.pages.get(pos / PAGE)?.as_ref()?;
        let entry = page[pos % PAGE];
        if entry == 0 {
            return None;
        }
        let reach = pos + ((entry & !ERR_BIT) - 1) as usize;
        Some(if entry & ERR_BIT == 0 { Ok(reach) } else { Err(reach) })
    }

    pub(crate) fn set(&mut self, pos: usize, outcome: Outcome) {
        let (reach, err) = match outcome {
            Ok(e) => (e, 0),
            Err(f) => (f, ERR_BIT),
        };
        let Some(distance) = reach.checked_sub(pos).and_then(|d| u32::try_from(d + 1).ok()) else { return };
        if distance >= ERR_BIT {
            return;
        }
        let index = pos / PAGE;
        if self.pages.len() <= index {
            self.pages.resize_with(index + 1, || None);
        }
        let page = self.pages[index].get_or_insert_with(|| Box::new([0; PAGE]));
        page[pos % PAGE] = distance | err;
    }
}

/// Outcomes closer than this to their start are not stored.
const MEMO_MIN: usize = 32;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// After `{`: a key or `}`.
    KeyOrClose,
    /// After `,` in an object: a key.
    Key,
    /// After a key: `:`.
    Colon,
    /// After `:` or `[` or `,` in an array: a value (or, after `[`, `]`).
    Value,
    ValueOrClose,
    /// After a value: `,` or the closer.
    CommaOrClose,
}

struct Frame {
    start: usize,
    object: bool,
    expect: Expect,
}

impl<'a> Validator<'a> {
    pub fn new(text: &'a str, mode: Mode) -> Validator<'a> {
        Validator {
            text,
            bytes: text.as_bytes(),
            mode,
            containers: Table::default(),
            strings: Table::default(),
            keys: Table::default(),
            stack: Vec::new(),
            inner: Vec::new(),
            work: Work::default(),
        }
    }

    /// Does this mode's reading of the object at `start` parse? `Ok(end)` when it does
    /// (`end` is the reading's span end), `Err(at)` with where it fails when it does not.
    pub fn object_at(&mut self, start: usize) -> Outcome {
        self.object_at_knowing(start, None)
    }

    /// [`Validator::object_at`], in a repaired mode, taking what the strict validator of the
    /// same reply already knows: a container that reads strictly reads the same repaired.
    /// Every string in it closes on a quote the grammar follows with `:` (a key) or `,` `}`
    /// `]` (a value), which is where the repair's lookahead closes it too, under either colon
    /// rule; its escapes are JSON's, which the repair keeps; it has no raw control character
    /// for the repair to escape. (Its failures say nothing: the repair may read past them.)
    pub fn object_at_knowing(&mut self, start: usize, strict: Option<&Validator>) -> Outcome {
        if self.bytes.get(start) != Some(&b'{') {
            return Err(start);
        }
        // An object's first token is a key or its `}`: most prose braces fail right here,
        // without a lookup.
        let first = self.skip_ws(start + 1);
        if !matches!(self.bytes.get(first), Some(b'"' | b'}')) {
            return Err(first);
        }
        let strict = strict.filter(|_| self.mode != Mode::Strict).map(|v| &v.containers);
        self.value_knowing(start, strict)
    }

    fn skip_ws(&mut self, mut at: usize) -> usize {
        let from = at;
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(at) {
            at += 1;
        }
        self.work.bytes += (at - from) as u64;
        at
    }

    fn remember(&mut self, start: usize, outcome: Outcome) {
        let reach = match outcome {
            Ok(e) | Err(e) => e,
        };
        if reach.saturating_sub(start) >= MEMO_MIN {
            self.containers.set(start, outcome);
        }
    }

    /// Validates the JSON value starting at `at`: `Ok(end)` or `Err(where it fails)`.
    pub fn value_at(&mut self, at: usize) -> Outcome {
        self.value_knowing(at, None)
    }

    /// [`Validator::value_at`], taking the strict reading's container successes where given,
    /// on the scratch stack kept between calls.
    fn value_knowing(&mut self, at: usize, strict: Option<&Table>) -> Outcome {
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        let outcome = self.value_in(&mut stack, at, strict);
        self.stack = stack;
        outcome
    }

    fn value_in(&mut self, stack: &mut Vec<Frame>, at: usize, strict: Option<&Table>) -> Outcome {
        let mut at = at;
        loop {
            // Here a value starts at `at`. Read it whole, or open a container.
            let ended: Outcome = match self.bytes.get(at) {
                Some(&open @ (b'{' | b'[')) => {
                    let known = self.containers.get(at).or_else(|| strict?.get(at).filter(Result::is_ok));
                    if let Some(outcome) = known {
                        self.work.hits += 1;
                        outcome
                    } else {
                        self.work.bytes += 1;
                        let object = open == b'{';
                        let expect = if object { Expect::KeyOrClose } else { Expect::ValueOrClose };
                        stack.push(Frame { start: at, object, expect });
                        at += 1;
                        match self.after_open(stack, at) {
                            Step::Value(p) => {
                                at = p;
                                continue;
                            }
                            Step::Done(outcome) => outcome,
                        }
                    }
                }
                Some(b'"') => {
                    let key = stack.last().is_some_and(|f| matches!(f.expect, Expect::Key | Expect::KeyOrClose));
                    self.string_at(at, key)
                }
                Some(_) => self.literal_at(at),
                None => Err(at),
            };
            // A value ended (or failed). Unwind into the enclosing containers.
            let mut outcome = ended;
            loop {
                let Some(frame) = stack.last_mut() else { return outcome };
                let end = match outcome {
                    Err(f) => {
                        // Every open container fails where its content failed.
                        self.fail_all(stack, f);
                        return Err(f);
                    }
                    Ok(end) => end,
                };
                frame.expect = match frame.expect {
                    Expect::Key | Expect::KeyOrClose => Expect::Colon,
                    _ => Expect::CommaOrClose,
                };
                match self.after_open(stack, end) {
                    Step::Value(p) => {
                        at = p;
                        break;
                    }
                    Step::Done(o) => outcome = o,
                }
            }
        }
    }

    /// Advances through punctuation in the innermost container from `at` until a value
    /// starts (its position) or the container closes or fails (its outcome, frame popped).
    fn after_open(&mut self, stack: &mut Vec<Frame>, mut at: usize) -> Step {
        loop {
            at = self.skip_ws(at);
            let Some(frame) = stack.last_mut() else { return Step::Done(Err(at)) };
            let b = self.bytes.get(at).copied();
            self.work.bytes += 1;
            let close = if frame.object { b'}' } else { b']' };
            match (frame.expect, b) {
                (Expect::KeyOrClose | Expect::ValueOrClose | Expect::CommaOrClose, Some(c)) if c == close => {
                    let start = frame.start;
                    stack.pop();
                    self.remember(start, Ok(at + 1));
                    return Step::Done(Ok(at + 1));
                }
                (Expect::KeyOrClose | Expect::Key, Some(b'"')) => return Step::Value(at),
                (Expect::Colon, Some(b':')) => {
                    frame.expect = Expect::Value;
                    at += 1;
                }
                (Expect::CommaOrClose, Some(b',')) => {
                    frame.expect = if frame.object { Expect::Key } else { Expect::Value };
                    at += 1;
                }
                (Expect::Value | Expect::ValueOrClose, Some(_)) => return Step::Value(at),
                _ => {
                    self.fail_all(stack, at);
                    return Step::Done(Err(at));
                }
            }
        }
    }

    /// Every open container fails at `at`; the stack is emptied.
    fn fail_all(&mut self, stack: &mut Vec<Frame>, at: usize) {
        for frame in stack.drain(..) {
            if at - frame.start >= MEMO_MIN {
                self.containers.set(frame.start, Err(at));
            }
        }
    }

    /// `true`, `false`, `null` or a number at `at`.
    fn literal_at(&mut self, at: usize) -> Outcome {
        let rest = &self.bytes[at..];
        for word in [&b"true"[..], b"false", b"null"] {
            if rest.first() == word.first() {
                self.work.bytes += word.len() as u64;
                return if rest.starts_with(word) { Ok(at + word.len()) } else { Err(at) };
            }
        }
        let mut i = at;
        let digits = |i: &mut usize, bytes: &[u8]| {
            let from = *i;
            while bytes.get(*i).is_some_and(u8::is_ascii_digit) {
                *i += 1;
            }
            *i - from
        };
        if self.bytes.get(i) == Some(&b'-') {
            i += 1;
        }
        match self.bytes.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => {
                digits(&mut i, self.bytes);
            }
            _ => return Err(i),
        }
        if self.bytes.get(i) == Some(&b'.') {
            i += 1;
            if digits(&mut i, self.bytes) == 0 {
                return Err(i);
            }
        }
        if let Some(b'e' | b'E') = self.bytes.get(i) {
            i += 1;
            if let Some(b'+' | b'-') = self.bytes.get(i) {
                i += 1;
            }
            if digits(&mut i, self.bytes) == 0 {
                return Err(i);
            }
        }
        self.work.bytes += (i - at) as u64;
        Ok(i)
    }

    /// Where the outcomes of strings like this one are kept.
    fn strings(&mut self, key: bool) -> &mut Table {
        if key && self.mode == Mode::Narrow { &mut self.keys } else { &mut self.strings }
    }

    /// The string whose opening quote is at `open`, in this mode.
    fn string_at(&mut self, open: usize, key: bool) -> Outcome {
        if let Some(outcome) = self.strings(key).get(open) {
            self.work.hits += 1;
            return outcome;
        }
        let mut i = open + 1;
        // Quotes the repair escaped inside this string: a string opened at one continues
        // from the same state, so it shares this one's outcome. (A quote escaped by a
        // backslash is never where a value starts, so only the repair's count.)
        let first_inner = self.inner.len();
        let outcome = loop {
            i = next_string_special(self.bytes, i);
            let Some(&c) = self.bytes.get(i) else { break Err(i) };
            match c {
                b'"' => {
                    if self.mode == Mode::Strict || self.quote_closes(i, self.mode == Mode::Wide || key) {
                        break Ok(i + 1);
                    }
                    self.inner.push(i);
                    i += 1;
                }
                b'\\' => {
                    let escape = match self.mode {
                        Mode::Strict => strict_escape_len(self.bytes, i),
                        // The repair keeps an escape JSON allows and doubles any other
                        // backslash; either way the parser reads on.
                        Mode::Wide | Mode::Narrow => Some(if is_escape(self.text, i) { 2 } else { 1 }),
                    };
                    let Some(len) = escape else { break Err(i) };
                    i += len;
                }
                b'\n' | b'\r' | b'\t' if self.mode != Mode::Strict => i += 1,
                _ => break Err(i),
            }
        };
        self.work.bytes += (i - open) as u64;
        let reach = match outcome {
            Ok(e) | Err(e) => e,
        };
        if reach - open >= MEMO_MIN {
            self.strings(key).set(open, outcome);
            for k in first_inner..self.inner.len() {
                let q = self.inner[k];
                let table = self.strings(key);
                if reach - q >= MEMO_MIN && table.get(q).is_none() {
                    table.set(q, outcome);
                }
            }
        }
        self.inner.truncate(first_inner);
        outcome
    }

    /// The repair's rule for a quote inside a string ([`quote_closes`]).
    fn quote_closes(&mut self, i: usize, colon_closes: bool) -> bool {
        self.work.bytes += 1;
        quote_closes(self.text, i, colon_closes)
    }
}

enum Step {
    /// A value starts here.
    Value(usize),
    /// The innermost container closed (or failed) with this outcome.
    Done(Outcome),
}

/// The length of the JSON escape at `i` (a backslash), or `None` when JSON refuses it.
fn strict_escape_len(bytes: &[u8], i: usize) -> Option<usize> {
    match bytes.get(i + 1)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(2),
        b'u' => bytes.get(i + 2..i + 6).filter(|h| h.iter().all(u8::is_ascii_hexdigit)).map(|_| 6),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::js;
    use crate::read::repair::{ColonRule, repaired_span};
    use crate::read::strict::strict_span;

    /// The validator's verdict must be the seed's: the span parses, and ends where it says.
    fn agree(text: &str) {
        let mut strict = Validator::new(text, Mode::Strict);
        let mut wide = Validator::new(text, Mode::Wide);
        let mut narrow = Validator::new(text, Mode::Narrow);
        for (j, _) in text.match_indices('{') {
            let seed_strict = strict_span(text, j).filter(|&e| js::is_json(&text[j..e]));
            assert_eq!(strict.object_at(j).ok(), seed_strict, "strict at {j} in {text:?}");
            let seed_wide =
                repaired_span(text, j, ColonRule::Wide, None).filter(|r| js::is_json(&r.text)).map(|r| r.end);
            assert_eq!(wide.object_at(j).ok(), seed_wide, "wide at {j} in {text:?}");
            let seed_narrow =
                repaired_span(text, j, ColonRule::Narrow, None).filter(|r| js::is_json(&r.text)).map(|r| r.end);
            assert_eq!(narrow.object_at(j).ok(), seed_narrow, "narrow at {j} in {text:?}");
        }
        // Again, taking what the strict reading learned (all of it, in every order).
        let mut knowing = Validator::new(text, Mode::Wide);
        for (j, _) in text.match_indices('{').collect::<Vec<_>>().into_iter().rev() {
            let seed_wide =
                repaired_span(text, j, ColonRule::Wide, None).filter(|r| js::is_json(&r.text)).map(|r| r.end);
            assert_eq!(knowing.object_at_knowing(j, Some(&strict)).ok(), seed_wide, "wide knowing at {j} in {text:?}");
        }
    }

    #[test]
    fn verdicts_agree_with_span_then_parse() {
        for t in [
            r#"{"a": {"b": [1, {"c": "}"}]}, "d": "\"{"} tail {"x": 1}"#,
            r#"{"html": "<q>"hi"</q>", "log": "a: b"}"#,
            "{\"a\": \"x\ny\t\\'\"}",
            r#"{"a":{"a":{"a":{"a":"#,
            r#""{"{"{"{"{"{"#,
            r#"{"a":"{"a":"{"a":""#,
            "{\"a\": \"\u{1}\"} {\"b\": [}] {}",
            r#"{"a":1}{"a":1}{ {"a":[1,2,{"b":null}],"c":-0.5e+3} {"x": 01} {"y": 1.}"#,
            r#"{"a" : "b" , "c":true,"d":false,"e":nul}"#,
            r#"{"a":"\u00e9\ud800\u12G4"}"#,
            r#"{"notes": "read as { "faithful": true, "problems": [] }; no", "a": [{"b": "x": "y"}]}"#,
            r#"{"a": "x", "b" : "k": 1, "c": ["d": "e"]}"#,
        ] {
            agree(t);
        }
    }

    #[test]
    fn shared_strings_do_not_rescan() {
        let text = "\"{".repeat(4096);
        let mut wide = Validator::new(&text, Mode::Wide);
        for (j, _) in text.match_indices('{') {
            let _ = wide.object_at(j);
        }
        assert!(wide.work.bytes < 8 * text.len() as u64, "{:?} for {} bytes", wide.work, text.len());
    }
}
