//! The walk as the seed does it, recorded: each candidate read from scratch three ways
//! (strict, wide, narrow), what every reading made of it kept in the trace. It is what
//! `explain` and the inspector show and what the oracle's record prints; a bound keeps a
//! reply nested a million deep from taking hours ([`RecordLimit`]).

use std::sync::Arc;

use crate::exact::ends::{SpanEnds, SpanRule};
use crate::exact::js::{self, ParseError};
use crate::exact::repair::{ColonRule, repaired_span};
use crate::exact::span::Span;
use crate::exact::strict::strict_span;
use crate::exact::trace::{Candidate, Reading, ReadingKind, Reads, Step, Trace, Unrecorded};

use super::braces::find_brace;
use super::options::{Keep, OnFailure, Readings, WalkOptions};
use super::{How, Readers, Walked, walk_text};

/// How much of a walk a bounded trace records in full.
///
/// Recording a candidate reads it three ways from scratch, as the seed does, and keeps what
/// each reading made: a reply of `{` nested a million deep, where each reading runs to the
/// end, would take hours and more memory than there is. So a trace records candidates until
/// either bound is reached; a person reads the first few thousand candidates at most.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordLimit {
    /// Candidates recorded in full.
    pub candidates: usize,
    /// Bytes the recorded readings may cover (each reading its span, or the rest of the
    /// reply when it never closes), beyond `per_byte` passes over the reply.
    pub bytes: usize,
    pub per_byte: usize,
}

impl RecordLimit {
    pub const DEFAULT: RecordLimit = RecordLimit { candidates: 10_000, bytes: 256 << 20, per_byte: 8 };
}

/// A recorded walk, every candidate or up to `limit`.
pub(super) fn record(text: &str, opts: &WalkOptions, limit: Option<RecordLimit>) -> Trace {
    let budget = match limit {
        Some(l) => {
            Budget { candidates: l.candidates, bytes: l.bytes.saturating_add(l.per_byte.saturating_mul(text.len())) }
        }
        None => Budget { candidates: usize::MAX, bytes: usize::MAX },
    };
    walk_text(text, opts, How::Recorded(budget))
}

/// What is left of a trace's [`RecordLimit`].
#[derive(Debug, Clone, Copy)]
pub(super) struct Budget {
    candidates: usize,
    bytes: usize,
}

/// The walk as recorded: each candidate read from scratch as the seed reads it, while the
/// budget lasts, and as [`walk_unrecorded`] reads it after.
pub(super) fn walk_recorded(text: &str, readers: &mut Readers, opts: &WalkOptions, mut budget: Budget) -> Walked {
    let mut candidates = Vec::new();
    // Candidates visited past the budget, and the number of the one read last.
    let mut unrecorded: Option<Unrecorded> = None;
    let mut visited = 0usize;
    let mut last_number = 0usize;
    let mut last: Option<(usize, usize, ReadingKind)> = None;
    let mut kept = None;
    let mut reads = Reads::default();

    let mut next = find_brace(text, 0);
    while let Some(start) = next {
        let (read, candidate) = if budget.candidates > 0 && budget.bytes > 0 {
            let (c, cost) = record_candidate(start, readers);
            budget.candidates -= 1;
            budget.bytes = budget.bytes.saturating_sub(cost);
            (recorded_read(&c, opts.readings), Some(c))
        } else {
            (readers.read(start, opts.readings), None)
        };
        if candidate.is_none() {
            let u = unrecorded.get_or_insert(Unrecorded { count: 0, read: 0, first: start, kept: None });
            u.count += 1;
            u.read += usize::from(read.is_some());
        }
        visited += 1;
        let step = match read {
            Some((end, by)) => {
                reads.count(by);
                last = Some((start, end, by));
                last_number = visited - 1;
                kept = candidate.is_some().then_some(candidates.len());
                Step::Took { by, end }
            }
            None => match opts.on_failure {
                OnFailure::Descend => Step::Descended,
                OnFailure::Resume => match resume_point(readers, start, candidate.as_ref()) {
                    Some(after) => Step::Resumed { after },
                    None => Step::Descended,
                },
            },
        };
        if let Some(mut c) = candidate {
            c.step = step;
            candidates.push(c);
        }
        next = match step {
            // Past the object: everything inside it belongs to it.
            Step::Took { end, .. } => {
                if opts.keep == Keep::First {
                    break;
                }
                find_brace(text, end)
            }
            // A candidate that could not be read says nothing about where it ends, least of
            // all a decoy whose closing brace belongs to something else: look inside it.
            Step::Descended => find_brace(text, start + 1),
            Step::Resumed { after } => find_brace(text, after),
        };
    }

    // The kept candidate is recorded whatever the budget: it is the one a reader of the trace
    // wants most.
    if let (Some(u), Some((start, end, by)), None) = (&mut unrecorded, last, kept) {
        let (mut c, _) = record_candidate(start, readers);
        c.step = Step::Took { by, end };
        u.count -= 1;
        u.read -= 1;
        u.kept = Some(last_number);
        kept = Some(candidates.len());
        candidates.push(c);
    }
    let unrecorded = unrecorded.filter(|u| u.count > 0 || u.kept.is_some());
    Walked { candidates, last, kept, unrecorded, reads }
}

/// Where a failed candidate ends, for [`OnFailure::Resume`].
fn resume_point(readers: &mut Readers, start: usize, recorded: Option<&Candidate>) -> Option<usize> {
    match recorded {
        Some(c) => c.strict.span().or(c.wide.span()).map(|s| s.end),
        None => readers.resume_point(start),
    }
}

/// One reading of the object at `start`, with its repairs.
pub fn reading_at(text: &str, start: usize, kind: ReadingKind) -> Reading {
    match kind {
        ReadingKind::Strict => strict_reading(text, start, strict_span(text, start)),
        ReadingKind::Wide | ReadingKind::Narrow => {
            let rule = if kind == ReadingKind::Wide { ColonRule::Wide } else { ColonRule::Narrow };
            let mut repairs = Vec::new();
            let span = repaired_span(text, start, rule, Some(&mut repairs));
            Reading::from_repaired(start, span, repairs)
        }
    }
}

/// The strict reading of the object at `start`, whose span ends at `end` (`None`: never).
fn strict_reading(text: &str, start: usize, end: Option<usize>) -> Reading {
    match end {
        None => Reading::Unbalanced,
        Some(end) => Reading::Balanced {
            span: Span::new(start, end),
            repairs: Vec::new(),
            outcome: js::parse(&text[start..end])
                .map(Arc::new)
                .map_err(|e| ParseError { offset: e.offset + start, ..e }),
        },
    }
}

/// The candidate at `start` read three ways, as [`reading_at`] reads each, and the bytes that
/// took: each reading's span, and what finding whether the spans balance scanned. Whether
/// they balance is looked up in the span ends of the whole reply (the strict and wide ones
/// found for every `{` in a pass or two, the narrow ones kept from each scan of a span for
/// the spans inside it), so that a reply of braces that never close costs a scan to its end
/// for a few candidates, not three for each.
fn record_candidate(start: usize, readers: &mut Readers) -> (Candidate, usize) {
    let text = readers.text;
    let strict_end = readers.strict_ends.get_or_insert_with(|| SpanEnds::new(text, SpanRule::Strict)).end(start);
    let wide_balances =
        readers.wide_ends.get_or_insert_with(|| SpanEnds::new(text, SpanRule::Wide)).end(start).is_some();
    let narrow_ends = readers.narrow_ends.get_or_insert_with(|| SpanEnds::new(text, SpanRule::Narrow));
    let scanned_before = narrow_ends.work.bytes;
    let narrow_balances = narrow_ends.end(start).is_some();
    let narrow_scanned = usize::try_from(narrow_ends.work.bytes - scanned_before).unwrap_or(usize::MAX);
    let strict = strict_reading(text, start, strict_end);
    let repaired = |rule: ColonRule, balances: bool| {
        if !balances {
            return Reading::Unbalanced;
        }
        let mut repairs = Vec::new();
        let span = repaired_span(text, start, rule, Some(&mut repairs));
        match (&strict, &span) {
            // Nothing repaired and the same span: the strict reading's text, so its outcome.
            (Reading::Balanced { span: s, outcome, .. }, Some(r)) if repairs.is_empty() && r.end == s.end => {
                Reading::Balanced { span: *s, repairs, outcome: outcome.clone() }
            }
            _ => Reading::from_repaired(start, span, repairs),
        }
    };
    let (wide, narrow) = (repaired(ColonRule::Wide, wide_balances), repaired(ColonRule::Narrow, narrow_balances));
    let covered = |r: &Reading| r.span().map_or(0, |s| s.end - start);
    let cost = covered(&strict) + covered(&wide) + covered(&narrow) + narrow_scanned + 1;
    (Candidate { start, strict, wide, narrow, step: Step::Descended }, cost)
}

fn recorded_read(c: &Candidate, readings: Readings) -> Option<(usize, ReadingKind)> {
    readings.order().iter().find_map(|&kind| {
        let r = c.reading(kind);
        if r.parses() { Some((r.span()?.end, kind)) } else { None }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::trace::DecidedBy;
    use crate::exact::walk::trace;

    #[test]
    fn a_bounded_trace_records_the_first_candidates_and_the_kept_one() {
        let depth = 5_000;
        let text = format!("{} {{\"ok\": 1}}", "{\"a\":".repeat(depth));
        let limit = RecordLimit { candidates: 100, bytes: usize::MAX, per_byte: 0 };
        let t = record(&text, &WalkOptions::SEED, Some(limit));
        let u = t.unrecorded.unwrap();
        assert_eq!((t.candidates.len(), u.count, u.read, u.first, u.kept), (101, depth - 100, 0, 500, Some(depth)));
        assert_eq!((t.visited(), t.kept, t.number(100), t.number(99)), (depth + 1, Some(100), depth, 99));
        assert_eq!(t.value.unwrap().to_json(), r#"{"ok":1}"#);
        assert_eq!(t.decided_by, DecidedBy::LastWins);
        assert_eq!(t.walk_end, Some(text.len()));
        // Within a budget of ten replies' length all are recorded: that none of their spans
        // ever closes is found by one scan from the first, each rule's, and looked up.
        let limit = RecordLimit { candidates: usize::MAX, bytes: 10 * text.len(), per_byte: 0 };
        let t = record(&text, &WalkOptions::SEED, Some(limit));
        assert_eq!((t.candidates.len(), t.unrecorded.map(|u| u.count)), (depth + 1, None));
        // Bytes bound it where each narrow scan runs to the end on its own: a `]` that closes
        // a brace's object leaves the containers of the scan from an earlier brace unlike the
        // scan from it, which is not taken on trust. Some ten of them fit in ten replies'
        // length, and the kept one is recorded beside them.
        let text = format!("{} {{\"ok\": 1}}", "{\"a\":]".repeat(depth));
        let limit = RecordLimit { candidates: usize::MAX, bytes: 10 * text.len(), per_byte: 0 };
        let t = record(&text, &WalkOptions::SEED, Some(limit));
        assert!((10..=12).contains(&t.candidates.len()), "{}", t.candidates.len());
        assert_eq!(t.visited(), depth + 1);
        // Nothing to bound: no note.
        assert!(trace(r#"a {"x": 1} b {"y": 2}"#).unrecorded.is_none());
    }
}
