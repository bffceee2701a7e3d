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
//! 3. **The repair departs from the strict reading only where strict fails.** So a strict
//!    failure says whether the repaired readings fail at the same place
//!    ([`Validator::object_at_carrying`] proves it), and the memo keeps that beside it: a
//!    reply nested deep that fails is read once, not once per reading. Likewise the narrow
//!    colon rule departs from the wide one only where the wide reading fails
//!    ([`narrow_as_wide`]).
//!
//! What is memoized is what is asked again. Failures, always: the walk descends into a
//! candidate that fails. Successes, only when learned while answering a question whose answer
//! is a failure (`Validator::settle`): the walk jumps past a candidate that reads.
//!
//! Values are built only for the answer (one span, parsed once at the end). The counters
//! in [`Work`] exist so that a test can check linearity by counting, not by timing.
//!
//! The parts: `table` stores outcomes by position (pages of 32-bit entries, containers that
//! fail together as one bitset, a string scan that fails past every quote as one run);
//! [`Validator`] reads the JSON grammar over them; `flat` reads the small flat objects
//! that are most candidates, too near their start for the memo to hold anything of.

pub(crate) mod flat;
mod kept;
mod table;
mod validator;

pub(crate) use table::Table;
pub use validator::Validator;

use super::repair::{AfterQuote, after_quote};

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

/// Which repaired readings a strict failure is also the failure of (see
/// [`Validator::object_at_carrying`] for why it can be).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Carries {
    Neither = 0,
    /// The wide reading fails at the same place; the narrow one may not.
    Wide = 1,
    /// Both repaired readings fail at the same place.
    Both = 2,
}

impl Carries {
    /// Whether a strict failure carrying this is also the failure of `mode`'s reading.
    pub fn to(self, mode: Mode) -> bool {
        match mode {
            Mode::Strict => true,
            Mode::Wide => self >= Carries::Wide,
            Mode::Narrow => self == Carries::Both,
        }
    }
}

/// The narrow reading of an object, where its wide reading (`wide`) decides it.
///
/// The two colon rules differ only at a value string's `"` followed by `:` (after
/// JavaScript whitespace), which the wide rule closes and the narrow one keeps open. After a
/// value JSON puts `,` `}` or `]`, never `:`, so the wide reading fails right there, at the
/// first byte past the quote's JSON whitespace (the `:`, or JavaScript whitespace JSON does
/// not skip). Up to the first such quote the two readings make the same decisions. So where
/// the wide reading reads, the narrow one reads to the same end; where it fails anywhere but
/// just past a quote that `:` follows, the narrow one fails at the same place. `None`: the
/// narrow reading must be made.
pub(crate) fn narrow_as_wide(text: &str, wide: Outcome) -> Option<Outcome> {
    let at = match wide {
        Ok(end) => return Some(Ok(end)),
        Err(at) => at,
    };
    let bytes = text.as_bytes();
    let before = bytes.get(..at)?;
    let quote = before.iter().rposition(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    match quote {
        Some(q) if bytes[q] == b'"' && after_quote(text, q) == AfterQuote::Colon => None,
        _ => Some(Err(at)),
    }
}

/// Outcomes closer than this to their start are not stored.
pub(super) const MEMO_MIN: usize = 32;

/// An outcome, a failure with what it [`Carries`].
pub(crate) type Carrying = Result<usize, (usize, Carries)>;
