//! The repaired span: the strict walk, repairing an object that is JSON in shape but not in
//! escaping (seed 000 `repairedSpan` and `isEscape`).
//!
//! The rule is the one a person reading the reply applies: a `"` inside a string ends it only
//! if what follows (after JavaScript whitespace) continues the object — `,` `}` `]`, the end
//! of the text, or `:`. Any other quote is one the model forgot to escape, and is escaped.
//! Raw newlines, carriage returns and tabs inside a string are escaped on the way past, and a
//! backslash that begins no JSON escape is doubled. One pass, no backtracking.
//!
//! The two colon rules differ only in that last case. Under [`ColonRule::Wide`] (what the
//! walk uses) a `"` followed by `:` ends any string. Under [`ColonRule::Narrow`] (the
//! whole-reply attempt) it ends only a string in key position, since after a value JSON puts
//! `,` `}` or `]`, never `:`.
//!
//! Every repair inserts exactly one byte (`"`→`\"`, LF→`\n`, CR→`\r`, TAB→`\t`, `\`→`\\`),
//! which is what lets an offset in the repaired text be mapped back to the reply
//! ([`Repaired::source_offset`]).

use super::lex::{next_string_special, simple_escape, whitespace_len_at};

/// Where a `"` followed by `:` ends a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColonRule {
    /// Anywhere: the walk's rule (`colonClosesValues = true`).
    Wide,
    /// Only in a key: the whole-reply attempt's rule (`colonClosesValues = false`).
    Narrow,
}

/// One change the repair made to the reply's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repair {
    /// Byte offset of the repaired character in the reply.
    pub at: usize,
    pub kind: RepairKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RepairKind {
    /// A `"` that does not end its string, escaped as `\"`.
    QuoteEscaped,
    /// A raw line feed inside a string, escaped as `\n`.
    NewlineEscaped,
    /// A raw carriage return inside a string, escaped as `\r`.
    CarriageReturnEscaped,
    /// A raw tab inside a string, escaped as `\t`.
    TabEscaped,
    /// A backslash that begins no JSON escape, doubled.
    BackslashDoubled,
}

impl RepairKind {
    pub fn name(self) -> &'static str {
        match self {
            RepairKind::QuoteEscaped => "quote escaped",
            RepairKind::NewlineEscaped => "newline escaped",
            RepairKind::CarriageReturnEscaped => "CR escaped",
            RepairKind::TabEscaped => "tab escaped",
            RepairKind::BackslashDoubled => "backslash doubled",
        }
    }

    /// What the repair wrote in place of the character.
    pub fn replacement(self) -> &'static str {
        match self {
            RepairKind::QuoteEscaped => "\\\"",
            RepairKind::NewlineEscaped => "\\n",
            RepairKind::CarriageReturnEscaped => "\\r",
            RepairKind::TabEscaped => "\\t",
            RepairKind::BackslashDoubled => "\\\\",
        }
    }
}

/// A repaired reading of the object at `start`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repaired {
    /// The repaired text, from the opening `{` to its matching `}`.
    pub text: String,
    /// Byte offset in the reply just past the closing brace.
    pub end: usize,
}

impl Repaired {
    /// Maps an offset in the repaired text back to the reply, given where the span started
    /// and the repairs made (each of which inserted one byte).
    pub fn source_offset(start: usize, repairs: &[Repair], offset: usize) -> usize {
        // Repair k (0-based) occupies repaired bytes p and p + 1, p = (at - start) + k; its
        // inserted byte lies before `offset` once `offset` reaches p + 1.
        let inserted = repairs.iter().enumerate().take_while(|(k, r)| offset > r.at - start + k).count();
        start + offset - inserted
    }
}

/// Is the backslash at byte `i` the start of one of JSON's escapes (`\"` `\\` `\/` `\b` `\f`
/// `\n` `\r` `\t`, or `\u` with four hex digits)? Anything else is a backslash the model wrote
/// as itself.
pub fn is_escape(bytes: &[u8], i: usize) -> bool {
    match bytes.get(i + 1) {
        None => false,
        Some(b'u') => bytes.get(i + 2..i + 6).is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)),
        Some(&next) => simple_escape(next).is_some(),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Container {
    Object,
    Array,
}

/// The containers a repaired scan is inside, innermost last, and whether a string opened now
/// is a key: what the narrow colon rule asks of a `"` followed by `:`. A byte outside strings
/// is given to [`Containers::step`]; the braces' depth alone decides where a span ends.
#[derive(Default)]
pub(crate) struct Containers {
    stack: Vec<Container>,
    expect_key: bool,
}

impl Containers {
    /// Takes a byte outside a string (any byte; only `{ } [ ] : ,` change anything).
    #[inline]
    pub(crate) fn step(&mut self, b: u8) {
        match b {
            b':' => self.expect_key = false,
            b',' => self.expect_key = self.stack.last() == Some(&Container::Object),
            b'[' => self.stack.push(Container::Array),
            b'{' => {
                self.stack.push(Container::Object);
                self.expect_key = true;
            }
            b']' | b'}' => {
                self.stack.pop();
                self.expect_key = false;
            }
            _ => {}
        }
    }

    /// Whether a string opened now is a key.
    #[inline]
    pub(crate) fn key_next(&self) -> bool {
        self.stack.last() == Some(&Container::Object) && self.expect_key
    }

    /// How many containers are open.
    #[inline]
    pub(crate) fn height(&self) -> usize {
        self.stack.len()
    }
}

/// What follows a `"` inside a repaired string, after JavaScript whitespace: the repair's
/// rule for it. Every reader of the repaired reading asks this.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterQuote {
    /// `,` `}` `]` or the end of the text: the quote closes the string.
    Closes,
    /// `:`: the quote closes a key, and under the wide colon rule any string.
    Colon,
    /// Anything else: the quote is a character the model forgot to escape.
    Continues,
}

impl AfterQuote {
    /// Whether the quote closes its string, where a `:` closes it when `colon_closes`.
    #[inline]
    pub fn closes(self, colon_closes: bool) -> bool {
        match self {
            AfterQuote::Closes => true,
            AfterQuote::Colon => colon_closes,
            AfterQuote::Continues => false,
        }
    }
}

/// What follows the `"` at byte `i` ([`AfterQuote`]).
#[inline]
pub fn after_quote(text: &str, i: usize) -> AfterQuote {
    if let Some(after) = after_quote_ascii(text.as_bytes(), i) {
        return after;
    }
    let mut j = i + 1;
    while let Some(n) = whitespace_len_at(text, j) {
        j += n;
    }
    match text.as_bytes().get(j) {
        None | Some(b',' | b'}' | b']') => AfterQuote::Closes,
        Some(b':') => AfterQuote::Colon,
        Some(_) => AfterQuote::Continues,
    }
}

/// [`after_quote`] where ASCII decides it, as it nearly always does: `None` where `bytes`
/// end, or a byte beyond ASCII follows the quote's ASCII whitespace (JavaScript whitespace
/// may go on there). A reader of a window of the text asks this alone.
#[inline]
pub fn after_quote_ascii(bytes: &[u8], i: usize) -> Option<AfterQuote> {
    let mut j = i + 1;
    while let Some(b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ') = bytes.get(j) {
        j += 1;
    }
    match bytes.get(j)? {
        b',' | b'}' | b']' => Some(AfterQuote::Closes),
        b':' => Some(AfterQuote::Colon),
        b if b.is_ascii() => Some(AfterQuote::Continues),
        _ => None,
    }
}

/// Whether the `"` at byte `i` closes its string under the repair's rule, where a `:` closes
/// it when `colon_closes`.
#[inline]
pub fn quote_closes(text: &str, i: usize, colon_closes: bool) -> bool {
    after_quote(text, i).closes(colon_closes)
}

/// Whether a `"` inside a repaired string that is followed at once by `b` is escaped, under
/// either colon rule, with `b` itself plain text of the string (no quote, backslash or
/// control character for a reader to stop at): a printable ASCII byte other than `,` `}` `]`
/// `:` `"` `\`. A reader of quotes close together (`"{"{"{`) passes each such quote and the
/// byte after it without asking more.
#[inline(always)]
pub fn escaped_before_plain(b: u8) -> bool {
    ESCAPED_BEFORE_PLAIN[usize::from(b)]
}

static ESCAPED_BEFORE_PLAIN: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0x21;
    while b < 0x80 {
        table[b] = !matches!(b as u8, b',' | b'}' | b']' | b':' | b'"' | b'\\');
        b += 1;
    }
    table
};

/// The repaired span of the object opening at `start` under `rule`, or `None` when its
/// braces never balance. With `repairs`, every repair made is recorded there in order.
pub fn repaired_span(text: &str, start: usize, rule: ColonRule, repairs: Option<&mut Vec<Repair>>) -> Option<Repaired> {
    // Most spans are short candidates; a long one grows by doubling from here.
    let mut out = String::with_capacity((text.len() - start.min(text.len())).min(4096));
    let end = scan(text, start, rule, Some(&mut out), repairs)?;
    Some(Repaired { text: out, end })
}

/// Where the repaired span of the object at `start` ends, without writing its text: what
/// [`repaired_span`] would give as `end`.
pub fn repaired_end(text: &str, start: usize, rule: ColonRule) -> Option<usize> {
    scan(text, start, rule, None, None)
}

/// The repair's one pass: the span's end, its repaired text into `out` when given; `None`
/// where its braces never balance.
fn scan(
    text: &str,
    start: usize,
    rule: ColonRule,
    mut out: Option<&mut String>,
    mut repairs: Option<&mut Vec<Repair>>,
) -> Option<usize> {
    let bytes = text.as_bytes();
    // Source bytes not yet copied to `out` start here: copying is done in runs.
    let mut run = start;
    let mut depth: usize = 0;
    let mut in_str = false;
    let mut esc = false;
    // Only for the `":` case; `depth` alone decides where the object ends.
    let mut containers = Containers::default();
    let mut key_string = false;

    let mut repair = |out: &mut Option<&mut String>, run: &mut usize, i: usize, kind: RepairKind| {
        if let Some(out) = out {
            out.push_str(&text[*run..i]);
            out.push_str(kind.replacement());
        }
        *run = i + 1;
        if let Some(list) = repairs.as_deref_mut() {
            list.push(Repair { at: i, kind });
        }
    };

    let mut i = start;
    let stop = bytes.len();
    while i < stop {
        let c = bytes[i];
        if !in_str {
            containers.step(c);
            match c {
                b'"' => {
                    in_str = true;
                    key_string = containers.key_next();
                }
                b'{' => depth += 1,
                b'}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        if let Some(out) = out {
                            out.push_str(&text[run..=i]);
                        }
                        return Some(i + 1);
                    }
                }
                _ => {}
            }
            i += 1;
            continue;
        }
        if esc {
            esc = false;
            i += 1;
            continue;
        }
        // Inside a string only quotes, backslashes and control characters matter.
        if c != b'"' && c != b'\\' && c >= 0x20 {
            i = next_string_special(bytes, i);
            continue;
        }
        match c {
            b'\\' => {
                // Where a literal backslash and an escape collide, the escape wins: `C:\new`
                // reads as a newline, or every real `\n` in every reply would break.
                if is_escape(text.as_bytes(), i) {
                    esc = true;
                } else {
                    repair(&mut out, &mut run, i, RepairKind::BackslashDoubled);
                }
            }
            b'"' => {
                if quote_closes(text, i, rule == ColonRule::Wide || key_string) {
                    in_str = false;
                } else {
                    repair(&mut out, &mut run, i, RepairKind::QuoteEscaped);
                }
            }
            b'\n' => repair(&mut out, &mut run, i, RepairKind::NewlineEscaped),
            b'\r' => repair(&mut out, &mut run, i, RepairKind::CarriageReturnEscaped),
            b'\t' => repair(&mut out, &mut run, i, RepairKind::TabEscaped),
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wide(t: &str) -> Option<String> {
        repaired_span(t, 0, ColonRule::Wide, None).map(|r| r.text)
    }

    #[test]
    fn a_quote_ends_a_string_only_when_the_object_continues() {
        let t = r#"{"html": "<q>"hi"</q>", "log": "a"  }"#;
        assert_eq!(wide(t).as_deref(), Some(r#"{"html": "<q>\"hi\"</q>", "log": "a"  }"#));
    }

    #[test]
    fn raw_controls_and_stray_backslashes_are_escaped() {
        let mut repairs = Vec::new();
        let t = "{\"a\": \"x\ny\r\tz \\' \\n \\u12 \\u00e9\"}";
        let r = repaired_span(t, 0, ColonRule::Wide, Some(&mut repairs)).unwrap();
        assert_eq!(r.text, "{\"a\": \"x\\ny\\r\\tz \\\\' \\n \\\\u12 \\u00e9\"}");
        let kinds: Vec<_> = repairs.iter().map(|r| r.kind).collect();
        use RepairKind::*;
        assert_eq!(kinds, [NewlineEscaped, CarriageReturnEscaped, TabEscaped, BackslashDoubled, BackslashDoubled]);
        assert_eq!(repairs[0].at, 8);
    }

    #[test]
    fn the_narrow_rule_lets_a_colon_close_only_keys() {
        let t = r#"{"notes": "read as { "faithful": true }; no", "a": 1}"#;
        let narrow = repaired_span(t, 0, ColonRule::Narrow, None).unwrap();
        assert_eq!(narrow.end, t.len());
        assert_eq!(narrow.text, r#"{"notes": "read as { \"faithful\": true }; no", "a": 1}"#);
        // The wide rule ends the value at `"faithful"` and balances on the quoted `}`.
        let w = repaired_span(t, 0, ColonRule::Wide, None).unwrap();
        assert!(w.end < t.len());
    }

    #[test]
    fn javascript_whitespace_is_skipped_before_deciding() {
        let t = "{\"a\": \"x\"\u{3000}\u{FEFF}}";
        assert_eq!(wide(t).as_deref(), Some(t));
        // U+0085 is not JavaScript whitespace: the quote is escaped, the string runs on.
        assert_eq!(wide("{\"a\": \"x\"\u{85}}"), None);
    }

    #[test]
    fn escapes_are_recognised_as_json_defines_them() {
        assert!(is_escape(br"\u00aF", 0));
        assert!(!is_escape(br"\u00a", 0));
        assert!(!is_escape(br"\'", 0));
        assert!(!is_escape(b"\\", 0));
        assert!(is_escape(br"\/", 0));
    }

    #[test]
    fn repaired_offsets_map_back_to_the_reply() {
        let mut repairs = Vec::new();
        let t = "xx{\"a\": \"1\n2\n3\"}";
        let r = repaired_span(t, 2, ColonRule::Wide, Some(&mut repairs)).unwrap();
        // The `3` sits at source byte 13 and at repaired offset 13 - 2 + 2.
        let at3 = r.text.find('3').unwrap();
        assert_eq!(Repaired::source_offset(2, &repairs, at3), 13);
        assert_eq!(Repaired::source_offset(2, &repairs, 0), 2);
    }
}
