//! Every `{` the seed's walk visits, with what the oracle's record says of each, in work
//! linear in the reply.
//!
//! The oracle's record lists, for each candidate, its strict span end and whether that span
//! parses, the same for the repaired (wide-colon) reading, and where the walk went on after
//! reading it. The recorded walk gets those as the seed does, by scanning and parsing each
//! candidate from scratch, which is quadratic on brace-laden text. None of it needs that:
//!
//! * a span end is where the brace-matching scan from that `{` closes, and [`SpanEnds`]
//!   finds every `{`'s in three passes at most; and the walk needs none, so a span is scanned
//!   for only where it is asked for ([`StrictSpans::end`]: the flags ask of few
//!   candidates, a record of all);
//! * a reading parses iff the grammar accepts the object at its brace (the essay in
//!   [`crate::exact::memo`]), which the memoized validators answer, each candidate at the
//!   cost of a lookup where an earlier one read through it;
//! * a strict reading that parses is the repaired reading too (a container that reads
//!   strictly reads the same repaired, [`Validator::object_at_knowing`]), so the walk's
//!   first reading that parses says both outcomes: strict, both parse; repaired, only the
//!   repaired one; none, neither.
//!
//! The walk is the recorded walk's: every `{` from the start, past a candidate it read and
//! into one it did not, not the engine's, which steps over braces it knows open nothing.
//!
//! [`Validator::object_at_knowing`]: crate::exact::memo::Validator::object_at_knowing

use crate::exact::ends::{SpanEnds, SpanRule};
use crate::exact::trace::{Candidate, ReadingKind, Reads, Trace};

use super::braces::find_brace;
use super::options::{Readings, WalkOptions};
use super::{How, Readers, walk_text};

/// One `{` the walk visited, as the oracle's record lists it, but for the ends of its spans,
/// which [`StrictSpans::end`] and [`repaired_ends`] give where they are asked for. Offsets
/// are bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Visit {
    /// The `{`.
    pub start: usize,
    /// The strict span parses.
    pub strict_ok: bool,
    /// The repaired span's text parses.
    pub repaired_ok: bool,
    /// Where the walk went on after reading it; `None` when it descended into it.
    pub read_end: Option<usize>,
}

impl Visit {
    /// What a recorded candidate says of the same.
    pub fn of(c: &Candidate) -> Visit {
        Visit { start: c.start, strict_ok: c.strict.parses(), repaired_ok: c.wide.parses(), read_end: c.read_end() }
    }
}

/// The candidates the seed's walk visited, and the strict span of any of them, scanned for
/// where it is asked.
pub struct Visited<'a> {
    pub visits: Vec<Visit>,
    pub spans: StrictSpans<'a>,
}

impl<'a> Visited<'a> {
    pub(super) fn new(visits: Vec<Visit>, spans: SpanEnds<'a>) -> Visited<'a> {
        Visited { visits, spans: StrictSpans(spans) }
    }

    /// [`StrictSpans::end`] of every visit, in order.
    pub fn strict_ends(&mut self) -> Vec<Option<usize>> {
        self.visits.iter().map(|v| self.spans.end(v, &self.visits)).collect()
    }

    /// The span ends found, for the walks of the reply to come.
    pub(super) fn into_spans(self) -> SpanEnds<'a> {
        self.spans.0
    }
}

/// The strict spans of a reply's visits.
pub struct StrictSpans<'a>(SpanEnds<'a>);

impl StrictSpans<'_> {
    /// The end of the balanced strict span of `visit`, one of `visits` (in the walk's
    /// order), `None` when its braces never balance: a strict reading that reads ends where
    /// its span does (`exact::memo`), so only the spans of the others are scanned for, and
    /// those scans step over the candidates the walk read strictly.
    pub fn end(&mut self, visit: &Visit, visits: &[Visit]) -> Option<usize> {
        if visit.strict_ok {
            return visit.read_end;
        }
        let read_strictly = |p: usize| {
            let k = visits.binary_search_by_key(&p, |v| v.start).ok()?;
            visits[k].read_end.filter(|_| visits[k].strict_ok)
        };
        self.0.end_knowing(visit.start, &read_strictly)
    }

    /// The bytes scanned for these spans.
    pub fn scanned(&self) -> u64 {
        self.0.work.bytes
    }
}

/// The seed's walk (`extractJson`) with every candidate it visited: the trace as
/// [`super::run`] gives it unrecorded (answer, decision, whole-reply verdict, walk end; no
/// candidates), and the visits, equal to [`Visit::of`] each candidate of the recorded walk.
pub fn visits(text: &str) -> (Trace, Visited<'_>) {
    // At most one a brace: room made once, not by doubling a list as long as the reply.
    let mut visits = Vec::with_capacity(memchr::memchr_iter(b'{', text.as_bytes()).count());
    let trace = walk_text(text, &WalkOptions::SEED, How::Visiting(&mut visits));
    (trace, Visited::new(visits, SpanEnds::new(text, SpanRule::Strict)))
}

/// The end of each visit's balanced repaired (wide-colon) span, `None` where its braces never
/// balance, as the oracle's record lists it: a reading that reads ends where its span does
/// (`exact::memo`), and a container that reads strictly is spanned alike by the repair (which
/// changes nothing in JSON), so only the spans of candidates no reading read are scanned for.
pub fn repaired_ends(text: &str, visits: &[Visit]) -> Vec<Option<usize>> {
    let mut wide_ends = SpanEnds::new(text, SpanRule::Wide);
    visits.iter().map(|v| v.read_end.or_else(|| wide_ends.end(v.start))).collect()
}

/// The candidate walk, each `{` visited kept in `visits`: where the candidate read last
/// starts and ends, and by which reading.
pub(super) fn walk_visiting(
    readers: &mut Readers,
    visits: &mut Vec<Visit>,
    reads: &mut Reads,
) -> Option<(usize, usize, ReadingKind)> {
    let text = readers.text;
    let mut last = None;
    let mut next = find_brace(text, 0);
    while let Some(start) = next {
        let read = readers.read(start, Readings::StrictThenWide);
        visits.push(Visit {
            start,
            strict_ok: matches!(read, Some((_, ReadingKind::Strict))),
            repaired_ok: read.is_some(),
            read_end: read.map(|(end, _)| end),
        });
        next = match read {
            // Past the object: everything inside it belongs to it.
            Some((end, by)) => {
                reads.count(by);
                last = Some((start, end, by));
                find_brace(text, end)
            }
            // Inside it: its closing brace may belong to something else.
            None => find_brace(text, start + 1),
        };
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::value::Value;
    use crate::exact::walk::{Walker, run};

    fn agree(text: &str) {
        kept_as_walked(text);
        let (fast, mut got) = visits(text);
        let slow = run(text, &WalkOptions::SEED, true);
        let want: Vec<Visit> = slow.candidates.iter().map(Visit::of).collect();
        assert_eq!(got.visits, want, "{text:?}");
        let ends: Vec<Option<usize>> = slow.candidates.iter().map(|c| c.strict.span().map(|s| s.end)).collect();
        assert_eq!(got.strict_ends(), ends, "{text:?}");
        let ends: Vec<Option<usize>> = slow.candidates.iter().map(|c| c.wide.span().map(|s| s.end)).collect();
        assert_eq!(repaired_ends(text, &got.visits), ends, "{text:?}");
        assert_eq!(fast.walk_end, slow.walk_end, "{text:?}");
        assert_eq!(fast.decided_by, slow.decided_by, "{text:?}");
        assert_eq!(fast.whole_reply.name(), slow.whole_reply.name(), "{text:?}");
        assert_eq!(fast.value.as_ref().map(Value::to_json), slow.value.as_ref().map(Value::to_json), "{text:?}");
    }

    #[test]
    fn visits_are_the_recorded_walks_candidates() {
        for t in [
            "",
            "no braces",
            r#"{"a": 1}"#,
            r#"draft { "html": "...", "log": "..." } then {"html": "<p>real</p>", "log": "ok"}"#,
            r#"the contract is {html, log} and {"html": "x"} ok"#,
            "{\"html\": \"<p>draft\n{\"html\": \"<table></table>\", \"log\": \"ok\"}",
            r#"{"faithful": false, "notes": "I read it as { "faithful": true }; it is not."}"#,
            r#"{"a":{"a":{"a":{"a":"#,
            r#""{"{"{"{"{"{"#,
            r#"{"a": "q"x", "b": {"c": 1}} {}"#,
            "{{}{\"}\"}}}{",
            "{\"a\": \"line\nbreak\"} {\"b\\q\": 1}",
        ] {
            agree(t);
        }
    }

    /// The visits the seed's walk kept ([`Walker::decide_seed`]) are those its walk visits.
    fn kept_as_walked(text: &str) {
        let mut walker = Walker::new(text);
        walker.decide_seed();
        let kept = walker.seed_visits();
        assert_eq!(kept.visits, visits(text).1.visits, "{text:?}");
    }

    /// Where the seed walks its candidates, their visits are not walked again; where it
    /// walks none (the reply is JSON), they are.
    #[test]
    fn the_seeds_walk_keeps_its_visits_for_the_flags() {
        for (text, walked) in [
            (r#"draft { "html": "..." } then {"html": "<p>real</p>"}"#, 0),
            (r#"{"a":{"a":{"a":{"a":"#, 0),
            (r#"{"html": "<p>real</p>"}"#, 1),
        ] {
            let mut walker = Walker::new(text);
            walker.decide_seed();
            walker.seed_visits();
            assert_eq!(walker.visits_walked, walked, "{text:?}");
        }
    }

    proptest::proptest! {
        /// Kept visits agree with the visiting walk on text made of the pieces candidates
        /// are made of: the braces the seed's walk passes over after a failure are visits too.
        #[test]
        fn kept_visits_are_the_visiting_walks(pieces in proptest::collection::vec(
            proptest::sample::select(vec![
                "{", "{", "}", "\"", ":", ",", "\"a\"", "1", "\\", "\n", " ", "[", "]", "x",
                "\"faithful\": true", "{\"a\":", "\"html\": \"<p class=\"c\">\"",
            ]),
            0..=40,
        )) {
            kept_as_walked(&pieces.concat());
        }
    }
}
