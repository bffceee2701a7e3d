//! The JavaScript semantics the seed readers rely on, exactly.
//!
//! A port that reaches for the nearest Rust equivalent goes wrong silently in three places:
//!
//! * **Whitespace.** `String.prototype.trim` and the regex class `\s` use ECMAScript's
//!   WhiteSpace and LineTerminator sets, not Unicode's ([`super::lex`] has them).
//! * **`JSON.parse`.** serde_json refuses a lone surrogate escape (`"\ud800"`), stops at a
//!   recursion limit of 128, parses `1e400` as an error unless asked otherwise, and keeps
//!   keys in its own order. JavaScript accepts the first three and orders keys its own way.
//!   So the parse below is written for this: a validating cursor over bytes, iterative (no
//!   depth the input controls reaches the call stack), building a [`Value`] that keeps
//!   what JavaScript keeps.
//! * **Offsets.** The seeds index strings in UTF-16 code units. Every comparison they make
//!   between offsets and lengths is between two positions in the same string, so comparing
//!   byte offsets gives the same answers; UTF-16 numbers are derived only to be shown
//!   (see [`super::span`]).

use std::collections::HashMap;
use std::fmt;

use super::lex::{next_string_special, push_run, simple_escape, unescape_dense};
use super::repair::{AfterQuote, ColonRule, after_quote, escaped_before_plain, is_escape};
use super::value::{JsString, Object, Value, array_index};

mod escaped;
mod print;
pub use escaped::Escaped;
pub use print::{Printed, print_repaired_at};

/// Why a text is not JSON, in the words `JSON.parse` would use, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseError {
    pub kind: ParseErrorKind,
    /// Byte offset into the parsed text.
    pub offset: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseErrorKind {
    UnexpectedEnd,
    UnexpectedToken(char),
    UnterminatedString,
    BadControlCharacter,
    BadEscape,
    BadUnicodeEscape,
    BadNumber,
    TrailingCharacters,
    /// Not JSON, found by validation without a full parse (no finer reason recorded).
    Invalid,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ParseErrorKind::UnexpectedEnd => write!(f, "unexpected end of JSON input"),
            ParseErrorKind::UnexpectedToken(c) => write!(f, "unexpected token {c:?}"),
            ParseErrorKind::UnterminatedString => write!(f, "unterminated string"),
            ParseErrorKind::BadControlCharacter => write!(f, "bad control character in string literal"),
            ParseErrorKind::BadEscape => write!(f, "bad escaped character"),
            ParseErrorKind::BadUnicodeEscape => write!(f, "bad Unicode escape"),
            ParseErrorKind::BadNumber => write!(f, "no number after minus sign, or digits missing"),
            ParseErrorKind::TrailingCharacters => write!(f, "unexpected non-whitespace character after JSON"),
            ParseErrorKind::Invalid => write!(f, "not JSON"),
        }?;
        write!(f, " at byte {}", self.offset)
    }
}

impl std::error::Error for ParseError {}

/// `JSON.parse(text)`.
pub fn parse(text: &str) -> Result<Value, ParseError> {
    parse_with(&mut Parser::new(text, 0, None))
}

/// [`parse`] for a caller that hands the value's long strings back with [`recycle`] once
/// done (a batch, each line's reply text): a string with escapes is given the thread's
/// buffer whole instead of a copy of its size, so that one buffer goes round from line to
/// line. Copies of every size a reply has would each take a page of the allocator's, and
/// fresh memory faulted in, which cost a batch more than decoding the text.
///
/// With the value come the places its long strings were written in `text` ([`Escaped`]),
/// for printing them again without escaping them again.
pub fn parse_recycled(text: &str) -> Result<(Value, Vec<Escaped<'_>>), ParseError> {
    let mut parser = Parser { whole_buffers: true, ..Parser::new(text, 0, None) };
    let value = parse_with(&mut parser)?;
    Ok((value, parser.escaped))
}

fn parse_with(parser: &mut Parser) -> Result<Value, ParseError> {
    let value = parser.value()?;
    parser.skip_ws();
    if parser.at < parser.bytes.len() {
        return Err(parser.error(ParseErrorKind::TrailingCharacters, parser.at));
    }
    Ok(value)
}

/// The value of the repaired reading of the object at `start` under `rule` (what
/// `JSON.parse(repairedSpan(text, start, …).text)` gives) and the reading's end, read
/// straight from the reply: the repair's string rule is applied as the strings are read, so
/// no repaired copy of the text is made. Meant for a reading known to parse (see
/// [`super::memo`]); where one does not, the error's offset is in the reply, not in the
/// repaired text `JSON.parse` would have reported against.
pub fn parse_repaired_at(text: &str, start: usize, rule: ColonRule) -> Result<(Value, usize), ParseError> {
    parse_repaired(text, start, rule).map(|r| (r.value, r.end))
}

/// A repaired reading parsed straight from the reply ([`parse_narrow_at`]).
pub struct RepairedReading {
    pub value: Value,
    /// Where the reading ends in the reply.
    pub end: usize,
    /// Whether the wide reading of the same object is this one, value and end: the narrow
    /// rule kept no string open at a `"` followed by `:`, the one place the two rules differ,
    /// so the wide rule made every decision this reading made.
    pub wide_is_the_same: bool,
}

/// [`parse_repaired_at`] under the narrow colon rule, saying whether the wide reading would
/// have read the same.
pub fn parse_narrow_at(text: &str, start: usize) -> Result<RepairedReading, ParseError> {
    parse_repaired(text, start, ColonRule::Narrow)
}

fn parse_repaired(text: &str, start: usize, rule: ColonRule) -> Result<RepairedReading, ParseError> {
    parse_repaired_with(&mut Parser::new(text, start, Some(rule)))
}

fn parse_repaired_with(parser: &mut Parser) -> Result<RepairedReading, ParseError> {
    if parser.peek() != Some(b'{') {
        return Err(parser.unexpected(parser.at));
    }
    let value = parser.value()?;
    Ok(RepairedReading { value, end: parser.at, wide_is_the_same: !parser.colon_kept_open })
}

/// [`parse_narrow_at`], with where each object inside the reading that holds nothing the
/// repair escaped starts and ends (in the order they close; not an empty one).
///
/// Such an object reads strictly, to the same end: the repair departs from the strict
/// reading only at what it escapes (a quote it does not let close, a raw line feed, carriage
/// return or tab, a backslash that begins no escape), so without one the strict reading
/// makes the same tokens. (An object that holds one does not read strictly: strict closes
/// that quote, or fails at that byte, where the grammar then fails.)
pub fn parse_narrow_noting(text: &str, start: usize) -> Result<(RepairedReading, Vec<(usize, usize)>), ParseError> {
    let mut parser = Parser::new(text, start, Some(ColonRule::Narrow));
    parser.clean = Some(Vec::new());
    let read = parse_repaired_with(&mut parser)?;
    Ok((read, parser.clean.unwrap_or_default()))
}

/// Whether `JSON.parse(text)` would succeed, without building the value.
pub fn is_json(text: &str) -> bool {
    parse(text).is_ok()
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    /// Reading through the repair (its string rule under this colon rule), or plain JSON.
    repair: Option<ColonRule>,
    /// Under the narrow rule: a value string went on past a `"` followed by `:`, where the
    /// wide rule would have closed it.
    colon_kept_open: bool,
    /// The last byte the repair escaped, as far as telling the objects that hold none needs
    /// it: the first in each string (any string with one has it, inside the same object), and
    /// where it is asked for, those objects ([`parse_narrow_noting`]).
    last_repair: Option<usize>,
    clean: Option<Vec<(usize, usize)>>,
    /// Strings with escapes keep the thread's buffer, and long ones say where they were
    /// written ([`parse_recycled`]).
    whole_buffers: bool,
    escaped: Vec<Escaped<'a>>,
    /// Where the text was written in JSON, for printing it again ([`print_repaired_at`]).
    written: Option<&'a Escaped<'a>>,
}

/// A container being filled. Its items wait on the parser's scratch stacks (shared by every
/// open container, each owning the top from its `start`) and are moved once, into a
/// container of exactly their number, when it closes: no container grows by doubling.
enum Frame {
    Array {
        start: usize,
    },
    Object {
        start: usize,
        /// Where its `{` is in the text.
        open: usize,
        /// The key of the value being read.
        key: JsString,
        keys: Keys,
    },
}

/// What an object being filled knows of its keys, to give JavaScript's order: array indices
/// ascending, then the rest in first-insertion order, a repeated key overwriting in place.
#[derive(Default)]
struct Keys {
    /// Key → position, built once an object is big enough for linear search to hurt. Boxed:
    /// a frame waits on the parser's stack for every open object, a million of them in a
    /// reply nested a million deep.
    #[allow(clippy::box_collection, reason = "a pointer in each waiting frame, not an empty map's 48 bytes")]
    index: Option<Box<HashMap<JsString, usize>>>,
    has_array_index: bool,
}

const INDEX_AFTER: usize = 16;

impl FromIterator<(JsString, Value)> for Object {
    /// An object as JavaScript builds it from these properties in this order (what
    /// `JSON.parse` of the same text would give): array indices first, a repeated key
    /// overwriting in place.
    fn from_iter<I: IntoIterator<Item = (JsString, Value)>>(pairs: I) -> Object {
        let mut keys = Keys::default();
        let mut entries = Vec::new();
        for (k, v) in pairs {
            keys.insert(&mut entries, 0, k, v);
        }
        keys.finish(entries)
    }
}

impl Keys {
    /// Sets `key` to `value` among `entries` (the object's own from `start`): in the place
    /// the key first took, or a new one at the end.
    fn insert(&mut self, entries: &mut Vec<(JsString, Value)>, start: usize, key: JsString, value: Value) {
        let found = match &self.index {
            Some(index) => index.get(&key).copied(),
            None => entries[start..].iter().position(|(k, _)| *k == key).map(|i| start + i),
        };
        if let Some(entry) = found.and_then(|i| entries.get_mut(i)) {
            entry.1 = value;
            return;
        }
        if !self.has_array_index && array_index(&key).is_some() {
            self.has_array_index = true;
        }
        let slot = entries.len();
        if let Some(index) = &mut self.index {
            index.insert(key.clone(), slot);
        }
        entries.push((key, value));
        if self.index.is_none() && slot - start >= INDEX_AFTER {
            let own = entries[start..].iter().enumerate();
            self.index = Some(Box::new(own.map(|(i, (k, _))| (k.clone(), start + i)).collect()));
        }
    }

    /// The object of these entries, in JavaScript's order.
    fn finish(self, mut entries: Vec<(JsString, Value)>) -> Object {
        if self.has_array_index {
            // Stable: the named keys keep their insertion order behind the indices.
            entries.sort_by_key(|(k, _)| match array_index(k) {
                Some(n) => (0, n),
                None => (1, 0),
            });
        }
        Object::from_entries(entries)
    }
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, at: usize, repair: Option<ColonRule>) -> Parser<'a> {
        Parser {
            text,
            bytes: text.as_bytes(),
            at,
            repair,
            colon_kept_open: false,
            last_repair: None,
            clean: None,
            whole_buffers: false,
            escaped: Vec::new(),
            written: None,
        }
    }

    #[cold]
    fn error(&self, kind: ParseErrorKind, offset: usize) -> ParseError {
        ParseError { kind, offset }
    }

    #[cold]
    fn unexpected(&self, at: usize) -> ParseError {
        match self.text.get(at..).and_then(|s| s.chars().next()) {
            Some(c) => self.error(ParseErrorKind::UnexpectedToken(c), at),
            None => self.error(ParseErrorKind::UnexpectedEnd, at),
        }
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    /// One value from the cursor; the cursor ends just past it.
    fn value(&mut self) -> Result<Value, ParseError> {
        let mut stack: Vec<Frame> = Vec::new();
        // The items of every open array, and the properties of every open object, each
        // container's on top of its parent's.
        let mut items: Vec<Value> = Vec::new();
        let mut entries: Vec<(JsString, Value)> = Vec::new();
        'value: loop {
            // Parse one value (opening a container pushes a frame and loops back here).
            self.skip_ws();
            let mut value = match self.peek() {
                Some(b'{') => {
                    let open = self.at;
                    self.at += 1;
                    self.skip_ws();
                    if self.peek() == Some(b'}') {
                        self.at += 1;
                        Value::Object(Object::new())
                    } else {
                        let key = self.key()?;
                        stack.push(Frame::Object { start: entries.len(), open, key, keys: Keys::default() });
                        continue 'value;
                    }
                }
                Some(b'[') => {
                    self.at += 1;
                    self.skip_ws();
                    if self.peek() == Some(b']') {
                        self.at += 1;
                        Value::Array(Vec::new())
                    } else {
                        stack.push(Frame::Array { start: items.len() });
                        continue 'value;
                    }
                }
                Some(b'"') => Value::String(self.string(false)?),
                Some(b'-' | b'0'..=b'9') => Value::Number(self.number()?),
                Some(b't') => self.literal(b"true", Value::Bool(true))?,
                Some(b'f') => self.literal(b"false", Value::Bool(false))?,
                Some(b'n') => self.literal(b"null", Value::Null)?,
                _ => return Err(self.unexpected(self.at)),
            };
            // Hand the value to its container; close every container that ends here.
            loop {
                let Some(frame) = stack.last_mut() else { return Ok(value) };
                self.skip_ws();
                match frame {
                    Frame::Array { start } => {
                        items.push(value);
                        match self.peek() {
                            Some(b',') => {
                                self.at += 1;
                                continue 'value;
                            }
                            Some(b']') => {
                                self.at += 1;
                                // Exactly as many as there are: a copy, not the scratch's room.
                                value = Value::Array(items.split_off(*start));
                                stack.pop();
                            }
                            _ => return Err(self.unexpected(self.at)),
                        }
                    }
                    Frame::Object { start, key, keys, .. } => {
                        keys.insert(&mut entries, *start, std::mem::take(key), value);
                        match self.peek() {
                            Some(b',') => {
                                self.at += 1;
                                self.skip_ws();
                                *key = self.key()?;
                                continue 'value;
                            }
                            Some(b'}') => {
                                self.at += 1;
                                let Some(Frame::Object { start, open, keys, .. }) = stack.pop() else {
                                    return Err(frame_error());
                                };
                                if let Some(clean) = self.clean.as_mut()
                                    && self.last_repair.is_none_or(|r| r < open)
                                {
                                    clean.push((open, self.at));
                                }
                                value = Value::Object(keys.finish(entries.split_off(start)));
                            }
                            _ => return Err(self.unexpected(self.at)),
                        }
                    }
                }
            }
        }
    }

    /// A key and its colon; the cursor is on the key's opening quote.
    fn key(&mut self) -> Result<JsString, ParseError> {
        if self.peek() != Some(b'"') {
            return Err(self.unexpected(self.at));
        }
        let key = self.string(true)?;
        self.skip_ws();
        if self.peek() != Some(b':') {
            return Err(self.unexpected(self.at));
        }
        self.at += 1;
        Ok(key)
    }

    fn literal(&mut self, word: &[u8], value: Value) -> Result<Value, ParseError> {
        for (i, &b) in word.iter().enumerate() {
            if self.bytes.get(self.at + i) != Some(&b) {
                return Err(self.unexpected(self.at + i));
            }
        }
        self.at += word.len();
        Ok(value)
    }

    fn number(&mut self) -> Result<f64, ParseError> {
        let start = self.at;
        let digits = |p: &mut Self| {
            let from = p.at;
            while let Some(b'0'..=b'9') = p.peek() {
                p.at += 1;
            }
            p.at - from
        };
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return Err(self.number_error()),
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            if digits(self) == 0 {
                return Err(self.number_error());
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            if digits(self) == 0 {
                return Err(self.number_error());
            }
        }
        // Rust's float parsing is correctly rounded, as ECMAScript's is, and overflows to
        // infinity as `JSON.parse("1e400")` does.
        self.text[start..self.at].parse::<f64>().map_err(|_| self.error(ParseErrorKind::BadNumber, start))
    }

    #[cold]
    fn number_error(&self) -> ParseError {
        match self.peek() {
            None => self.error(ParseErrorKind::UnexpectedEnd, self.at),
            Some(_) => self.error(ParseErrorKind::BadNumber, self.at),
        }
    }

    /// The first special byte after `at` (one the repair escapes, inside a string) that the
    /// repair does not escape. What the repair escapes is read as itself, so the string's text
    /// runs on past every one of them. Kept out of [`Self::string`]: most strings hold no byte
    /// the repair escapes, and ask [`Self::repaired_at`] only of their end.
    ///
    /// A quote followed at once by a byte that is not whitespace is decided by that byte
    /// alone, and where the quote is escaped that byte also says where the next special one
    /// is, with no search: a page of quotes in a row costs a few comparisons each. Every other
    /// case is asked of the repair's rule in full.
    #[inline(never)]
    fn past_repaired(&mut self, at: usize, key: bool) -> usize {
        let colon_closes = self.repair != Some(ColonRule::Narrow) || key;
        let mut at = next_string_special(self.bytes, at + 1);
        loop {
            if self.bytes.get(at) == Some(&b'"') {
                match self.bytes.get(at + 1) {
                    None | Some(b',' | b'}' | b']') => return at,
                    // Another quote: this one is escaped, and that one is next.
                    Some(b'"') => {
                        at += 1;
                        continue;
                    }
                    Some(b':') if colon_closes => return at,
                    Some(b':') => {
                        self.colon_kept_open = true;
                        at = match self.bytes.get(at + 2) {
                            Some(b'"') => at + 2,
                            _ => next_string_special(self.bytes, at + 2),
                        };
                        continue;
                    }
                    // Any other printable ASCII byte but `\`: escaped, and the byte after it
                    // is not special.
                    Some(&b) if escaped_before_plain(b) => {
                        at = next_string_special(self.bytes, at + 2);
                        continue;
                    }
                    Some(_) => {}
                }
            }
            if !self.repaired_at(at, key) {
                return at;
            }
            at = next_string_special(self.bytes, at + 1);
        }
    }

    /// Whether the byte at `at`, inside a string, is one the repair would have escaped (so
    /// that it is read as itself): a quote that does not close, a raw line feed, carriage
    /// return or tab, a backslash that begins no escape.
    #[inline(always)]
    fn repaired_at(&mut self, at: usize, key: bool) -> bool {
        let Some(rule) = self.repair else { return false };
        let repaired = match self.bytes.get(at) {
            Some(b'"') => match after_quote(self.text, at) {
                AfterQuote::Closes => false,
                AfterQuote::Colon if rule == ColonRule::Wide || key => false,
                AfterQuote::Colon => {
                    self.colon_kept_open = true;
                    true
                }
                AfterQuote::Continues => true,
            },
            Some(b'\n' | b'\r' | b'\t') => true,
            Some(b'\\') => !is_escape(self.bytes, at),
            _ => false,
        };
        if repaired {
            self.last_repair = Some(at);
        }
        repaired
    }

    /// A string literal; the cursor is on its opening quote. `key`: it is in key position
    /// (which the narrow colon rule asks).
    fn string(&mut self, key: bool) -> Result<JsString, ParseError> {
        let open = self.at;
        let body = open + 1;
        // Most strings hold no escape: they are their own text, found by one scan and
        // copied once into a string of exactly their size. What the repair escapes is read
        // as itself, so it stays in that text.
        let mut at = next_string_special(self.bytes, body);
        if self.repair.is_some() && self.repaired_at(at, key) {
            at = self.past_repaired(at, key);
        }
        if self.bytes.get(at) == Some(&b'"') {
            self.at = at + 1;
            let text = self.text[body..at].to_owned();
            if self.whole_buffers && text.len() >= MARKED {
                // Its own text, written as it is: a string whose place in memory another
                // marked before it had (and dropped) must not be taken for that one.
                self.escaped.push(escaped::Marks::new(body).finish(&self.text[body..at], &text));
            }
            return Ok(JsString::Utf8(text));
        }
        // An escape, a control character or the end: read on from there, with room for
        // what the raw text can decode to (escapes only shorten it; the repair's kept
        // quotes may lengthen it past a quote this measure stops at).
        let mut scratch = Scratch::with(&self.text[body..at]);
        let mut marks = self.whole_buffers.then(|| escaped::Marks::new(body));
        let out = &mut scratch.0;
        self.at = at;
        // Set once a lone surrogate appears: from then on the string is built in UTF-16,
        // the only form that can hold one.
        let mut units: Option<Vec<u16>> = None;
        // A high surrogate escape waiting for its low half.
        let mut high: Option<u16> = None;
        let mut sized = false;
        loop {
            // A long string (a reply's HTML, 200 MB of it) is measured once and given its
            // room, instead of growing by doubling and leaving each smaller buffer behind.
            if !sized && out.len() >= LONG_STRING {
                sized = true;
                out.reserve_exact(closing_quote(self.bytes, self.at) - self.at);
            }
            if self.repair.is_none() && units.is_none() && high.is_none() {
                let upto = if sized { usize::MAX } else { LONG_STRING };
                self.at = plain_and_short_escapes(self.text, self.at, out, upto, marks.as_mut());
            }
            let run = self.at;
            self.at = next_string_special(self.bytes, self.at);
            // What the repair escapes is read as itself: it stays in the run. Asked a byte at a
            // time here, not by `past_repaired`: a call from this loop slows the escapes of
            // every strictly read string that has them.
            while self.repaired_at(self.at, key) {
                self.at = next_string_special(self.bytes, self.at + 1);
            }
            if self.at > run {
                let text = &self.text[run..self.at];
                flush_high(out, &mut units, &mut high);
                match &mut units {
                    Some(u) => u.extend(text.encode_utf16()),
                    None => out.push_str(text),
                }
            }
            // The one-character escapes, however many come in a row (a page's `\"` and
            // `\n`), straight into the text; the general path below takes the rest.
            if units.is_none() && high.is_none() {
                let before = self.at;
                while let Some(b'\\') = self.peek()
                    && let Some(c) = self.bytes.get(self.at + 1).and_then(|&e| simple_escape(e))
                {
                    out.push(char::from(c));
                    self.at += 2;
                }
                if self.at > before {
                    continue;
                }
            }
            match self.peek() {
                None => return Err(self.error(ParseErrorKind::UnterminatedString, open)),
                Some(b'"') => {
                    self.at += 1;
                    flush_high(out, &mut units, &mut high);
                    return Ok(match units {
                        Some(u) => JsString::from_utf16(u),
                        None => {
                            let decoded = scratch.finish(self.whole_buffers);
                            if let Some(marks) = marks
                                && decoded.len() >= MARKED
                            {
                                self.escaped.push(marks.finish(&self.text[body..self.at - 1], &decoded));
                            }
                            JsString::Utf8(decoded)
                        }
                    });
                }
                Some(b'\\') => {
                    let esc = self.at;
                    let unit: u16 = match self.bytes.get(self.at + 1) {
                        Some(&e) if let Some(c) = simple_escape(e) => u16::from(c),
                        Some(b'u') => match self.bytes.get(self.at + 2..self.at + 6).and_then(hex_unit) {
                            Some(unit) => {
                                self.at += 4;
                                unit
                            }
                            None if self.at + 6 > self.bytes.len() => {
                                return Err(self.error(ParseErrorKind::UnterminatedString, open));
                            }
                            None => return Err(self.error(ParseErrorKind::BadUnicodeEscape, esc)),
                        },
                        None => return Err(self.error(ParseErrorKind::UnterminatedString, open)),
                        Some(_) => return Err(self.error(ParseErrorKind::BadEscape, esc)),
                    };
                    self.at += 2;
                    push_unit(out, &mut units, &mut high, unit);
                }
                Some(_) => return Err(self.error(ParseErrorKind::BadControlCharacter, self.at)),
            }
        }
    }
}

/// Decodes the body of a strict string from `at` into `out` for as long as it holds plain
/// bytes and one-character escapes, or until `out` reaches `upto` bytes; where it stopped
/// (at the closing quote, a `\u` escape, a control character, the end, or just past an
/// escape). Plain runs are found a word at a time and copied whole; where escapes come thick
/// (a reply's JSON quoted in a log: `\"` every few bytes), the stretch is decoded a byte at
/// a time on the stack ([`unescape_dense`]): a search would cost more than the bytes it
/// passes over.
///
/// With `marks`, places between escapes are marked as they are passed ([`Escaped`]).
fn plain_and_short_escapes(
    text: &str,
    mut at: usize,
    out: &mut String,
    upto: usize,
    mut marks: Option<&mut escaped::Marks>,
) -> usize {
    let bytes = text.as_bytes();
    let mut run = at;
    loop {
        if let Some(marks) = marks.as_deref_mut() {
            marks.offer(out.len(), at);
        }
        at = next_string_special(bytes, at);
        push_run(out, text, run, at);
        let Some(c) = bytes.get(at + 1).and_then(|&e| simple_escape(e)).filter(|_| bytes.get(at) == Some(&b'\\'))
        else {
            return at;
        };
        // An escape alone is pushed as itself; one with another a byte or two on starts a
        // dense stretch.
        if bytes.get(at + 2) == Some(&b'\\') || bytes.get(at + 3) == Some(&b'\\') {
            at = unescape_dense(bytes, at, out);
        } else {
            out.push(char::from(c));
            at += 2;
        }
        run = at;
        if out.len() >= upto {
            return at;
        }
    }
}

/// Strings at least this long are given the thread's buffer whole by [`parse_recycled`]:
/// shorter ones are copied, as the allocator keeps small sizes close at hand.
const WHOLE_BUFFER: usize = 4096;

/// Strings at least this long say where they were written ([`parse_recycled`]): shorter
/// ones are printed as fast escaped again.
const MARKED: usize = 1024;

/// Strings at least this long are given room for the rest of themselves at once.
const LONG_STRING: usize = 1 << 20;

/// A string with escapes is decoded into a buffer kept by the thread and copied out at its
/// exact size: grown by doubling, it would be copied at each step and leave behind buffers
/// of as many sizes, each fresh memory to fault in (together a fifth of what `extract
/// --jsonl` spent on a corpus of long replies). A string that fills most of the buffer (one
/// that grew past [`LONG_STRING`] is given room for itself alone) takes the buffer with it.
/// The thread keeps a buffer of up to [`KEPT_SCRATCH`]: a batch of replies of a megabyte
/// or more decodes each into the last one's room, where a buffer fresh for each would be
/// faulted in afresh (a third of the time of a batch of such replies).
struct Scratch(String);

/// The largest buffer a thread keeps for the next string.
const KEPT_SCRATCH: usize = 8 << 20;

thread_local! {
    static SCRATCH: std::cell::Cell<String> = const { std::cell::Cell::new(String::new()) };
}

impl Scratch {
    /// The thread's buffer, holding `start`.
    fn with(start: &str) -> Scratch {
        let mut buf = SCRATCH.take();
        buf.clear();
        buf.push_str(start);
        Scratch(buf)
    }

    /// The string decoded: the buffer itself where the string fills most of it, or is long
    /// and `whole` asks for it (a caller done with it may hand it back, [`recycle`]), a copy
    /// of its size where it does not.
    fn finish(mut self, whole: bool) -> String {
        let long = self.0.len() >= WHOLE_BUFFER;
        if (whole && long) || self.0.len() * 2 >= self.0.capacity() {
            std::mem::take(&mut self.0)
        } else {
            String::from(self.0.as_str())
        }
    }
}

/// Makes room for `len` bytes of text in the buffer the thread's next string with escapes
/// is decoded into: a caller that knows how long the text may be (a line's length bounds its
/// strings') spares a long one the buffers of every size it would grow through, each fresh
/// memory to fault in.
pub fn reserve_recycled(len: usize) {
    if len <= KEPT_SCRATCH {
        SCRATCH.with(|kept| {
            let mut buf = kept.take();
            buf.clear();
            buf.reserve(len);
            kept.set(buf);
        });
    }
}

/// Gives `done`'s room to the next string with escapes the thread decodes: a caller that
/// reads one large string after another (a batch's reply texts) then decodes each into the
/// same buffer, with nothing copied or allocated.
pub fn recycle(done: String) {
    if done.capacity() <= KEPT_SCRATCH {
        SCRATCH.with(|kept| {
            let held = kept.take();
            kept.set(if held.capacity() >= done.capacity() { held } else { done });
        });
    }
}

impl Drop for Scratch {
    /// Hands the buffer back to the thread (a failed string's too).
    fn drop(&mut self) {
        if self.0.capacity() <= KEPT_SCRATCH {
            SCRATCH.set(std::mem::take(&mut self.0));
        }
    }
}

/// Where the string whose body continues at `at` closes (or fails): its raw length bounds
/// what it decodes to.
fn closing_quote(bytes: &[u8], mut at: usize) -> usize {
    loop {
        at = next_string_special(bytes, at);
        match bytes.get(at) {
            Some(b'\\') => at += 2,
            _ => return at.min(bytes.len()),
        }
    }
}

/// The UTF-16 unit a `\u` escape's four hex digits write, where they are that.
fn hex_unit(digits: &[u8]) -> Option<u16> {
    (digits.len() == 4 && digits.iter().all(u8::is_ascii_hexdigit))
        .then(|| digits.iter().fold(0u16, |n, &d| (n << 4) | hex_value(d)))
}

fn hex_value(d: u8) -> u16 {
    match d {
        b'0'..=b'9' => u16::from(d - b'0'),
        b'a'..=b'f' => u16::from(d - b'a' + 10),
        _ => u16::from(d - b'A' + 10),
    }
}

/// Appends one UTF-16 code unit from an escape, pairing surrogates as JavaScript does.
fn push_unit(out: &mut String, units: &mut Option<Vec<u16>>, high: &mut Option<u16>, unit: u16) {
    if units.is_none()
        && (0xDC00..=0xDFFF).contains(&unit)
        && let Some(h) = high.take()
    {
        let c = 0x10000 + ((u32::from(h) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
        out.push(char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER));
        return;
    }
    // A high half still waiting here is lone; keeping it switches the string to UTF-16, so
    // where this unit goes is decided after.
    flush_high(out, units, high);
    if let Some(u) = units {
        u.push(unit);
        return;
    }
    match unit {
        0xD800..=0xDBFF => *high = Some(unit),
        0xDC00..=0xDFFF => {
            let mut u: Vec<u16> = out.encode_utf16().collect();
            u.push(unit);
            *units = Some(u);
        }
        _ => out.push(char::from_u32(u32::from(unit)).unwrap_or(char::REPLACEMENT_CHARACTER)),
    }
}

/// A high surrogate escape not followed by its low half is a lone surrogate: switch to
/// UTF-16 to keep it.
fn flush_high(out: &str, units: &mut Option<Vec<u16>>, high: &mut Option<u16>) {
    if let Some(h) = high.take() {
        let mut u: Vec<u16> = match units.take() {
            Some(u) => u,
            None => out.encode_utf16().collect(),
        };
        u.push(h);
        *units = Some(u);
    }
}

#[cold]
fn frame_error() -> ParseError {
    // The frame on top was matched just above, so this cannot happen; it is an error rather
    // than a panic so that the parser has no panic path at all.
    ParseError { kind: ParseErrorKind::UnexpectedEnd, offset: 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_that_come_thick_decode_as_sparse_ones_do() {
        // A reply's JSON quoted in a log: an escape every byte or two, beside plain runs,
        // `\u` escapes, non-ASCII text, and long enough to be given its room on the way.
        let pieces =
            [r#"\":\""#, r#"\\\""#, r#"a\nb"#, r#"\u00e9\"é"#, r#"x\ud83d\ude00\t"#, "plain text run ", r#"\/"#];
        for n in [1, 7, 300, 200_000] {
            let body: String = (0..n).map(|i| pieces[i % pieces.len()]).collect();
            let json = format!("\"{body}\"");
            let want: String = serde_json::from_str(&json).unwrap();
            assert_eq!(parse(&json).unwrap().as_js_string().unwrap().as_str(), Some(want.as_str()), "{n}");
        }
    }

    proptest::proptest! {
        /// Whatever mix of escapes, plain and non-ASCII text a strict string holds, and
        /// however thick or sparse, it decodes as serde decodes it.
        #[test]
        fn strings_of_any_mix_of_escapes_decode_as_serde_decodes_them(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![r#"\""#, r#"\\"#, ":", "a", "plain text ", r#"\n"#, r#"\/"#, r#"\u00e9"#, r#"\t"#, "é", "😀", r#"\b"#]),
                0..200,
            ),
        ) {
            let json = format!("\"{}\"", pieces.concat());
            let want: String = serde_json::from_str(&json).unwrap();
            let got = parse(&json).unwrap();
            proptest::prop_assert_eq!(got.as_js_string().unwrap().as_str(), Some(want.as_str()));
        }
    }

    /// Text made mostly of the bytes the repair decides on, so that quotes come in runs and
    /// next to every kind of neighbour.
    fn dense_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::strategy::Strategy;
        let pieces =
            ["\"", "\"", "\"", ":", ",", "}", "]", "{", " ", "\\", "n", "u00e9", "a", "\n", "\t", "é", "\u{3000}"];
        proptest::collection::vec(proptest::sample::select(pieces.to_vec()), 0..60).prop_map(|p| p.concat())
    }

    /// Where the repair's run of escaped bytes from `at` ends, asking its rule of every
    /// special byte in turn: what [`Parser::string`] finds with [`Parser::past_repaired`].
    fn past_repaired_byte_by_byte(parser: &mut Parser, mut at: usize, key: bool) -> usize {
        while parser.repaired_at(at, key) {
            at = next_string_special(parser.bytes, at + 1);
        }
        at
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config { cases: 2000, ..Default::default() })]

        /// Passing over what the repair escapes a quote at a time, by the byte after each,
        /// stops where asking the rule of every special byte stops, and notes the same
        /// colons kept open.
        #[test]
        fn passing_repaired_bytes_agrees_with_the_rule(
            text in dense_text(),
            from in 0usize..1000,
            narrow in proptest::bool::ANY,
            key in proptest::bool::ANY,
        ) {
            let rule = if narrow { ColonRule::Narrow } else { ColonRule::Wide };
            let at = next_string_special(text.as_bytes(), from % (text.len() + 1));
            let mut fast = Parser::new(&text, 0, Some(rule));
            let mut general = Parser::new(&text, 0, Some(rule));
            let got = if fast.repaired_at(at, key) { fast.past_repaired(at, key) } else { at };
            proptest::prop_assert_eq!(got, past_repaired_byte_by_byte(&mut general, at, key));
            proptest::prop_assert_eq!(fast.colon_kept_open, general.colon_kept_open);
        }

        /// The repaired reading read straight from the reply is the parse of the repaired
        /// text, for strings crowded with quotes.
        #[test]
        fn dense_repaired_readings_are_the_parse_of_the_repaired_text(body in dense_text(), other in dense_text()) {
            use crate::exact::repair::repaired_span;
            let text = format!(r#"{{"k": "{body}", "{other}": ["{body}", {{"{body}": "{other}"}}]}}"#);
            for rule in [ColonRule::Wide, ColonRule::Narrow] {
                let Some(fixed) = repaired_span(&text, 0, rule, None) else { continue };
                let direct = parse_repaired_at(&text, 0, rule).map(|(v, end)| (v.to_json(), end));
                let via_text = parse(&fixed.text).map(|v| (v.to_json(), fixed.end));
                proptest::prop_assert_eq!(direct.is_ok(), via_text.is_ok());
                if let (Ok(a), Ok(b)) = (direct, via_text) {
                    proptest::prop_assert_eq!(a, b);
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]
        /// Each object a narrow reading notes as holding nothing the repair escaped reads
        /// strictly, to the same end, as the seed reads it (strict span, then `JSON.parse`).
        #[test]
        fn objects_noted_clean_read_strictly(
            body in dense_text(),
            other in dense_text(),
            third in dense_text(),
        ) {
            use crate::exact::memo::{Mode, Validator};
            use crate::exact::strict::strict_span;
            let text = format!(
                r#"{{"k": "{body}", "e": [{{"a": "{other}"}}, {{"b": "{third}", "c": {{"d": "{body}"}}}}, {{"f": 1}}], "{other}": {{"g": "{third}"}}}}"#
            );
            let Ok((read, clean)) = parse_narrow_noting(&text, 0) else { return Ok(()) };
            // The reading is the one `parse_narrow_at` makes.
            let plain = parse_narrow_at(&text, 0).map(|r| (r.value.to_json(), r.end)).ok();
            proptest::prop_assert_eq!(plain, Some((read.value.to_json(), read.end)));
            for &(start, end) in &clean {
                proptest::prop_assert_eq!(Validator::once(&text, Mode::Strict).object_at(start), Ok(end), "{:?} at {}", text, start);
                let seed = strict_span(&text, start).filter(|&e| is_json(&text[start..e]));
                proptest::prop_assert_eq!(seed, Some(end), "{:?} at {}", text, start);
            }
        }
    }

    #[test]
    fn objects_that_hold_a_repair_are_not_noted_clean() {
        let text = r#"{"a": {"b": "x"y"}, "c": {"d": "1"}, "e": {"f": "p\q"}, "g": {"h": "t	u"}, "i": {"j": "v": w"}}"#;
        let (read, clean) = parse_narrow_noting(text, 0).map(|(r, clean)| (r.end, clean)).unwrap_or_default();
        assert_eq!(read, text.len());
        // An unescaped quote, an unknown escape, a raw tab, a value's quote that `:` follows:
        // only `{"d": "1"}` holds none.
        let start = text.find(r#"{"d""#).unwrap_or_default();
        assert_eq!(clean, vec![(start, start + r#"{"d": "1"}"#.len())], "{text}");
    }

    fn json(s: &str) -> String {
        parse(s).map(|v| v.to_json()).unwrap_or_else(|e| format!("error: {e}"))
    }

    #[test]
    fn a_recycled_buffer_decodes_the_next_string_afresh() {
        let long = format!("\"{}\\n{}\"", "a".repeat(5000), "b".repeat(10));
        let short = "\"x\\\"y\"";
        let mut value = parse(&long).unwrap();
        let Value::String(JsString::Utf8(first)) = &mut value else { panic!("a string") };
        let first = std::mem::take(first);
        assert_eq!(first, format!("{}\n{}", "a".repeat(5000), "b".repeat(10)));
        recycle(first);
        // The next string is decoded into that room, and holds nothing of what was there.
        assert_eq!(parse(short).unwrap(), Value::String(JsString::from("x\"y")));
        assert_eq!(
            parse(&long).unwrap(),
            Value::String(JsString::from(format!("{}\n{}", "a".repeat(5000), "b".repeat(10)).as_str()))
        );
        // A failed string hands its buffer back too.
        assert!(parse("\"ab\\q").is_err());
        assert_eq!(parse(short).unwrap(), Value::String(JsString::from("x\"y")));
    }

    #[test]
    fn parses_what_javascript_parses() {
        for (input, out) in [
            (r#" {"a":[1,2.5,-0,1e400,true,null]} "#, r#"{"a":[1,2.5,0,null,true,null]}"#),
            (r#""\ud800x\udc00\ud83d\ude00""#, r#""\ud800x\udc00😀""#),
            (r#""\ud800\ud800\n\ud83d\ude00é""#, r#""\ud800\ud800\n😀é""#),
            (r#""a\ud83d""#, r#""a\ud83d""#),
            // An escape right after a lone high half is kept, not lost in the switch to UTF-16.
            (r#""\ud800\"x""#, r#""\ud800\"x""#),
            (r#""\ud800\n\u0041""#, r#""\ud800\nA""#),
            (r#"{"b":1,"2":2,"a":3,"1":4,"b":5}"#, r#"{"1":4,"2":2,"b":5,"a":3}"#),
            (r#"{"4294967295":1,"4294967294":2}"#, r#"{"4294967294":2,"4294967295":1}"#),
            (r#"{"__proto__":1}"#, r#"{"__proto__":1}"#),
            ("12345678901234567890", "12345678901234567000"),
            (r#""\u00e9\/""#, r#""é/""#),
            ("\t\r\n 0 ", "0"),
        ] {
            assert_eq!(json(input), out, "{input}");
        }
    }

    #[test]
    fn rejects_what_javascript_rejects() {
        for input in [
            "",
            " ",
            "{",
            "[1,]",
            "{\"a\":1,}",
            "01",
            "1.",
            ".5",
            "-",
            "+1",
            "1e",
            "0x10",
            "NaN",
            "'a'",
            "\"a\nb\"",
            "\"\\x\"",
            "\"\\u12\"",
            "\"\\u12G4\"",
            "{a:1}",
            "[1 2]",
            "{} {}",
            "\u{FEFF}1",
            "\"\\",
            "tru",
            "nul",
            "[",
            "{\"a\"}",
            "\"\u{1}\"",
            "\u{A0}1",
        ] {
            assert!(parse(input).is_err(), "{input:?} must not parse");
        }
    }

    #[test]
    fn errors_say_where() {
        let e = parse(r#"{"a": "b" "c"}"#).unwrap_err();
        assert_eq!(e.offset, 10);
        assert_eq!(e.kind, ParseErrorKind::UnexpectedToken('"'));
        let e = parse("{\"a\": \"x\ny\"}").unwrap_err();
        assert_eq!((e.kind, e.offset), (ParseErrorKind::BadControlCharacter, 8));
        assert_eq!(parse("[1,").unwrap_err().kind, ParseErrorKind::UnexpectedEnd);
    }

    #[test]
    fn nesting_is_limited_by_memory_not_by_the_stack() {
        let depth = 1_000_000;
        let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert!(parse(&text).is_ok());
        let text = format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
        assert!(parse(&text).is_ok());
    }

    #[test]
    fn repaired_reading_is_the_parse_of_the_repaired_text() {
        use crate::exact::repair::repaired_span;
        let bodies = [
            r#"plain"#,
            r#""#,
            r#"a\nb"#,
            r#"tail escape\""#,
            r#"a "quoted" word"#,
            r#"a "quoted" word\n then escape"#,
            "raw\nline\tand\rcr",
            "raw\nline then \\u0041 escape",
            r#"lone \q backslash \"#,
            r#"\ud800 lone then "q" and \ud83d\ude00"#,
            r#"ends in quote""#,
            r#"colon": after"#,
            r#"é ü 😀 "x":y"#,
        ];
        for body in bodies {
            for text in [
                format!(r#"{{"k": "{body}", "{body}": ["{body}", {{"{body}": 1}}], "z": "{body}"}}"#),
                format!(r#"{{"{body}":"{body}","{body}":2}}"#),
            ] {
                for rule in [ColonRule::Wide, ColonRule::Narrow] {
                    let Some(fixed) = repaired_span(&text, 0, rule, None) else { continue };
                    let direct = parse_repaired_at(&text, 0, rule).map(|(v, end)| (v.to_json(), end));
                    let via_text = parse(&fixed.text).map(|v| (v.to_json(), fixed.end));
                    assert_eq!(direct.is_ok(), via_text.is_ok(), "{text:?} {rule:?}");
                    if let (Ok(a), Ok(b)) = (direct, via_text) {
                        assert_eq!(a, b, "{text:?} {rule:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn containers_get_exactly_their_room() {
        let v = parse(r#"[{"a":1,"b":[1,2,3],"a":2},[],{},"x",[[1],[2,3]],5]"#).unwrap();
        let mut stack = vec![&v];
        while let Some(v) = stack.pop() {
            match v {
                Value::Array(a) => {
                    assert_eq!(a.capacity(), a.len());
                    stack.extend(a);
                }
                Value::Object(o) => stack.extend(o.iter().map(|(_, v)| v)),
                _ => {}
            }
        }
        assert_eq!(v.to_json(), r#"[{"a":2,"b":[1,2,3]},[],{},"x",[[1],[2,3]],5]"#);
    }

    #[test]
    fn big_objects_keep_first_place_for_repeated_keys() {
        let mut text = String::from("{");
        for i in 0..40 {
            text.push_str(&format!("\"k{i}\":{i},"));
        }
        text.push_str("\"k3\":\"again\"}");
        let v = parse(&text).unwrap();
        let o = v.as_object().unwrap();
        assert_eq!(o.len(), 40);
        assert_eq!(o.iter().nth(3).unwrap().1.to_json(), "\"again\"");
    }
}
