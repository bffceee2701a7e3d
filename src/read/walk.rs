//! The last-wins reader (seed 000 `extractJson`, `readObjectAt`, `readArrayPrefix`).
//!
//! A reply that is its JSON is read whole. Otherwise every `{` is a candidate: it is read
//! strictly, or failing that after the one-pass repair; the walk keeps the LAST candidate
//! that reads, jumps past a candidate it read (its children belong to it), and descends into
//! one it could not read (its "closing brace" may belong to something else). Last, for a reply
//! that is one object from first to last character, a narrower reading of the whole reply is
//! taken if two gates let it through. The seed's comments say why each of those is so; the
//! short versions sit next to the code below.
//!
//! The engine is one function with [`WalkOptions`]: the seed's behaviour is
//! [`WalkOptions::SEED`], and each what-if the seed's comments measured (the narrow rule in
//! the walk, resuming after a failed candidate, first-wins, the gates removed) is a different
//! value of the same options, not a copy of the walk.

use std::ops::Range;
use std::sync::Arc;

use super::ends::{Scan, SpanEnds};
use super::flat;
use super::js::{self, ParseError, ParseErrorKind};
use super::memo::{Carries, Mode, Validator, Work};
use super::repair::{ColonRule, repaired_end, repaired_span};
use super::span::Span;
use super::strict::strict_span;
use super::trace::{
    Candidate, DecidedBy, NoReading, NotSelfContained, Reading, ReadingKind, Step, Trace, Unrecorded, WholeReply,
    WholeText,
};
use super::value::{JsString, Value};

/// Which readings a candidate gets, in the order they are tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Readings {
    /// Strict only: no repair at all.
    StrictOnly,
    /// Strict, then repaired under the wide colon rule: the seed.
    StrictThenWide,
    /// Strict, then repaired under the narrow colon rule: the narrow rule in every candidate.
    StrictThenNarrow,
    /// Strict, wide, then narrow as a per-candidate fallback.
    StrictThenWideThenNarrow,
}

impl Readings {
    /// What a strict failure must carry to be the failure of every reading after it.
    fn carried(self) -> Carries {
        match self {
            Readings::StrictOnly => Carries::Neither,
            Readings::StrictThenWide => Carries::Wide,
            Readings::StrictThenNarrow | Readings::StrictThenWideThenNarrow => Carries::Both,
        }
    }

    fn order(self) -> &'static [ReadingKind] {
        use ReadingKind::*;
        match self {
            Readings::StrictOnly => &[Strict],
            Readings::StrictThenWide => &[Strict, Wide],
            Readings::StrictThenNarrow => &[Strict, Narrow],
            Readings::StrictThenWideThenNarrow => &[Strict, Wide, Narrow],
        }
    }
}

/// Where the walk goes after a candidate it could not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OnFailure {
    /// To the next `{` inside it: the seed.
    Descend,
    /// To the next `{` after its span (strict span if it balances, else the wide one; a
    /// candidate with neither is descended into, as there is no end to resume after).
    Resume,
}

/// Which readable candidate is the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Keep {
    /// The last: the seed.
    Last,
    /// The first, and the walk stops there.
    First,
}

/// The whole-reply attempt and its gates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WholeReplyPolicy {
    pub enabled: bool,
    /// Refuse the narrow reading when the walk's answer closes on the reply's last
    /// non-space character (`walkClosedOnTheLastCharacter`).
    pub walk_closed_gate: bool,
    /// Refuse the narrow reading when one of its strings is not self-contained
    /// (`stringsAreSelfContained`).
    pub self_contained_gate: bool,
}

/// The parameters of the walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WalkOptions {
    pub readings: Readings,
    pub on_failure: OnFailure,
    pub keep: Keep,
    pub whole_reply: WholeReplyPolicy,
}

impl WalkOptions {
    /// Seed 000 exactly.
    pub const SEED: WalkOptions = WalkOptions {
        readings: Readings::StrictThenWide,
        on_failure: OnFailure::Descend,
        keep: Keep::Last,
        whole_reply: WholeReplyPolicy { enabled: true, walk_closed_gate: true, self_contained_gate: true },
    };
}

impl Default for WalkOptions {
    fn default() -> Self {
        WalkOptions::SEED
    }
}

/// `extractJson(text)`: the answer only.
pub fn extract_json(text: &str) -> Option<Value> {
    answer(text, &WalkOptions::SEED)
}

/// `extractJson(text)` with its decision record, bounded: the candidates are recorded in full
/// while that stays within [`RecordLimit::DEFAULT`], the rest are walked as [`run`] walks
/// them and counted in [`Trace::unrecorded`], and the candidate the walk kept is recorded
/// whatever the bound. The answer and the decision are exact either way.
pub fn trace(text: &str) -> Trace {
    record(text, &WalkOptions::SEED, Some(RecordLimit::DEFAULT))
}

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

/// The engine. With `record_all`, every candidate gets all three readings (strict, wide,
/// narrow) and is kept in the trace, however long that takes (the oracle's record, which
/// [`crate::cli::record`] prints); without, only the readings the walk needs are made.
pub fn run(text: &str, opts: &WalkOptions, record_all: bool) -> Trace {
    if record_all { record(text, opts, None) } else { walk_text(text, opts, None) }
}

/// A recorded walk, every candidate or up to `limit`.
fn record(text: &str, opts: &WalkOptions, limit: Option<RecordLimit>) -> Trace {
    let budget = match limit {
        Some(l) => {
            Budget { candidates: l.candidates, bytes: l.bytes.saturating_add(l.per_byte.saturating_mul(text.len())) }
        }
        None => Budget { candidates: usize::MAX, bytes: usize::MAX },
    };
    walk_text(text, opts, Some(budget))
}

/// What is left of a trace's [`RecordLimit`].
#[derive(Debug, Clone, Copy)]
struct Budget {
    candidates: usize,
    bytes: usize,
}

fn walk_text(text: &str, opts: &WalkOptions, budget: Option<Budget>) -> Trace {
    let record = budget.is_some();
    let mut readers = Readers::new(text);
    let whole_text = match read_whole_text(text, &mut readers, record) {
        Ok((span, value)) => {
            return Trace {
                whole_text: WholeText { span, outcome: Ok(()) },
                candidates: Vec::new(),
                kept: None,
                walk_end: None,
                whole_reply: WholeReply::NotTried { whole_text_parsed: true },
                decided_by: DecidedBy::WholeText,
                value: Some(value),
                work: readers.work(),
                unrecorded: None,
            };
        }
        Err(whole_text) => whole_text,
    };
    let Walked { candidates, last, kept, unrecorded } = match budget {
        Some(budget) => walk_recorded(text, &mut readers, opts, budget),
        None => Walked {
            candidates: Vec::new(),
            last: walk_unrecorded(text, &mut readers, opts),
            kept: None,
            unrecorded: None,
        },
    };
    let last_end = last.map(|(_, end, _)| end);
    let (whole_reply, taken) = if record {
        (whole_reply(text, &whole_text, last_end, &opts.whole_reply), None)
    } else {
        whole_reply_unrecorded(text, &whole_text, last_end, &opts.whole_reply, readers.strict.as_ref())
    };
    // The walk's value is built only when it is the answer.
    let (value, decided_by) = match &whole_reply {
        WholeReply::Taken { reading } => {
            (taken.or_else(|| reading.as_ref().and_then(Reading::value).cloned()), DecidedBy::WholeReply)
        }
        _ => {
            let walk_value = match (last, kept) {
                (Some((_, _, by)), Some(k)) => {
                    candidates.get(k).and_then(|c: &Candidate| c.reading(by).value().cloned())
                }
                (Some((start, end, by)), None) => build_value(text, start, end, by),
                (None, _) => None,
            };
            let decided = if walk_value.is_some() { DecidedBy::LastWins } else { DecidedBy::None };
            (walk_value, decided)
        }
    };
    let work = readers.work();
    Trace { whole_text, candidates, kept, walk_end: last_end, whole_reply, decided_by, value, work, unrecorded }
}

/// The walk's answer under `opts`, with no more work than the answer needs: nothing
/// recorded, and the whole-reply reading made only where its verdict could change the
/// answer. Always [`run`]`(text, opts, false).value`.
pub fn answer(text: &str, opts: &WalkOptions) -> Option<Value> {
    let (trim_start, trim_end) = js::trim_range(text);
    let span = Span::new(trim_start, trim_end);
    let mut readers = Readers::new(text);
    // A reply that is one object from first to last character is read strictly first (the
    // walk's first candidate, and the whole text), then narrowly, once, where that can read:
    // that reading is the whole-reply attempt's, and very often the walk's answer too, which
    // then needs no candidate walk at all.
    let one_object = text.as_bytes().get(span.start) == Some(&b'{')
        && span.end.checked_sub(1).and_then(|i| text.as_bytes().get(i)) == Some(&b'}');
    let mut whole = None;
    let mut first_fails_strictly = false;
    if one_object {
        let first = readers.strict().object_at_carrying(span.start);
        first_fails_strictly = first.is_err();
        match first {
            // The object is the whole reply: the reply is JSON.
            Ok(end) if end == span.end => {
                if let Ok(value) = js::parse(&text[span.start..span.end]) {
                    return Some(value);
                }
            }
            // A strict failure that carries to the narrow reading leaves it none.
            Err((_, carries)) if carries.to(Mode::Narrow) => {}
            _ => whole = js::parse_narrow_at(text, span.start).ok().filter(|r| r.end == span.end),
        }
    } else if let Ok((_, value)) = read_whole_text(text, &mut readers, false) {
        return Some(value);
    }
    if let Some(w) = &whole {
        // The walk's first candidate is this object (only whitespace comes before it). When
        // it does not read strictly, its first repaired reading is tried next, and where that
        // is this reading (the narrow one, or the wide one making the same decisions) the
        // walk takes it, ends on the reply's last character, and finds nothing after it. The
        // walk's answer is then this value; so is the whole-reply attempt's if it is taken.
        let same = match opts.readings.order().get(1) {
            Some(ReadingKind::Narrow) => true,
            Some(ReadingKind::Wide) => w.wide_is_the_same,
            _ => false,
        };
        if same && first_fails_strictly {
            return whole.map(|w| w.value);
        }
    }
    let last = walk_unrecorded(text, &mut readers, opts);
    let walk_end = last.map(|(_, end, _)| end);
    // Every refusal leaves the walk's answer.
    let policy = &opts.whole_reply;
    if policy.enabled
        && let Some(w) = whole
        && !(policy.walk_closed_gate && walk_end == Some(span.end))
        && (!policy.self_contained_gate || strings_are_self_contained(&w.value))
    {
        return Some(w.value);
    }
    let (start, end, by) = last?;
    build_value(text, start, end, by)
}

/// `JSON.parse(text.trim())`: the value and the trimmed span, or how it failed.
///
/// Without a trace to show, the text is validated before a value is built, so a reply that
/// is not JSON costs no allocation (and a leading object's outcome is remembered for the
/// walk's first candidate).
fn read_whole_text(text: &str, readers: &mut Readers, record: bool) -> Result<(Span, Value), WholeText> {
    let (trim_start, trim_end) = js::trim_range(text);
    let whole = &text[trim_start..trim_end];
    let span = Span::new(trim_start, trim_end);
    let parsed = if record || !matches!(whole.as_bytes().first(), Some(b'{' | b'[')) {
        js::parse(whole).map_err(|e| ParseError { offset: e.offset + trim_start, ..e })
    } else {
        match readers.strict().value_at(trim_start) {
            Ok(end) if end == trim_end => {
                js::parse(whole).map_err(|e| ParseError { offset: e.offset + trim_start, ..e })
            }
            Ok(end) => Err(ParseError { kind: ParseErrorKind::TrailingCharacters, offset: end }),
            Err(at) => Err(ParseError { kind: ParseErrorKind::Invalid, offset: at }),
        }
    };
    parsed.map(|value| (span, value)).map_err(|e| WholeText { span, outcome: Err(e) })
}

/// What the candidate walk found: the candidates (when recorded), the one read last (where
/// it starts and ends and by which reading) and its index among the recorded ones, and what
/// a bounded recording walked past.
struct Walked {
    candidates: Vec<Candidate>,
    last: Option<(usize, usize, ReadingKind)>,
    kept: Option<usize>,
    unrecorded: Option<Unrecorded>,
}

/// The walk as recorded: each candidate read from scratch as the seed reads it, while the
/// budget lasts, and as [`walk_unrecorded`] reads it after.
fn walk_recorded(text: &str, readers: &mut Readers, opts: &WalkOptions, mut budget: Budget) -> Walked {
    let mut candidates = Vec::new();
    // Candidates visited past the budget, and the number of the one read last.
    let mut unrecorded: Option<Unrecorded> = None;
    let mut visited = 0usize;
    let mut last_number = 0usize;
    let mut last: Option<(usize, usize, ReadingKind)> = None;
    let mut kept = None;

    let mut next = find_brace(text, 0);
    while let Some(start) = next {
        let (read, candidate) = if budget.candidates > 0 && budget.bytes > 0 {
            let c = record_candidate(text, start);
            budget.candidates -= 1;
            budget.bytes = budget.bytes.saturating_sub(recorded_cost(text, &c));
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
        let mut c = record_candidate(text, start);
        c.step = Step::Took { by, end };
        u.count -= 1;
        u.read -= 1;
        u.kept = Some(last_number);
        kept = Some(candidates.len());
        candidates.push(c);
    }
    let unrecorded = unrecorded.filter(|u| u.count > 0 || u.kept.is_some());
    Walked { candidates, last, kept, unrecorded }
}

/// The walk with nothing recorded: where the candidate read last starts and ends, and by
/// which reading. It is most of what reading a brace-laden reply costs, so nothing bigger
/// than that crosses its loop.
fn walk_unrecorded(text: &str, readers: &mut Readers, opts: &WalkOptions) -> Option<(usize, usize, ReadingKind)> {
    let mut last = None;
    let mut next = find_brace(text, 0);
    while let Some(start) = next {
        next = match readers.read(start, opts.readings) {
            // Past the object: everything inside it belongs to it.
            Some((end, by)) => {
                last = Some((start, end, by));
                if opts.keep == Keep::First {
                    break;
                }
                find_brace(text, end)
            }
            // Inside it: its closing brace may belong to something else. A brace there that
            // opens no object would be passed over the same way, so it is not visited.
            None => match opts.on_failure {
                OnFailure::Descend => {
                    let from = readers
                        .strict
                        .as_mut()
                        .map_or(start + 1, |v| v.past_known_failures(start + 1, opts.readings.carried()));
                    next_candidate(text, from, &readers.failing_keys)
                }
                OnFailure::Resume => find_brace(text, readers.resume_point(start).unwrap_or(start + 1)),
            },
        };
    }
    last
}

/// The candidate readers of one reply: the memoized validators for the strict, wide and
/// narrow readings (see [`super::memo`]), made when first needed.
struct Readers<'a> {
    text: &'a str,
    strict: Option<Validator<'a>>,
    wide: Option<Validator<'a>>,
    narrow: Option<Validator<'a>>,
    /// Span ends, for the what-if that resumes after a candidate it cannot read.
    strict_ends: Option<SpanEnds<'a>>,
    wide_ends: Option<SpanEnds<'a>>,
    /// Quotes at which the walk's one repaired reading (where it has one) is known to fail
    /// at a key ([`Validator::failing_keys`], as of its last reading: what it was known to
    /// fail at stays known).
    failing_keys: Range<usize>,
}

impl<'a> Readers<'a> {
    fn new(text: &'a str) -> Self {
        Readers { text, strict: None, wide: None, narrow: None, strict_ends: None, wide_ends: None, failing_keys: 0..0 }
    }

    fn strict(&mut self) -> &mut Validator<'a> {
        let text = self.text;
        self.strict.get_or_insert_with(|| Validator::new(text, Mode::Strict))
    }

    /// The first reading (in the variant's order) of the object at `start` that parses:
    /// its end and kind.
    #[inline(always)]
    fn read(&mut self, start: usize, readings: Readings) -> Option<(usize, ReadingKind)> {
        let first = first_token(self.text.as_bytes(), start);
        match self.text.as_bytes().get(first) {
            // The seed's two readings of a small flat object, read here in the walk's loop
            // without the validators (whose memo holds nothing so near its start): most
            // candidates in a page of small records, or in prose, are such objects.
            Some(b'"')
                if readings == Readings::StrictThenWide
                    && !self.wide.as_ref().is_some_and(|v| v.key_known_to_fail(first))
                    && !self.strict.as_ref().is_some_and(|v| v.knows(start)) =>
            {
                match flat::strict_then_wide(self.text.as_bytes(), start, first) {
                    Some(read) => {
                        read.map(|(end, wide)| (end, if wide { ReadingKind::Wide } else { ReadingKind::Strict }))
                    }
                    None => self.read_object(start, first, readings),
                }
            }
            Some(b'"') => self.read_object(start, first, readings),
            // `{}` reads, the same in every reading: there is no string to repair.
            Some(b'}') => Some((first + 1, ReadingKind::Strict)),
            // An object's first token is a key or its `}`: most prose braces fail here, under
            // every reading.
            _ => None,
        }
    }

    /// [`Readers::read`] for an object whose first token is a string, by the validators.
    /// Cold: most candidates are flat or fail at their first token, and the walk's loop keeps
    /// its registers for them.
    #[cold]
    #[inline(never)]
    fn read_object(&mut self, start: usize, key: usize, readings: Readings) -> Option<(usize, ReadingKind)> {
        let text = self.text;
        // Where the one repaired reading is already known to fail at the first key (a string
        // that never closes, read once for the brace before this one), the strict reading
        // fails too: a container that reads strictly reads the same repaired.
        let repaired = match readings.order() {
            [ReadingKind::Strict, ReadingKind::Wide] => self.wide.as_ref(),
            [ReadingKind::Strict, ReadingKind::Narrow] => self.narrow.as_ref(),
            _ => None,
        };
        if repaired.is_some_and(|v| v.key_known_to_fail(key)) {
            return None;
        }
        let one_repaired = readings.order().len() == 2;
        let strict = self.strict.get_or_insert_with(|| Validator::new(text, Mode::Strict));
        let carries = match strict.object_at_carrying(start) {
            Ok(end) => return Some((end, ReadingKind::Strict)),
            Err((_, carries)) => carries,
        };
        for &kind in &readings.order()[1..] {
            let (slot, mode) = match kind {
                ReadingKind::Strict => continue,
                ReadingKind::Wide => (&mut self.wide, Mode::Wide),
                ReadingKind::Narrow => (&mut self.narrow, Mode::Narrow),
            };
            // A strict failure that carries to this reading is its failure too.
            if carries.to(mode) {
                continue;
            }
            let validator = slot.get_or_insert_with(|| Validator::new(text, mode));
            let read = validator.object_at_knowing(start, self.strict.as_ref());
            if one_repaired {
                self.failing_keys = validator.failing_keys();
            }
            if let Ok(end) = read {
                return Some((end, kind));
            }
        }
        None
    }

    /// Where a candidate that could not be read ends, for [`OnFailure::Resume`]: its strict
    /// span, or its wide one.
    fn resume_point(&mut self, start: usize) -> Option<usize> {
        let text = self.text;
        let strict = self.strict_ends.get_or_insert_with(|| SpanEnds::new(text, Scan::Strict)).end(start);
        strict.or_else(|| self.wide_ends.get_or_insert_with(|| SpanEnds::new(text, Scan::Wide)).end(start))
    }

    fn work(&self) -> Work {
        let mut w = Work::default();
        for v in [&self.strict, &self.wide, &self.narrow].into_iter().flatten() {
            w.bytes += v.work.bytes;
            w.hits += v.work.hits;
        }
        for e in [&self.strict_ends, &self.wide_ends].into_iter().flatten() {
            w.bytes += e.work.bytes;
        }
        w
    }
}

/// The value of a reading known to parse.
fn build_value(text: &str, start: usize, end: usize, by: ReadingKind) -> Option<Value> {
    match by {
        ReadingKind::Strict => js::parse(text.get(start..end)?).ok(),
        ReadingKind::Wide => js::parse_repaired_at(text, start, ColonRule::Wide).ok().map(|(v, _)| v),
        ReadingKind::Narrow => js::parse_repaired_at(text, start, ColonRule::Narrow).ok().map(|(v, _)| v),
    }
}

fn find_brace(text: &str, from: usize) -> Option<usize> {
    let rest = text.as_bytes().get(from..)?;
    // On brace-laden text the next brace is usually right here, or within a word; a search
    // call costs more.
    if rest.first() == Some(&b'{') {
        return Some(from);
    }
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    if let Some(&word) = rest.first_chunk::<8>() {
        let x = u64::from_le_bytes(word) ^ (LO * u64::from(b'{'));
        // The lowest flagged byte is exact; higher ones may be false alarms.
        let found = x.wrapping_sub(LO) & !x & HI;
        if found != 0 {
            return Some(from + (found.trailing_zeros() / 8) as usize);
        }
        return memchr::memchr(b'{', rest.get(8..)?).map(|i| i + from + 8);
    }
    rest.iter().position(|&b| b == b'{').map(|i| i + from)
}

/// The first `{` at or after `from` that may open an object: one whose first token is a key
/// or its `}`. Brace-laden text (`{{{`, `{[{[`) is stepped over here without a reader.
fn find_candidate(text: &str, from: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = find_brace(text, from)?;
    loop {
        match bytes.get(at + 1) {
            Some(b'"' | b'}') => return Some(at),
            // A brace before a brace opens no object: on to the last of the run.
            Some(b'{') => at = last_of_brace_run(bytes, at + 1),
            Some(b' ' | b'\t' | b'\n' | b'\r') if matches!(bytes.get(first_token(bytes, at)), Some(b'"' | b'}')) => {
                return Some(at);
            }
            _ => at = find_brace(text, at + 2)?,
        }
    }
}

/// The last `{` of the run of them that starts with the one at `at`, a word at a time.
fn last_of_brace_run(bytes: &[u8], mut at: usize) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    while let Some(&word) = bytes.get(at + 1..).and_then(|rest| rest.first_chunk::<8>()) {
        let x = u64::from_le_bytes(word) ^ (LO * u64::from(b'{'));
        // The high bit of every byte that is not a brace: exact, as no sum crosses a byte.
        let other = ((x & !HI).wrapping_add(!HI) | x) & HI;
        if other != 0 {
            return at + (other.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while bytes.get(at + 1) == Some(&b'{') {
        at += 1;
    }
    at
}

/// The first candidate at or after `from` not known to fail: [`find_candidate`]'s, past
/// every `{` whose first key lies in `failing` ([`Readers::failing_keys`]). Such a candidate
/// fails under every reading ([`Readers::read_object`] turns it away), so the walk would
/// only descend past it: on `"{"{"{`… that is every brace after the first.
#[inline]
fn next_candidate(text: &str, from: usize, failing: &Range<usize>) -> Option<usize> {
    let at = find_candidate(text, from)?;
    // (A key lies after its brace: none of a brace at or past the end is in the range.)
    if at < failing.end {
        return past_failing_keys(text.as_bytes(), at, failing.clone());
    }
    Some(at)
}

/// [`next_candidate`] from the candidate at `at`, before the end of `failing`.
#[inline(never)]
fn past_failing_keys(bytes: &[u8], mut at: usize, failing: Range<usize>) -> Option<usize> {
    loop {
        let first = first_token(bytes, at);
        match bytes.get(first) {
            Some(b'"') if failing.contains(&first) => {}
            Some(b'"' | b'}') => return Some(at),
            _ => {}
        }
        // The next brace: close by on brace-laden text, where a search call costs more.
        at += 1;
        let near = bytes.len().min(at + 8);
        while at < near && bytes.get(at) != Some(&b'{') {
            at += 1;
        }
        if bytes.get(at) != Some(&b'{') {
            at += memchr::memchr(b'{', bytes.get(at..)?)?;
        }
    }
}

/// Where the first token after the `{` at `start` is, past JSON whitespace.
#[inline]
fn first_token(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while bytes.get(i).is_some_and(|&b| b <= b' ' && matches!(b, b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
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
        ReadingKind::Strict => match strict_span(text, start) {
            None => Reading::Unbalanced,
            Some(end) => Reading::Balanced {
                span: Span::new(start, end),
                repairs: Vec::new(),
                outcome: js::parse(&text[start..end])
                    .map(Arc::new)
                    .map_err(|e| ParseError { offset: e.offset + start, ..e }),
            },
        },
        ReadingKind::Wide | ReadingKind::Narrow => {
            let rule = if kind == ReadingKind::Wide { ColonRule::Wide } else { ColonRule::Narrow };
            let mut repairs = Vec::new();
            let span = repaired_span(text, start, rule, Some(&mut repairs));
            Reading::from_repaired(start, span, repairs)
        }
    }
}

fn record_candidate(text: &str, start: usize) -> Candidate {
    let strict = reading_at(text, start, ReadingKind::Strict);
    let repaired = |rule: ColonRule| {
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
    let (wide, narrow) = (repaired(ColonRule::Wide), repaired(ColonRule::Narrow));
    Candidate { start, strict, wide, narrow, step: Step::Descended }
}

/// The bytes recording a candidate covered: each reading's span, or the rest of the reply
/// for a reading that never closes.
fn recorded_cost(text: &str, c: &Candidate) -> usize {
    [&c.strict, &c.wide, &c.narrow].iter().map(|r| r.span().map_or(text.len(), |s| s.end) - c.start).sum::<usize>() + 1
}

fn recorded_read(c: &Candidate, readings: Readings) -> Option<(usize, ReadingKind)> {
    readings.order().iter().find_map(|&kind| {
        let r = c.reading(kind);
        if r.parses() { Some((r.span()?.end, kind)) } else { None }
    })
}

/// `readObjectAt(text, start)`: the value and end of the first reading that parses.
pub fn read_object_at(text: &str, start: usize) -> Option<(Value, usize)> {
    let (end, by) = Readers::new(text).read(start, Readings::StrictThenWide)?;
    Some((build_value(text, start, end, by)?, end))
}

/// The whole-reply attempt and its gates, recording the narrow reading.
fn whole_reply(text: &str, whole_text: &WholeText, walk_end: Option<usize>, policy: &WholeReplyPolicy) -> WholeReply {
    let span = whole_text.span;
    if !policy.enabled || text.as_bytes().get(span.start) != Some(&b'{') {
        return WholeReply::NotTried { whole_text_parsed: false };
    }
    // Reading from the trimmed start inside the full text is the same as reading the
    // trimmed text: what follows it is JavaScript whitespace, which the repair's lookahead
    // skips to the same end, and holds no brace to move the span.
    let reading = reading_at(text, span.start, ReadingKind::Narrow);
    let why = match &reading {
        Reading::Unbalanced => Some(NoReading::NeverCloses),
        Reading::Balanced { span: s, .. } if s.end != span.end => {
            Some(NoReading::ClosesShort { end: s.end, reply_end: span.end })
        }
        Reading::Balanced { outcome: Err(e), .. } => Some(NoReading::DoesNotParse(*e)),
        Reading::Balanced { .. } => None,
    };
    if let Some(why) = why {
        return WholeReply::NoReading { reading: Some(reading), why };
    }
    judge(walk_end, span.end, policy, reading)
}

/// The gates, in the seed's order, over a narrow reading that spans the reply and parses.
fn judge(walk_end: Option<usize>, reply_end: usize, policy: &WholeReplyPolicy, reading: Reading) -> WholeReply {
    // An object the walk read that closes where the reply closes is the reply's own
    // envelope: there is nothing left for a second reading to recover.
    if policy.walk_closed_gate && walk_end == Some(reply_end) {
        return WholeReply::RefusedWalkClosed { reading: Some(reading), walk_end: reply_end, reply_end };
    }
    if policy.self_contained_gate
        && let Some(fault) = reading.value().and_then(strings_not_self_contained)
    {
        return WholeReply::RefusedNotSelfContained { reading: Some(reading), fault };
    }
    WholeReply::Taken { reading: Some(reading) }
}

/// The same verdict without recording: the narrow reading is validated first, and built
/// only when a gate or the answer needs its value. When it is taken, its value is handed
/// back beside the verdict and the verdict carries no reading.
fn whole_reply_unrecorded(
    text: &str,
    whole_text: &WholeText,
    walk_end: Option<usize>,
    policy: &WholeReplyPolicy,
    strict: Option<&Validator>,
) -> (WholeReply, Option<Value>) {
    let span = whole_text.span;
    if !policy.enabled || text.as_bytes().get(span.start) != Some(&b'{') {
        return (WholeReply::NotTried { whole_text_parsed: false }, None);
    }
    let why = match Validator::once(text, Mode::Narrow).object_at_knowing(span.start, strict) {
        Ok(end) if end == span.end => None,
        Ok(end) => Some(NoReading::ClosesShort { end, reply_end: span.end }),
        // The seed's reasons, in its order: where the span ends, then whether it parses.
        Err(at) => Some(match repaired_end(text, span.start, ColonRule::Narrow) {
            None => NoReading::NeverCloses,
            Some(end) if end != span.end => NoReading::ClosesShort { end, reply_end: span.end },
            Some(_) => NoReading::DoesNotParse(ParseError { kind: ParseErrorKind::Invalid, offset: at }),
        }),
    };
    if let Some(why) = why {
        return (WholeReply::NoReading { reading: None, why }, None);
    }
    if policy.walk_closed_gate && walk_end == Some(span.end) {
        return (WholeReply::RefusedWalkClosed { reading: None, walk_end: span.end, reply_end: span.end }, None);
    }
    let Ok((value, _)) = js::parse_repaired_at(text, span.start, ColonRule::Narrow) else {
        // Validated above, so this does not happen; were it to, the reading is no reading.
        let why = NoReading::DoesNotParse(ParseError { kind: ParseErrorKind::Invalid, offset: span.start });
        return (WholeReply::NoReading { reading: None, why }, None);
    };
    if policy.self_contained_gate
        && let Some(fault) = strings_not_self_contained(&value)
    {
        return (WholeReply::RefusedNotSelfContained { reading: None, fault }, None);
    }
    (WholeReply::Taken { reading: None }, Some(value))
}

/// `!stringsAreSelfContained(value)`, with where: the first string (in JavaScript's
/// enumeration order) in which a `}` closes a `{` it never opened, or a `{` is left open.
pub fn strings_not_self_contained(value: &Value) -> Option<NotSelfContained> {
    // Depth-first, in order, without recursion. The path to the value being visited is kept
    // as borrowed parts, and written out only for the culprit.
    enum Visit<'a> {
        Enter(&'a Value, Option<PathPart<'a>>),
        Leave,
    }
    let mut trail: Vec<PathPart> = Vec::new();
    let mut stack = vec![Visit::Enter(value, None)];
    while let Some(visit) = stack.pop() {
        let (v, part) = match visit {
            Visit::Enter(v, part) => (v, part),
            Visit::Leave => {
                trail.pop();
                continue;
            }
        };
        match v {
            Value::String(s) => {
                if let Some((brace, at_char)) = brace_fault(s) {
                    trail.extend(part);
                    return Some(NotSelfContained { path: render_path(&trail), brace, at_char });
                }
            }
            Value::Array(items) => {
                if let Some(p) = part {
                    trail.push(p);
                    stack.push(Visit::Leave);
                }
                stack.extend(
                    items.iter().enumerate().rev().map(|(i, item)| Visit::Enter(item, Some(PathPart::Index(i)))),
                );
            }
            Value::Object(o) => {
                if let Some(p) = part {
                    trail.push(p);
                    stack.push(Visit::Leave);
                }
                stack.extend(o.iter().rev().map(|(k, item)| Visit::Enter(item, Some(PathPart::Key(k)))));
            }
            _ => {}
        }
    }
    None
}

/// `stringsAreSelfContained(value)`.
pub fn strings_are_self_contained(value: &Value) -> bool {
    strings_not_self_contained(value).is_none()
}

fn brace_fault(s: &JsString) -> Option<(char, usize)> {
    if let JsString::Utf8(t) = s {
        // Braces are ASCII: find them by byte, and count characters only for the culprit.
        let bytes = t.as_bytes();
        let at_char = |i: usize| t.get(..i).map_or(i, |p| p.chars().count());
        let mut open: Vec<usize> = Vec::new();
        for i in memchr::memchr2_iter(b'{', b'}', bytes) {
            if bytes[i] == b'{' {
                open.push(i);
            } else if open.pop().is_none() {
                return Some(('}', at_char(i)));
            }
        }
        return open.first().map(|&i| ('{', at_char(i)));
    }
    let mut open: Vec<usize> = Vec::new();
    for (i, c) in s.chars().enumerate() {
        if c == '{' {
            open.push(i);
        } else if c == '}' && open.pop().is_none() {
            return Some(('}', i));
        }
    }
    open.first().map(|&i| ('{', i))
}

#[derive(Clone, Copy)]
enum PathPart<'a> {
    Key(&'a JsString),
    Index(usize),
}

fn render_path(parts: &[PathPart]) -> String {
    let mut out = String::new();
    for p in parts {
        match p {
            PathPart::Index(i) => out.push_str(&format!("[{i}]")),
            PathPart::Key(k) => {
                let name = k.to_string_lossy();
                if is_identifier(&name) {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(&name);
                } else {
                    out.push('[');
                    crate::read::value::write_json_string(&mut out, &JsString::from(&*name));
                    out.push(']');
                }
            }
        }
    }
    if out.is_empty() { "(the value itself)".to_owned() } else { out }
}

fn is_identifier(k: &str) -> bool {
    let mut chars = k.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

/// `readArrayPrefix(text, field)`: the complete entries of the LAST `"field": [` array in
/// the reply, and whether its `]` was reached.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayPrefix {
    pub entries: Vec<Value>,
    pub closed: bool,
    /// Byte offset just past the array's `[`.
    pub open: usize,
}

pub fn read_array_prefix(text: &str, field: &str) -> Option<ArrayPrefix> {
    let bytes = text.as_bytes();
    let open = last_array_key(text, field)?;
    let mut entries = Vec::new();
    let mut i = open;
    loop {
        while i < bytes.len() {
            if bytes[i] == b',' {
                i += 1;
            } else if let Some(n) = js::whitespace_len_at(text, i) {
                i += n;
            } else {
                break;
            }
        }
        // A `]` is the list the model finished; anything else that is not an entry is where
        // reading stops, the cut itself or a shape this cannot use.
        if bytes.get(i) != Some(&b'{') {
            return Some(ArrayPrefix { entries, closed: bytes.get(i) == Some(&b']'), open });
        }
        match read_object_at(text, i) {
            None => return Some(ArrayPrefix { entries, closed: false, open }),
            Some((v, end)) => {
                entries.push(v);
                i = end;
            }
        }
    }
}

/// The offset just past the `[` of the last match of `"field"\s*:\s*\[` (matches taken left
/// to right without overlap, as a global regex does) not preceded by a backslash.
fn last_array_key(text: &str, field: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let needle = format!("\"{field}\"");
    let mut open = None;
    let mut from = 0;
    while let Some(found) = text.get(from..).and_then(|t| t.find(&needle)) {
        let at = from + found;
        let mut j = at + needle.len();
        let skip_ws = |j: &mut usize| {
            while let Some(n) = js::whitespace_len_at(text, *j) {
                *j += n;
            }
        };
        skip_ws(&mut j);
        let matched = bytes.get(j) == Some(&b':') && {
            j += 1;
            skip_ws(&mut j);
            bytes.get(j) == Some(&b'[')
        };
        if matched {
            if at == 0 || bytes[at - 1] != b'\\' {
                open = Some(j + 1);
            }
            from = j + 1;
        } else {
            from = at + 1;
        }
    }
    open
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extract(t: &str) -> String {
        extract_json(t).map_or("null".into(), |v| v.to_json())
    }

    proptest::proptest! {
        /// A run of braces ends at its last brace, whatever the bytes around it.
        #[test]
        fn a_brace_run_ends_at_its_last_brace(bytes in proptest::collection::vec(
            proptest::sample::select(vec![b'{', b'{', b'{', b'z', 0xfb, 0x7b ^ 0x80, 0x00, b'"']), 0..=40,
        )) {
            for at in (0..bytes.len()).filter(|&i| bytes[i] == b'{') {
                let last = at + bytes[at..].iter().take_while(|&&b| b == b'{').count() - 1;
                proptest::prop_assert_eq!(last_of_brace_run(&bytes, at), last);
            }
        }
    }

    #[test]
    fn a_brace_fault_is_named_by_its_path() {
        let fault = |t: &str| strings_not_self_contained(&js::parse(t).unwrap()).map(|f| (f.path, f.brace, f.at_char));
        assert_eq!(fault(r#"{"a": [{"b": "{x}"}, {"c d": "ok", "e": "é}"}]}"#), Some(("a[1].e".into(), '}', 1)));
        assert_eq!(fault(r#"{"a": [{"b": "{x}"}, {"c d": "x{"}]}"#), Some(("a[1][\"c d\"]".into(), '{', 1)));
        assert_eq!(fault(r#""{""#), Some(("(the value itself)".into(), '{', 0)));
        assert_eq!(fault(r#"{"a": ["{}", {"b": "}{"}]}"#), Some(("a[1].b".into(), '}', 0)));
        assert_eq!(fault(r#"{"a": ["{}", {"b": "{ }"}], "c": 1}"#), None);
    }

    #[test]
    fn the_last_readable_candidate_wins() {
        let t = r#"draft { "html": "...", "log": "..." } then {"html": "<p>real</p>", "log": "ok"}"#;
        assert_eq!(extract(t), r#"{"html":"<p>real</p>","log":"ok"}"#);
        let tr = trace(t);
        assert_eq!(tr.decided_by, DecidedBy::LastWins);
        assert_eq!(tr.candidates.len(), 2);
        assert_eq!(tr.kept, Some(1));
    }

    #[test]
    fn a_decoy_is_descended_into_not_resumed_after() {
        let t = r#"the contract is {html, log} and {"html": "x"} ok"#;
        let tr = trace(t);
        assert_eq!(tr.candidates[0].step, Step::Descended);
        assert_eq!(extract(t), r#"{"html":"x"}"#);
    }

    #[test]
    fn the_whole_reply_reading_rescues_a_quoted_contract() {
        let t = r#"{"faithful": false, "problems": [{"row": 3}], "notes": "I first read it as { "faithful": true, "problems": [] }; it is not."}"#;
        let tr = trace(t);
        assert_eq!(tr.whole_reply.name(), "taken");
        assert_eq!(tr.decided_by, DecidedBy::WholeReply);
        assert!(extract(t).starts_with(r#"{"faithful":false"#));
    }

    #[test]
    fn an_abandoned_draft_is_refused_by_the_self_contained_gate() {
        let t = "{\"html\": \"<p>Table 3 continues\n{\"html\": \"<table></table>\", \"log\": \"ok\"} trailing";
        // Not one object to the last character: no reading.
        assert_eq!(trace(t).whole_reply.name(), "not-tried".replace("not-tried", "no-reading"));
        let t = "{\"html\": \"<p>draft\n{\"html\": \"<table></table>\", \"log\": \"ok\"}";
        let tr = trace(t);
        assert_eq!(tr.whole_reply.name(), "refused-walk-closed");
        assert_eq!(extract(t), r#"{"html":"<table></table>","log":"ok"}"#);
    }

    #[test]
    fn self_contained_reports_the_path_and_brace() {
        let v = js::parse(r#"{"a": ["ok {}", {"b": "x { y"}]}"#).unwrap();
        let fault = strings_not_self_contained(&v).unwrap();
        assert_eq!(fault, NotSelfContained { path: "a[1].b".into(), brace: '{', at_char: 2 });
        let v = js::parse(r#"{"odd key": "}"}"#).unwrap();
        assert_eq!(strings_not_self_contained(&v).unwrap().path, r#"["odd key"]"#);
    }

    #[test]
    fn array_prefix_reads_the_entries_that_arrived() {
        let t = r#"{"edits":[{"a":1},{"b":2},{"c":"#;
        let p = read_array_prefix(t, "edits").unwrap();
        assert_eq!(p.entries.len(), 2);
        assert!(!p.closed);
        let p = read_array_prefix(r#"{"edits" : [ {"a":1} ] , "x""#, "edits").unwrap();
        assert!(p.closed);
        assert!(read_array_prefix(r#"{"text": "\"edits\":[{}]"}"#, "edits").is_none());
        assert!(read_array_prefix("none", "edits").is_none());
    }

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
        // Bytes bound it too: each of these candidates' readings runs to the end of the reply.
        let limit = RecordLimit { candidates: usize::MAX, bytes: 10 * text.len(), per_byte: 0 };
        let t = record(&text, &WalkOptions::SEED, Some(limit));
        assert!(t.candidates.len() <= 6, "{}", t.candidates.len());
        assert_eq!(t.visited(), depth + 1);
        // Nothing to bound: no note.
        assert!(trace(r#"a {"x": 1} b {"y": 2}"#).unrecorded.is_none());
    }

    #[test]
    fn variants_change_only_what_they_name() {
        let t = r#"{ "html": "...", "log": "..." } then {"html": "<p>real</p>"}"#;
        let first = WalkOptions { keep: Keep::First, ..WalkOptions::SEED };
        assert_eq!(run(t, &first, false).value.unwrap().to_json(), r#"{"html":"...","log":"..."}"#);
        assert_eq!(run(t, &WalkOptions::SEED, false).value.unwrap().to_json(), r#"{"html":"<p>real</p>"}"#);
    }
}
