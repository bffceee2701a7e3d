//! The decision record of the last-wins reader (seed 000 `extractJson`).
//!
//! A trace says, for one reply, what the reader tried and why it answered what it answered:
//! the whole-text attempt, every candidate the walk visited with its three readings (strict,
//! repaired under the wide colon rule, repaired under the narrow one) and what the walk did
//! next, the whole-reply attempt with its two gates, and which of them decided. The CLI and
//! the TUI are two consumers of it; neither re-derives a decision.

use std::borrow::Cow;
use std::sync::Arc;

use super::js::ParseError;
use super::repair::{Repair, Repaired};
use super::span::Span;
use super::value::Value;

/// One reading of the object at a candidate `{`.
#[derive(Debug, Clone)]
pub enum Reading {
    /// The braces never balance: the object is cut off, or the `{` is prose.
    Unbalanced,
    /// A balanced span, and whether its text parses.
    Balanced {
        /// The span in the reply, opening `{` to closing `}`.
        span: Span,
        /// The repairs made to the span's text (none for the strict reading).
        repairs: Vec<Repair>,
        /// The parsed value, or the parse error with its offset mapped back into the reply.
        /// Shared: a reading that repairs nothing is the strict reading, value and all, and a
        /// value may be as large as the reply.
        outcome: Result<Arc<Value>, ParseError>,
    },
}

impl Reading {
    pub fn span(&self) -> Option<Span> {
        match self {
            Reading::Unbalanced => None,
            Reading::Balanced { span, .. } => Some(*span),
        }
    }

    pub fn value(&self) -> Option<&Value> {
        match self {
            Reading::Balanced { outcome: Ok(v), .. } => Some(v.as_ref()),
            _ => None,
        }
    }

    pub fn parses(&self) -> bool {
        self.value().is_some()
    }

    pub fn error(&self) -> Option<&ParseError> {
        match self {
            Reading::Balanced { outcome: Err(e), .. } => Some(e),
            _ => None,
        }
    }

    pub fn repairs(&self) -> &[Repair] {
        match self {
            Reading::Unbalanced => &[],
            Reading::Balanced { repairs, .. } => repairs,
        }
    }

    /// The text this reading hands to `JSON.parse`: the span's source text with its repairs
    /// applied.
    pub fn text<'a>(&self, reply: &'a str) -> Option<Cow<'a, str>> {
        let Reading::Balanced { span, repairs, .. } = self else { return None };
        let source = reply.get(span.start..span.end)?;
        if repairs.is_empty() {
            return Some(Cow::Borrowed(source));
        }
        let mut out = String::with_capacity(source.len() + repairs.len());
        let mut run = span.start;
        for r in repairs {
            out.push_str(reply.get(run..r.at)?);
            out.push_str(r.kind.replacement());
            run = r.at + 1;
        }
        out.push_str(reply.get(run..span.end)?);
        Some(Cow::Owned(out))
    }

    /// Builds a reading from a repaired span; `start` is where the span opened.
    pub(crate) fn from_repaired(start: usize, span: Option<Repaired>, repairs: Vec<Repair>) -> Reading {
        let Some(r) = span else { return Reading::Unbalanced };
        let outcome = super::js::parse(&r.text)
            .map(Arc::new)
            .map_err(|e| ParseError { offset: Repaired::source_offset(start, &repairs, e.offset), ..e });
        Reading::Balanced { span: Span::new(start, r.end), repairs, outcome }
    }
}

/// Which reading the walk read a candidate by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReadingKind {
    Strict,
    /// Repaired under the wide colon rule.
    Wide,
    /// Repaired under the narrow colon rule (only in the what-if variants).
    Narrow,
}

impl ReadingKind {
    pub fn name(self) -> &'static str {
        match self {
            ReadingKind::Strict => "strict",
            ReadingKind::Wide => "repaired",
            ReadingKind::Narrow => "narrow-colon",
        }
    }
}

/// What the walk did after a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Read it (by this reading) and resumed at the next `{` after its end.
    Took { by: ReadingKind, end: usize },
    /// Could not read it, and went on at the next `{` after its start: inside it.
    Descended,
    /// Could not read it, and went on after the end of its span (a what-if variant).
    Resumed { after: usize },
}

/// One `{` the walk visited.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Byte offset of the `{`.
    pub start: usize,
    pub strict: Reading,
    /// Repaired under the wide colon rule: the walk's second reading.
    pub wide: Reading,
    /// Repaired under the narrow colon rule: never used by the seed's walk, shown beside the
    /// others because it is what the whole-reply attempt would make of this `{`.
    pub narrow: Reading,
    pub step: Step,
}

impl Candidate {
    /// Where the walk resumed after reading this candidate, if it did.
    pub fn read_end(&self) -> Option<usize> {
        match self.step {
            Step::Took { end, .. } => Some(end),
            _ => None,
        }
    }

    pub fn reading(&self, kind: ReadingKind) -> &Reading {
        match kind {
            ReadingKind::Strict => &self.strict,
            ReadingKind::Wide => &self.wide,
            ReadingKind::Narrow => &self.narrow,
        }
    }
}

/// The attempt to read the trimmed reply as JSON, before any walk.
#[derive(Debug, Clone)]
pub struct WholeText {
    /// The trimmed reply (JavaScript's `trim()`).
    pub span: Span,
    /// `Ok` when it parsed (the value is the trace's answer).
    pub outcome: Result<(), ParseError>,
}

/// Why the whole-reply attempt produced no reading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoReading {
    /// The narrow span never closes.
    NeverCloses,
    /// The narrow span closes at `end`, short of the reply's last non-space character at
    /// `reply_end`.
    ClosesShort { end: usize, reply_end: usize },
    /// The narrow span covers the reply but its repaired text does not parse.
    DoesNotParse(ParseError),
}

/// Where a string of the narrow reading fails to be self-contained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotSelfContained {
    /// Path of the string in the value, e.g. `notes` or `problems[0].text`.
    pub path: String,
    /// The offending brace: a `}` that closes nothing, or the first `{` left open.
    pub brace: char,
    /// Its position in the string, in characters.
    pub at_char: usize,
}

/// The whole-reply attempt: the narrow colon rule over a reply that is one object.
///
/// Each verdict carries the narrow reading it judged. A trace run without recording
/// ([`super::walk::run`] with `record = false`, what `extract` and the scan use) builds that
/// reading only where the answer needs its value (taken, or judged by the self-contained
/// gate); elsewhere it is `None`, and the verdict and its reason are still exact.
#[derive(Debug, Clone)]
pub enum WholeReply {
    /// Not attempted: the whole text already parsed, or the trimmed reply does not open
    /// with `{`.
    NotTried { whole_text_parsed: bool },
    /// Attempted, and no narrow reading spans the reply and parses.
    NoReading { reading: Option<Reading>, why: NoReading },
    /// A reading exists, refused: the walk's answer already closes on the reply's last
    /// non-space character (`walk_end == reply_end`).
    RefusedWalkClosed { reading: Option<Reading>, walk_end: usize, reply_end: usize },
    /// A reading exists, refused: one of its strings leaves a `{` open or closes one it
    /// never opened.
    RefusedNotSelfContained { reading: Option<Reading>, fault: NotSelfContained },
    /// Taken: the narrow reading is the answer.
    Taken { reading: Option<Reading> },
}

impl WholeReply {
    /// The oracle's name for this verdict.
    pub fn name(&self) -> &'static str {
        self.verdict().name()
    }

    pub fn reading(&self) -> Option<&Reading> {
        match self {
            WholeReply::NotTried { .. } => None,
            WholeReply::NoReading { reading, .. }
            | WholeReply::RefusedWalkClosed { reading, .. }
            | WholeReply::RefusedNotSelfContained { reading, .. }
            | WholeReply::Taken { reading } => reading.as_ref(),
        }
    }

    /// The verdict alone, without what it judged.
    pub fn verdict(&self) -> Verdict {
        match self {
            WholeReply::NotTried { .. } => Verdict::NotTried,
            WholeReply::NoReading { .. } => Verdict::NoReading,
            WholeReply::RefusedWalkClosed { .. } => Verdict::RefusedWalkClosed,
            WholeReply::RefusedNotSelfContained { .. } => Verdict::RefusedNotSelfContained,
            WholeReply::Taken { .. } => Verdict::Taken,
        }
    }
}

/// The whole-reply attempt's verdict, as the oracle names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Verdict {
    NotTried,
    NoReading,
    RefusedWalkClosed,
    RefusedNotSelfContained,
    Taken,
}

impl Verdict {
    pub const ALL: [Verdict; 5] = [
        Verdict::NotTried,
        Verdict::NoReading,
        Verdict::RefusedWalkClosed,
        Verdict::RefusedNotSelfContained,
        Verdict::Taken,
    ];

    /// The oracle's name.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::NotTried => "not-tried",
            Verdict::NoReading => "no-reading",
            Verdict::RefusedWalkClosed => "refused-walk-closed",
            Verdict::RefusedNotSelfContained => "refused-not-self-contained",
            Verdict::Taken => "taken",
        }
    }

    /// Its place in [`Verdict::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Which rule produced the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DecidedBy {
    /// The trimmed reply is JSON.
    WholeText,
    /// The walk's last readable candidate.
    LastWins,
    /// The narrow-colon reading of the whole reply.
    WholeReply,
    /// Nothing read.
    None,
}

impl DecidedBy {
    pub fn name(self) -> &'static str {
        match self {
            DecidedBy::WholeText => "whole-text",
            DecidedBy::LastWins => "last-wins",
            DecidedBy::WholeReply => "whole-reply",
            DecidedBy::None => "none",
        }
    }

    pub const ALL: [DecidedBy; 4] = [DecidedBy::WholeText, DecidedBy::LastWins, DecidedBy::WholeReply, DecidedBy::None];

    /// Its place in [`DecidedBy::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Everything the last-wins reader decided about one reply.
#[derive(Debug, Clone)]
pub struct Trace {
    pub whole_text: WholeText,
    /// Every candidate the walk visited, in order (empty when the whole text parsed, or
    /// when the trace was run without recording candidates).
    pub candidates: Vec<Candidate>,
    /// Index into `candidates` of the one whose value the walk kept, when recorded.
    pub kept: Option<usize>,
    /// End of the walk's answer in bytes; `None` when the walk read nothing.
    pub walk_end: Option<usize>,
    pub whole_reply: WholeReply,
    pub decided_by: DecidedBy,
    /// The answer: `extractJson(text)`, `None` for JavaScript's `null` return.
    pub value: Option<Value>,
    /// What the walk's validators examined (zero when candidates were recorded instead).
    pub work: super::memo::Work,
    /// Candidates a bounded trace visited without recording them (see
    /// [`super::walk::trace`]); `None` when every candidate visited is in `candidates`.
    pub unrecorded: Option<Unrecorded>,
    /// How many candidates the walk read, recorded or not.
    pub reads: Reads,
    /// Where the answer is in the reply.
    pub place: Place,
}

/// Where a reader's answer is in the reply, without its value: two answers at the same place
/// are the same value, so readers can be compared there without building either.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Place {
    /// The trimmed reply, read whole.
    WholeText,
    /// The reply as it is, untrimmed, read whole (`JSON.parse(raw)`).
    Raw,
    /// The object at `start..end`, by this reading (the whole-reply attempt's answer is the
    /// narrow reading of the trimmed reply).
    Span { start: usize, end: usize, by: ReadingKind },
    /// Nothing read.
    Nothing,
}

/// How many candidates a walk read (the one it kept and those it superseded), and how many
/// of them by a repaired reading. A what-if that departs from the seed only where it reads
/// one candidate of many, or reads one by the repair, reads as the seed where it did not.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reads {
    pub candidates: usize,
    pub repaired: usize,
}

impl Reads {
    pub(crate) fn count(&mut self, by: ReadingKind) {
        self.candidates += 1;
        self.repaired += usize::from(by != ReadingKind::Strict);
    }
}

/// The candidates a bounded trace walked past without recording. They were visited after
/// every recorded one but the kept one, which, when it is among them, is recorded anyway and
/// comes last in [`Trace::candidates`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unrecorded {
    /// How many (the kept candidate not counted).
    pub count: usize,
    /// How many of those were read, and superseded by a later one.
    pub read: usize,
    /// The byte offset of the first.
    pub first: usize,
    /// The number (0-based, in the order visited) of the kept candidate, when it was visited
    /// past the bound.
    pub kept: Option<usize>,
}

/// What became of a candidate, for showing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fate {
    /// Its value is the walk's answer.
    Kept,
    /// Read, then a later candidate was read too.
    Superseded,
    /// No reading parses.
    Unreadable,
}

impl Trace {
    /// How many candidates the walk visited, recorded or not.
    pub fn visited(&self) -> usize {
        self.candidates.len() + self.unrecorded.map_or(0, |u| u.count)
    }

    /// The number (0-based, in the order the walk visited them) of recorded candidate `index`.
    pub fn number(&self, index: usize) -> usize {
        match self.unrecorded.and_then(|u| u.kept) {
            Some(n) if index + 1 == self.candidates.len() => n,
            _ => index,
        }
    }

    pub fn fate(&self, index: usize) -> Option<Fate> {
        let c = self.candidates.get(index)?;
        Some(match c.step {
            Step::Took { .. } if self.kept == Some(index) => Fate::Kept,
            Step::Took { .. } => Fate::Superseded,
            _ => Fate::Unreadable,
        })
    }

    /// For each recorded candidate, whether it starts inside the span of an earlier
    /// unreadable one (it was reached by descending). In one pass: candidates start in order,
    /// so an earlier span contains a start iff it ends past it.
    pub fn nested(&self) -> Vec<bool> {
        let mut reach = 0;
        self.candidates
            .iter()
            .map(|c| {
                let inside = c.start < reach;
                if matches!(c.step, Step::Descended) {
                    reach = [&c.strict, &c.wide].iter().filter_map(|r| r.span()).map(|s| s.end).fold(reach, usize::max);
                }
                inside
            })
            .collect()
    }
}
