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
//!
//! The parts: [`options`](WalkOptions) (what a walk is asked to do), this module (the
//! engine: the walk that reads only what the answer needs), `braces` (where the next
//! candidate is), `recorded` (the walk as the seed does it, every reading of every candidate
//! kept for the trace), `gates` (the whole-reply attempt) and `prefix` (`readArrayPrefix`).

mod braces;
mod gates;
mod options;
mod prefix;
mod recorded;
mod visits;

use std::collections::HashMap;
use std::ops::Range;

use super::ends::{SpanEnds, SpanRule};
use super::js::{self, ParseError, ParseErrorKind, RepairedReading};
use super::lex;
use super::memo::{self, Carries, Carrying, Mode, Outcome, Validator, Work, flat};
use super::repair::ColonRule;
use super::reprint::reprint;
use super::span::Span;
use super::trace::{
    Candidate, DecidedBy, Place, Reading, ReadingKind, Reads, Trace, Unrecorded, WholeReply, WholeText,
};
use super::value::Value;

use braces::{find_brace, first_token, next_candidate};
use gates::{whole_reply, whole_reply_unrecorded};
use recorded::{Budget, record, walk_recorded};
use visits::walk_visiting;

pub use gates::{first_string, strings_are_self_contained, strings_not_self_contained};
pub use options::{Keep, OnFailure, Readings, WalkOptions, WholeReplyPolicy};
pub use prefix::{ArrayPrefix, count_array_prefix, count_array_prefix_within, read_array_prefix};
pub use recorded::{RecordLimit, reading_at};
pub use visits::{Visit, Visited, repaired_ends, visits};

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

/// The engine. With `record_all`, every candidate gets all three readings (strict, wide,
/// narrow) and is kept in the trace, however long that takes (the oracle's record, which
/// [`crate::cli::record`] prints); without, only the readings the walk needs are made.
pub fn run(text: &str, opts: &WalkOptions, record_all: bool) -> Trace {
    if record_all { record(text, opts, None) } else { walk_text(text, opts, How::Unrecorded) }
}

/// How [`walk_with`] walks the candidates: as the engine does, recording each as the seed
/// reads it (within a budget), or keeping what the oracle's record says of each.
enum How<'v> {
    Unrecorded,
    /// Unrecorded, and where the candidate walk runs, what it visits kept in the slot, from
    /// which [`How::Visiting`]'s list is made.
    UnrecordedKeeping(&'v mut Option<Vec<Passed>>),
    Recorded(Budget),
    Visiting(&'v mut Vec<Visit>),
}

fn walk_text(text: &str, opts: &WalkOptions, how: How) -> Trace {
    walk_with(&mut Readers::new(text), opts, how, true)
}

/// Walks of one reply under several options, sharing what each learned of the text (each
/// reading's outcomes by position, span ends): what a scan, which reads a reply under every
/// what-if, walks with. Each walk is exactly [`run`]'s or [`locate`]'s.
pub struct Walker<'a> {
    readers: Readers<'a>,
    /// What the seed's walk visited ([`Walker::decide_seed`]), where it walked.
    seed_visits: Option<Vec<Passed>>,
    /// How many times [`Walker::seed_visits`] walked the candidates again: what a test counts.
    #[cfg(test)]
    visits_walked: usize,
}

impl<'a> Walker<'a> {
    pub fn new(text: &'a str) -> Walker<'a> {
        let mut readers = Readers::new(text);
        // Room for what the walks learn made once, not by doubling from nothing (which cost
        // as much as the entries' own insertion): a reading of some candidate for every few
        // hundred bytes, on the hard campaign's replies.
        let room = (text.len() / LEARNED_EVERY).min(LEARNED_ROOM);
        readers.shared = Some(Shared::with_capacity_and_hasher(room, Default::default()));
        Walker {
            readers,
            seed_visits: None,
            #[cfg(test)]
            visits_walked: 0,
        }
    }

    /// [`run`]`(text, opts, false)`.
    pub fn run(&mut self, opts: &WalkOptions) -> Trace {
        walk_with(&mut self.readers, opts, How::Unrecorded, true)
    }

    /// [`Walker::run`], its answer's value left unbuilt where its place says where to build
    /// it (the whole text, or a span with its reading): `value` is then `None`, and the
    /// decision and the place are [`Walker::run`]'s. A caller that may never need the
    /// value (a scan, on most replies) builds none.
    pub fn decide(&mut self, opts: &WalkOptions) -> Trace {
        walk_with(&mut self.readers, opts, How::Unrecorded, false)
    }

    /// [`Walker::decide`] of the seed's options, keeping every candidate its walk visits for
    /// [`Walker::seed_visits`], which then need not walk them again.
    pub fn decide_seed(&mut self) -> Trace {
        let mut kept = None;
        let trace = walk_with(&mut self.readers, &WalkOptions::SEED, How::UnrecordedKeeping(&mut kept), false);
        self.seed_visits = kept;
        trace
    }

    /// [`locate`]`(text, opts)`.
    pub fn locate(&mut self, opts: &WalkOptions) -> Located {
        find_with(&mut self.readers, opts, Make::Nothing)
    }

    /// Whether `JSON.parse` reads the container at `start` of the reply and ends it at `end`,
    /// told by the strict validator every walk of this reply shares (the seed's walk has
    /// often read it already).
    pub fn strictly_parses(&mut self, start: usize, end: usize) -> bool {
        matches!(self.readers.text.as_bytes().get(start), Some(b'{' | b'[')) && self.strict_end(start) == Some(end)
    }

    /// Where `JSON.parse` reads the value at `start` to, if it does: the outcome a walk of
    /// these readers learned there (the seed's walk reads most objects a reply has), else
    /// the strict validator's.
    pub fn strict_end(&mut self, start: usize) -> Option<usize> {
        if let Some(known) = learned(self.readers.shared.as_ref(), start, ReadingKind::Strict) {
            return known.ok();
        }
        self.readers.strict().value_at(start).ok()
    }

    /// [`prefix::count_array_prefix`]`(text, field)`, each entry read through what the walks
    /// before it learned (a what-if that descends into the answer reads most entries).
    pub fn count_array_prefix(&mut self, field: &str) -> Option<(usize, bool)> {
        prefix::count_array_prefix_with(&mut self.readers, field)
    }

    /// [`visits`]`(text)`: the seed's walk with every candidate it visits, reading through
    /// what the walks before it learned.
    /// The spans the visits' owner asks for are scanned with those the walks before found;
    /// [`Walker::keep_spans`] keeps them for the walks after.
    pub fn visits(&mut self) -> (Trace, Visited<'a>) {
        #[cfg(test)]
        {
            self.visits_walked += 1;
        }
        let text = self.readers.text;
        let braces = memchr::memchr_iter(b'{', text.as_bytes()).count();
        let mut visits = Vec::with_capacity(braces);
        let trace = walk_with(&mut self.readers, &WalkOptions::SEED, How::Visiting(&mut visits), false);
        let spans = self.readers.strict_ends.take().unwrap_or_else(|| SpanEnds::new(text, SpanRule::Strict));
        (trace, Visited::new(visits, spans))
    }

    /// [`Walker::visits`] without its trace: those the seed's walk kept
    /// ([`Walker::decide_seed`]), else walked now.
    pub fn seed_visits(&mut self) -> Visited<'a> {
        match self.seed_visits.take() {
            Some(passed) => {
                let text = self.readers.text;
                // Grown as the runs are listed: counting the reply's braces first costs as much
                // as listing them.
                let mut visits = Vec::with_capacity(passed.len());
                for p in passed {
                    match p {
                        Passed::Read(visit) => visits.push(visit),
                        // Each fails under every reading, and is visited and descended into.
                        Passed::Failed(run) => {
                            let bytes = text.as_bytes().get(run.clone()).unwrap_or_default();
                            visits.extend(memchr::memchr_iter(b'{', bytes).map(|k| Visit {
                                start: run.start + k,
                                strict_ok: false,
                                repaired_ok: false,
                                read_end: None,
                            }));
                        }
                    }
                }
                let spans = self.readers.strict_ends.take().unwrap_or_else(|| SpanEnds::new(text, SpanRule::Strict));
                Visited::new(visits, spans)
            }
            None => self.visits().1,
        }
    }

    /// The strict spans `visited` found, for this walker's walks to come (the
    /// resume-after-fail what-if goes on after the spans of the candidates it cannot read).
    pub fn keep_spans(&mut self, visited: Visited<'a>) {
        self.readers.strict_ends = Some(visited.into_spans());
    }
}

/// The walk; with `build`, its answer's value built (else left to whoever needs it, where
/// the place tells how: [`Walker::decide`]).
fn walk_with(readers: &mut Readers, opts: &WalkOptions, how: How, build: bool) -> Trace {
    let text = readers.text;
    // What one walk knew of its own repaired reading's failing keys is its own.
    readers.failing_keys = 0..0;
    let record = matches!(how, How::Recorded(_));
    let whole_text = match read_whole_text(text, readers, record, build) {
        Ok((span, value)) => {
            return Trace {
                whole_text: WholeText { span, outcome: Ok(()) },
                candidates: Vec::new(),
                kept: None,
                walk_end: None,
                whole_reply: WholeReply::NotTried { whole_text_parsed: true },
                decided_by: DecidedBy::WholeText,
                value,
                work: readers.work(),
                unrecorded: None,
                reads: Reads::default(),
                place: Place::WholeText,
            };
        }
        Err(whole_text) => whole_text,
    };
    let mut reads = Reads::default();
    // The narrow reading of a reply that is one object, where it was built before the walk.
    let mut built = None;
    let Walked { candidates, last, kept, unrecorded, reads } = match how {
        How::Recorded(budget) => walk_recorded(text, readers, opts, budget),
        How::Unrecorded | How::UnrecordedKeeping(_) => {
            let span = whole_text.span;
            let mut keeping = match how {
                How::UnrecordedKeeping(slot) => Some(slot),
                _ => None,
            };
            let mut walk = |readers: &mut Readers, reads: &mut Reads| {
                let passed = keeping.as_mut().map(|slot| slot.get_or_insert_with(Vec::new));
                walk_unrecorded(text, readers, opts, reads, passed)
            };
            let last = match readers.whole_first(span, opts.readings) {
                Some((value, Some(by))) => {
                    built = Some(value);
                    reads.count(by);
                    Some((span.start, span.end, by))
                }
                Some((value, None)) => {
                    built = Some(value);
                    walk(readers, &mut reads)
                }
                None => walk(readers, &mut reads),
            };
            Walked { candidates: Vec::new(), last, kept: None, unrecorded: None, reads }
        }
        How::Visiting(visits) => {
            let last = walk_visiting(readers, visits, &mut reads);
            Walked { candidates: Vec::new(), last, kept: None, unrecorded: None, reads }
        }
    };
    let last_end = last.map(|(_, end, _)| end);
    let (whole_reply, taken) = if record {
        (whole_reply(text, &whole_text, last_end, &opts.whole_reply), None)
    } else {
        whole_reply_unrecorded(
            text,
            &whole_text,
            last,
            &opts.whole_reply,
            readers.strict.as_ref(),
            &mut readers.whole_narrow,
            &mut built,
        )
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
                // Built before the walk, where the walk read the whole reply by a reading
                // making the narrow reading's decisions (`Readers::whole_first`).
                (Some((start, end, _)), None)
                    if built.is_some() && (start, end) == (whole_text.span.start, whole_text.span.end) =>
                {
                    built.take()
                }
                (Some((start, end, by)), None) if build => build_value(text, start, end, by),
                _ => None,
            };
            // A reading known to read at its place reads a value there, built or not.
            let read = walk_value.is_some() || (!build && kept.is_none() && last.is_some());
            let decided = if read { DecidedBy::LastWins } else { DecidedBy::None };
            (walk_value, decided)
        }
    };
    let work = readers.work();
    let place = match (decided_by, last) {
        (DecidedBy::WholeReply, _) => {
            Place::Span { start: whole_text.span.start, end: whole_text.span.end, by: ReadingKind::Narrow }
        }
        (DecidedBy::LastWins, Some((start, end, by))) => Place::Span { start, end, by },
        _ => Place::Nothing,
    };
    Trace {
        whole_text,
        candidates,
        kept,
        walk_end: last_end,
        whole_reply,
        decided_by,
        value,
        work,
        unrecorded,
        reads,
        place,
    }
}

/// The walk's answer under `opts`, with no more work than the answer needs: nothing
/// recorded, and the whole-reply reading made only where its verdict could change the
/// answer. Always [`run`]`(text, opts, false).value`.
pub fn answer(text: &str, opts: &WalkOptions) -> Option<Value> {
    find(text, opts, Make::Value).into_value(text)
}

/// Where the walk's answer is, and its value where finding the place built it already.
#[derive(Debug)]
pub struct Located {
    pub place: Place,
    value: Option<Value>,
    /// The answer was printed where [`print_answer`] was asked to print it.
    printed: bool,
}

impl Located {
    /// The value, where finding the place built it (a gate that reads the strings does).
    pub fn built(self) -> Option<Value> {
        self.value
    }

    /// The answer: the value at the place, built now if it was not built finding it.
    pub fn into_value(self, text: &str) -> Option<Value> {
        self.into_answer(text)?.into_value(text)
    }

    /// The answer, a strict reading's left in the reply where it is.
    pub fn into_answer(self, text: &str) -> Option<Answer> {
        match (self.value, self.place) {
            (Some(v), _) => Some(Answer::Value(v)),
            (None, Place::WholeText) => {
                let (start, end) = lex::trim_range(text);
                Some(Answer::Json(Span::new(start, end)))
            }
            (None, Place::Span { start, end, by: ReadingKind::Strict }) => Some(Answer::Json(Span::new(start, end))),
            (None, Place::Span { start, end, by: ReadingKind::Wide }) => {
                Some(Answer::Repaired(Span::new(start, end), ColonRule::Wide))
            }
            (None, Place::Span { start, end, by: ReadingKind::Narrow }) => {
                Some(Answer::Repaired(Span::new(start, end), ColonRule::Narrow))
            }
            (None, _) => None,
        }
    }
}

/// Where an answer is: a value, or a span of the reply whose reading is the answer, for a
/// caller that prints it without building it: a span that is JSON (a strict reading,
/// [`crate::exact::reprint`]), or one read through the repair under a colon rule
/// ([`js::print_repaired_at`]).
pub enum Answer {
    Value(Value),
    Json(Span),
    Repaired(Span, ColonRule),
}

impl Answer {
    pub fn into_value(self, text: &str) -> Option<Value> {
        match self {
            Answer::Value(v) => Some(v),
            Answer::Json(span) => js::parse(text.get(span.start..span.end)?).ok(),
            Answer::Repaired(span, rule) => js::parse_repaired_at(text, span.start, rule).ok().map(|(v, _)| v),
        }
    }

    /// Appends `JSON.stringify` of the answer to `out`: printed from the reply where its text
    /// says how, its value built and written where it does not; with `written`, where a line
    /// wrote the reply in JSON ([`js::Escaped`]).
    pub fn print(self, text: &str, written: Option<&js::Escaped>, out: &mut String) {
        let printed = match &self {
            Answer::Value(_) => false,
            Answer::Json(span) => {
                room_for(out, span.end - span.start);
                reprint(text, span.start, span.end, out)
            }
            Answer::Repaired(span, rule) => {
                room_for(out, span.end - span.start);
                js::print_repaired_at(text, span.start, *rule, written, out).is_some()
            }
        };
        if !printed {
            match self.into_value(text) {
                Some(v) => v.write_json(out),
                None => out.push_str("null"),
            }
        }
    }
}

/// [`answer`], its value left in the reply where it is a strict reading.
pub fn answer_in(text: &str, opts: &WalkOptions) -> Option<Answer> {
    find(text, opts, Make::Value).into_answer(text)
}

/// [`answer`] without its value where finding where it is needs none: a caller comparing
/// two walks whose answers are at the same place need build neither. The whole-reply reading
/// is validated, and built only where a gate reads its strings.
pub fn locate(text: &str, opts: &WalkOptions) -> Located {
    find(text, opts, Make::Nothing)
}

/// Appends `JSON.stringify` of the walk's answer under `opts` to `out` (`null` where there is
/// none): [`answer`], printed without building a value the reply's text says how to print.
/// A strict reading is printed from the reply ([`crate::exact::reprint`]), and so is a
/// repaired one ([`js::print_repaired_at`]), the whole-reply reading included, printed as
/// soon as it can read where [`answer`] would build it. `written`: where a line wrote the
/// reply in JSON, its text copied from there where it can be ([`js::Escaped`]).
pub fn print_answer(text: &str, written: Option<&js::Escaped>, opts: &WalkOptions, out: &mut String) {
    let opened = out.len();
    let located = find_with(&mut Readers::new(text), opts, Make::Print(out, written));
    if located.printed {
        return;
    }
    // Whatever was printed of a reading that is not the answer goes.
    out.truncate(opened);
    match located.into_answer(text) {
        Some(answer) => answer.print(text, written, out),
        None => out.push_str("null"),
    }
}

/// Room in `out` for the JSON of a reading `len` bytes of the reply long (and what its
/// escapes may add), made at once and a power of two in size: a buffer kept for the next
/// answer then fits it, and grows through no size on the way. Only an answer's own length
/// says how much: room made for every record as for its line's length was a huge page
/// faulted in for each small record beside a megabyte's reply.
fn room_for(out: &mut String, len: usize) {
    let room = (out.len() + len + len / 8 + 64).next_power_of_two();
    out.reserve_exact(room.saturating_sub(out.len()));
}

/// What finding the answer makes of the whole-reply reading, once it can read.
enum Make<'o> {
    /// Nothing: only known to read ([`locate`]).
    Nothing,
    /// Its value, which lets the walk be passed over where it would take that reading first
    /// ([`answer`]).
    Value,
    /// Its text, appended to this one ([`print_answer`]), with where a line wrote the reply;
    /// its value where it cannot be printed.
    Print(&'o mut String, Option<&'o js::Escaped<'o>>),
}

/// The whole-reply reading, made: built, or printed with what printing it found.
enum Made {
    Built(RepairedReading),
    Printed(js::Printed),
}

impl Made {
    fn wide_is_the_same(&self) -> bool {
        match self {
            Made::Built(r) => r.wide_is_the_same,
            Made::Printed(p) => p.wide_is_the_same,
        }
    }
}

/// The answer at `place`: the whole-reply reading `made`.
fn located(place: Place, made: Option<Made>) -> Located {
    match made {
        Some(Made::Printed(_)) => Located { place, value: None, printed: true },
        Some(Made::Built(r)) => Located { place, value: Some(r.value), printed: false },
        None => Located { place, value: None, printed: false },
    }
}

fn find(text: &str, opts: &WalkOptions, make: Make) -> Located {
    find_with(&mut Readers::new(text), opts, make)
}

fn find_with(readers: &mut Readers, opts: &WalkOptions, mut make: Make) -> Located {
    let text = readers.text;
    readers.failing_keys = 0..0;
    let built = |place, value| Located { place, value: Some(value), printed: false };
    let at = |place| Located { place, value: None, printed: false };
    let (trim_start, trim_end) = lex::trim_range(text);
    let span = Span::new(trim_start, trim_end);
    let narrow = Place::Span { start: span.start, end: span.end, by: ReadingKind::Narrow };
    // A reply that is one object from first to last character is read strictly first (the
    // walk's first candidate, and the whole text), then narrowly, once, where that can read:
    // that reading is the whole-reply attempt's, and very often the walk's answer too, which
    // then needs no candidate walk at all.
    let one_object = is_one_object(text, span);
    // The narrow reading of the whole reply, where it spans the reply and parses: made, or
    // only known to read.
    let mut whole: Option<Option<Made>> = None;
    let mut first_fails_strictly = false;
    if one_object {
        let first = readers.strict().object_at_carrying(span.start);
        first_fails_strictly = first.is_err();
        match first {
            // The object is the whole reply: the reply is JSON.
            Ok(end) if end == span.end => return at(Place::WholeText),
            // A strict failure that carries to the narrow reading leaves it none.
            Err((_, carries)) if carries.to(Mode::Narrow) => {}
            _ if matches!(make, Make::Value) => whole = build_whole(text, span).map(Some),
            _ if let Make::Print(out, written) = &mut make => {
                room_for(out, span.end - span.start);
                let opened = out.len();
                whole = match js::print_repaired_at(text, span.start, ColonRule::Narrow, *written, out) {
                    Some(p) if p.end == span.end => Some(Some(Made::Printed(p))),
                    Some(_) => {
                        out.truncate(opened);
                        None
                    }
                    None => build_whole(text, span).map(Some),
                };
            }
            _ => {
                let reads = *readers.whole_narrow.reads.get_or_insert_with(|| {
                    Validator::once(text, Mode::Narrow).object_at_knowing(span.start, readers.strict.as_ref())
                        == Ok(span.end)
                });
                whole = reads.then_some(None);
            }
        }
    } else if let Ok((_, Some(value))) = read_whole_text(text, readers, false, true) {
        return built(Place::WholeText, value);
    }
    if let Some(w) = &whole {
        // The walk's first candidate is this object (only whitespace comes before it). When
        // it does not read strictly, its first repaired reading is tried next, and where that
        // is this reading (the narrow one, or the wide one making the same decisions) the
        // walk takes it, ends on the reply's last character, and finds nothing after it. The
        // walk's answer is then this value; so is the whole-reply attempt's if it is taken.
        // (Whether the wide reading makes the same decisions is known only from building
        // the narrow reading: not eager, the walk is walked.)
        let by = match (opts.readings.order().get(1), w) {
            (Some(ReadingKind::Narrow), _) => Some(ReadingKind::Narrow),
            (Some(ReadingKind::Wide), Some(w)) if w.wide_is_the_same() => Some(ReadingKind::Wide),
            _ => None,
        };
        if let (Some(by), true) = (by, first_fails_strictly) {
            let place = Place::Span { start: span.start, end: span.end, by };
            return located(place, whole.flatten());
        }
    }
    let last = readers.walked(opts);
    let walk_end = last.map(|(_, end, _)| end);
    // Where the walk read the whole reply by the wide reading, the narrow reading of it is
    // the same value (the rules differ only at a value string's `"` followed by `:`, which no
    // reading that reads meets): taken or refused, the answer is that value, and the gates
    // need not read its strings.
    if matches!(make, Make::Nothing)
        && matches!(whole, Some(None))
        && last == Some((span.start, span.end, ReadingKind::Wide))
    {
        return at(Place::Span { start: span.start, end: span.end, by: ReadingKind::Wide });
    }
    // Every refusal leaves the walk's answer.
    let policy = &opts.whole_reply;
    if policy.enabled
        && let Some(w) = whole
        && !(policy.walk_closed_gate && walk_end == Some(span.end))
    {
        if !policy.self_contained_gate {
            return located(narrow, w);
        }
        // The gate reads the reading's strings: it is built now, if it was not, and where
        // another walk of these readers built it, what the gate said is known.
        match (w, readers.whole_narrow.self_contained) {
            (None, Some(true)) => return at(narrow),
            (None, Some(false)) => {}
            // Printing it read the strings.
            (Some(Made::Printed(p)), _) => {
                readers.whole_narrow.self_contained = Some(p.self_contained);
                if p.self_contained {
                    return Located { place: narrow, value: None, printed: true };
                }
            }
            // Only where it reads asked, and nothing made: the gate needs its strings alone,
            // which printing it aside reads without allocating a string and a container
            // each; built where printing cannot say.
            (None, None)
                if matches!(make, Make::Nothing)
                    && let Some(p) = {
                        readers.scratch.clear();
                        js::print_repaired_at(text, span.start, ColonRule::Narrow, None, &mut readers.scratch)
                    } =>
            {
                readers.whole_narrow.self_contained = Some(p.self_contained);
                if p.self_contained {
                    return at(narrow);
                }
            }
            (w, _) => {
                let made = match w {
                    Some(Made::Built(r)) => Some(r.value),
                    _ => None,
                };
                let value =
                    made.or_else(|| js::parse_repaired_at(text, span.start, ColonRule::Narrow).ok().map(|(v, _)| v));
                let contained = value.as_ref().is_some_and(strings_are_self_contained);
                readers.whole_narrow.self_contained = Some(contained);
                if let (Some(value), true) = (value, contained) {
                    return built(narrow, value);
                }
            }
        }
    }
    match last {
        Some((start, end, by)) => at(Place::Span { start, end, by }),
        None => at(Place::Nothing),
    }
}

/// `JSON.parse(text.trim())`: the value and the trimmed span, or how it failed.
///
/// Without a trace to show, the text is validated before a value is built, so a reply that
/// is not JSON costs no allocation (and a leading object's outcome is remembered for the
/// walk's first candidate). Without `build`, a container validated so is not built (`None`).
fn read_whole_text(
    text: &str,
    readers: &mut Readers,
    record: bool,
    build: bool,
) -> Result<(Span, Option<Value>), WholeText> {
    let (trim_start, trim_end) = lex::trim_range(text);
    let whole = &text[trim_start..trim_end];
    let span = Span::new(trim_start, trim_end);
    let parse = || js::parse(whole).map(Some).map_err(|e| ParseError { offset: e.offset + trim_start, ..e });
    let parsed = if record || !matches!(whole.as_bytes().first(), Some(b'{' | b'[')) {
        parse()
    } else {
        match readers.strict().value_at(trim_start) {
            Ok(end) if end == trim_end => {
                if build {
                    parse()
                } else {
                    Ok(None)
                }
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
    reads: Reads,
    candidates: Vec<Candidate>,
    last: Option<(usize, usize, ReadingKind)>,
    kept: Option<usize>,
    unrecorded: Option<Unrecorded>,
}

/// The walk with nothing recorded: where the candidate read last starts and ends, and by
/// which reading. It is most of what reading a brace-laden reply costs, so nothing bigger
/// than that crosses its loop.
///
/// With `passed`, what the walk visits is kept there, from which [`How::Visiting`]'s walk's
/// list is made (under the seed's options: it reads each candidate by
/// [`Readings::StrictThenWide`] and descends).
fn walk_unrecorded(
    text: &str,
    readers: &mut Readers,
    opts: &WalkOptions,
    reads: &mut Reads,
    mut passed: Option<&mut Vec<Passed>>,
) -> Last {
    let mut last = None;
    let mut next = find_brace(text, 0);
    while let Some(start) = next {
        next = match readers.read(start, opts.readings) {
            // Past the object: everything inside it belongs to it.
            Some((end, by)) => {
                reads.count(by);
                last = Some((start, end, by));
                if let Some(passed) = passed.as_deref_mut() {
                    let strict_ok = by == ReadingKind::Strict;
                    passed.push(Passed::Read(Visit { start, strict_ok, repaired_ok: true, read_end: Some(end) }));
                }
                if opts.keep == Keep::First {
                    break;
                }
                find_brace(text, end)
            }
            // Inside it: its closing brace may belong to something else. A brace there that
            // opens no object would be passed over the same way, so it is not visited.
            None => {
                let next = match opts.on_failure {
                    OnFailure::Descend => {
                        let from = readers
                            .strict
                            .as_mut()
                            .map_or(start + 1, |v| v.past_known_failures(start + 1, opts.readings.carried()));
                        next_candidate(text, from, &readers.failing_keys)
                    }
                    OnFailure::Resume => find_brace(text, readers.resume_point(start).unwrap_or(start + 1)),
                };
                if let Some(passed) = passed.as_deref_mut() {
                    passed.push(Passed::Failed(start..next.unwrap_or(text.len())));
                }
                next
            }
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
    /// Narrow span ends, for the recorded walk's narrow readings.
    narrow_ends: Option<SpanEnds<'a>>,
    /// Quotes at which the walk's one repaired reading (where it has one) is known to fail
    /// at a key ([`Validator::failing_keys`], as of its last reading: what it was known to
    /// fail at stays known).
    failing_keys: Range<usize>,
    /// For readers shared by several walks ([`Walker`]): each reading's outcome at each
    /// candidate the validators read. The validators keep failures; a walk under other
    /// options asks the same successes again (the seed's strict readings, above all).
    shared: Option<Shared>,
    /// What the walks of these readers learned of the whole-reply reading (the narrow
    /// reading of a reply that is one object), the same for every walk of the reply.
    whole_narrow: WholeNarrow,
    /// Where a walk prints a reading aside to read its strings, kept for the next walk.
    scratch: String,
    /// For readers shared by several walks: where each candidate walk made ended, by what
    /// decides it ([`Readers::walked`]).
    walks: Vec<(WalkKey, Last)>,
    /// How many candidate walks [`Readers::walked`] walked: what a test counts.
    #[cfg(test)]
    walked_count: usize,
}

/// What decides a candidate walk: its readings, which candidate it keeps, and what it does
/// after one it cannot read. The whole-reply policy only decides over the walk's end.
type WalkKey = (Readings, Keep, OnFailure);

/// What the seed's walk passed, in order: a candidate it read, or the braces from one it could
/// not read to the next candidate it tried. The walk passes over those after the first
/// (`past_known_failures`, `next_candidate`) because each fails under every reading: a walk
/// that visits every brace visits each and descends into it.
pub(super) enum Passed {
    Read(Visit),
    Failed(Range<usize>),
}

/// Where the candidate a walk read last starts and ends, and by which reading.
type Last = Option<(usize, usize, ReadingKind)>;

/// What the walks of one reply learned of the reading `kind` of the object at `start`.
#[inline(always)]
fn learned(shared: Option<&Shared>, start: usize, kind: ReadingKind) -> Option<Carrying> {
    shared?.get(&(start, kind)).copied()
}

/// The room a [`Walker`]'s shared map starts with: an entry for every this many bytes of the
/// reply, and at most this many entries (more grow as a map grows).
const LEARNED_EVERY: usize = 256;
const LEARNED_ROOM: usize = 1 << 14;

/// Each reading's outcome by candidate, shared by the walks of one reply. Its keys are
/// positions in the reply and readings, hashed as integers are, seeded at random per map: a
/// reply cannot choose colliding keys without knowing the seed.
type Shared = HashMap<(usize, ReadingKind), Carrying, foldhash::fast::RandomState>;

/// The narrow reading of the whole reply, as far as a walk found it: whether it reads to the
/// reply's last character, and whether its strings are self-contained (known once built).
#[derive(Default)]
pub(super) struct WholeNarrow {
    pub(super) reads: Option<bool>,
    pub(super) self_contained: Option<bool>,
}

impl<'a> Readers<'a> {
    fn new(text: &'a str) -> Self {
        Readers {
            text,
            strict: None,
            wide: None,
            narrow: None,
            strict_ends: None,
            wide_ends: None,
            narrow_ends: None,
            failing_keys: 0..0,
            shared: None,
            whole_narrow: WholeNarrow::default(),
            scratch: String::new(),
            walks: Vec::new(),
            #[cfg(test)]
            walked_count: 0,
        }
    }

    /// [`walk_unrecorded`] under `opts`, or where one these readers made under options that
    /// differ only in the whole-reply policy ended: it walked the same candidates (the
    /// what-ifs that change a gate, or take the whole-reply attempt away, walk as the seed
    /// does). Only readers shared by several walks remember one.
    fn walked(&mut self, opts: &WalkOptions) -> Last {
        // Named field by field: an option added to the walk is a compile error here until it
        // is weighed.
        let WalkOptions { readings, keep, on_failure, whole_reply: _ } = *opts;
        let key = (readings, keep, on_failure);
        if let Some(&(_, last)) = self.walks.iter().find(|(k, _)| *k == key) {
            return last;
        }
        if let Some(last) = self.walked_narrowly(key) {
            return last;
        }
        #[cfg(test)]
        {
            self.walked_count += 1;
        }
        let last = walk_unrecorded(self.text, self, opts, &mut Reads::default(), None);
        if self.shared.is_some() {
            self.walks.push((key, last));
        }
        last
    }

    /// Where a walk under `key` ends, told by one these readers made with the other narrow
    /// readings (`None`: none was made, or `key`'s readings are not narrow).
    ///
    /// The narrow rule in every candidate and the narrow rule as a fallback read each
    /// candidate alike: where the wide reading reads, the narrow one reads the same object
    /// to the same end (the rules differ only at a value string's `"` followed by `:`, after
    /// which the wide reading fails), so strict-wide-narrow reads what strict-narrow reads,
    /// and the two walks visit the same candidates and end on the same one. Only the reading
    /// named for it may differ: the fallback names the wide reading where that reads.
    fn walked_narrowly(&mut self, (readings, keep, on_failure): WalkKey) -> Option<Last> {
        let other = match readings {
            Readings::StrictThenNarrow => Readings::StrictThenWideThenNarrow,
            Readings::StrictThenWideThenNarrow => Readings::StrictThenNarrow,
            _ => return None,
        };
        let &(_, last) = self.walks.iter().find(|(k, _)| *k == (other, keep, on_failure))?;
        let named = match last {
            Some((start, end, ReadingKind::Narrow)) if readings == Readings::StrictThenWideThenNarrow => {
                let by = match self.read(start, Readings::StrictThenWide) {
                    Some((e, ReadingKind::Wide)) if e == end => ReadingKind::Wide,
                    _ => ReadingKind::Narrow,
                };
                Some((start, end, by))
            }
            Some((start, end, ReadingKind::Wide)) => Some((start, end, ReadingKind::Narrow)),
            last => last,
        };
        self.walks.push(((readings, keep, on_failure), named));
        Some(named)
    }

    /// The reply's first candidate where the reply is one object (`span`, trimmed) that does
    /// not read strictly: its narrow reading, built where it reads to the reply's last
    /// character, with the reading by which the walk under `readings` reads that candidate
    /// (`None`: the walk does not read it, and walks its candidates).
    ///
    /// The walk reads that object first, strictly, then by its repaired readings in turn; the
    /// narrow one reads as built, and the wide one where it makes the same decisions (the
    /// rules differ only at a value string's `"` followed by `:`, after which the wide reading
    /// fails). Read there, the walk ends on the reply's last character and finds no brace
    /// after it. Built here, the reading is validated by being built, as `extract` prints it
    /// ([`print_answer`]), where the walk would validate it and a caller of the answer then
    /// build it: on replies that are one envelope the repair reads (unescaped quotes in page
    /// content) that second pass was a fifth of a scan's work. The whole-reply attempt, which
    /// is this reading, takes it from the walk ([`whole_reply_unrecorded`]).
    fn whole_first(&mut self, span: Span, readings: Readings) -> Option<(Value, Option<ReadingKind>)> {
        // A walk with no repaired reading, or a reply that is not one object, builds nothing.
        if readings.order().len() < 2 || !is_one_object(self.text, span) {
            return None;
        }
        let carries = match self.strictly(span.start) {
            Ok(_) => return None,
            Err((_, carries)) => carries,
        };
        if carries.to(Mode::Narrow) {
            return None;
        }
        // The objects inside it that the repair left as they are, where other walks may ask
        // them strictly (strict-only descends into it, and reads each of its entries).
        let read = match self.shared {
            Some(_) => js::parse_narrow_noting(self.text, span.start),
            None => js::parse_narrow_at(self.text, span.start).map(|r| (r, Vec::new())),
        };
        let (reading, clean) = match read {
            Ok((r, clean)) if r.end == span.end => (r, clean),
            _ => {
                self.whole_narrow.reads = Some(false);
                return None;
            }
        };
        self.whole_narrow.reads = Some(true);
        let wide_reads = reading.wide_is_the_same && !carries.to(Mode::Wide);
        if let Some(m) = self.shared.as_mut() {
            m.insert((span.start, ReadingKind::Narrow), Ok(span.end));
            if wide_reads {
                m.insert((span.start, ReadingKind::Wide), Ok(span.end));
            }
            m.reserve(clean.len());
            for (start, end) in clean {
                m.entry((start, ReadingKind::Strict)).or_insert(Ok(end));
            }
        }
        let by = readings.order()[1..].iter().copied().find(|&kind| match kind {
            ReadingKind::Strict => false,
            ReadingKind::Wide => wide_reads,
            ReadingKind::Narrow => true,
        });
        Some((reading.value, by))
    }

    /// The strict reading of the object at `start`, as the walks of these readers learned it
    /// (and learn it now where none did). Inlined: [`Readers::read_object`] asks it of every
    /// candidate the flat reading does not decide.
    #[inline(always)]
    fn strictly(&mut self, start: usize) -> Carrying {
        let text = self.text;
        let strict = self.strict.get_or_insert_with(|| Validator::new(text, Mode::Strict));
        match learned(self.shared.as_ref(), start, ReadingKind::Strict) {
            Some(known) => known,
            None => {
                let read = strict.object_at_carrying(start);
                if let Some(m) = self.shared.as_mut() {
                    m.insert((start, ReadingKind::Strict), read);
                }
                read
            }
        }
    }

    /// Where the object at `start` reads strictly to, where the walks of these readers
    /// learned that it does.
    fn known_strictly(&self, start: usize) -> Option<usize> {
        learned(self.shared.as_ref(), start, ReadingKind::Strict)?.ok()
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
        let carries = match self.strictly(start) {
            Ok(end) => return Some((end, ReadingKind::Strict)),
            Err((_, carries)) => carries,
        };
        // This candidate's wide reading, where this walk made it.
        let mut wide = None;
        for &kind in &readings.order()[1..] {
            let mode = match kind {
                ReadingKind::Strict => continue,
                ReadingKind::Wide => Mode::Wide,
                ReadingKind::Narrow => Mode::Narrow,
            };
            // A strict failure that carries to this reading is its failure too.
            if carries.to(mode) {
                continue;
            }
            let known = learned(self.shared.as_ref(), start, kind).map(|k| k.map_err(|(at, _)| at));
            let known = match kind {
                ReadingKind::Narrow => known.or_else(|| self.narrow_by_wide(start, wide)),
                _ => known,
            };
            let read = match known {
                Some(known) => known,
                None => {
                    let shared = self.shared.is_some();
                    let (validator, read) = match mode {
                        Mode::Narrow => {
                            let validator = self.narrow.get_or_insert_with(|| Validator::new(text, mode));
                            // Where the wide reading stopped at a value's quote that `:` follows,
                            // the narrow one reads the same up to there.
                            let read = match self.wide.as_ref().and_then(|w| w.colon_stop(start)) {
                                Some(stop) => validator.object_at_resuming(start, stop, self.strict.as_ref()),
                                None => validator.object_at_knowing(start, self.strict.as_ref()),
                            };
                            (validator, read)
                        }
                        _ => {
                            let validator = self.wide.get_or_insert_with(|| {
                                let mut wide = Validator::new(text, mode);
                                // Several walks: some make the narrow readings too.
                                if shared {
                                    wide.keep_colon_stops();
                                }
                                wide
                            });
                            let read = validator.object_at_knowing(start, self.strict.as_ref());
                            (validator, read)
                        }
                    };
                    if one_repaired {
                        self.failing_keys = validator.failing_keys();
                    }
                    if let Some(m) = self.shared.as_mut() {
                        m.insert((start, kind), read.map_err(|at| (at, Carries::Neither)));
                    }
                    read
                }
            };
            if let Ok(end) = read {
                return Some((end, kind));
            }
            if kind == ReadingKind::Wide {
                wide = Some(read);
            }
        }
        None
    }

    /// The narrow reading of the object at `start`, where its wide reading decides it
    /// ([`memo::narrow_as_wide`]): as `wide` says, made by this walk, or as the walks of these
    /// readers learned it.
    fn narrow_by_wide(&self, start: usize, wide: Option<Outcome>) -> Option<Outcome> {
        let wide = match wide {
            Some(wide) => wide,
            None => learned(self.shared.as_ref(), start, ReadingKind::Wide)?.map_err(|(at, _)| at),
        };
        memo::narrow_as_wide(self.text, wide)
    }

    /// Where a candidate that could not be read ends, for [`OnFailure::Resume`]: its strict
    /// span, or its wide one.
    ///
    /// The span scans step over the objects the walks read (most of a span that never
    /// balances, an envelope cut off after its last whole entry, is its entries).
    fn resume_point(&mut self, start: usize) -> Option<usize> {
        let text = self.text;
        let shared = self.shared.as_ref();
        let read = |p: usize, kind: ReadingKind| learned(shared, p, kind)?.ok();
        let strict = self
            .strict_ends
            .get_or_insert_with(|| SpanEnds::new(text, SpanRule::Strict))
            .end_knowing(start, &|p| read(p, ReadingKind::Strict));
        strict.or_else(|| {
            self.wide_ends
                .get_or_insert_with(|| SpanEnds::new(text, SpanRule::Wide))
                .end_knowing(start, &|p| read(p, ReadingKind::Strict).or_else(|| read(p, ReadingKind::Wide)))
        })
    }

    fn work(&self) -> Work {
        let mut w = Work::default();
        for v in [&self.strict, &self.wide, &self.narrow].into_iter().flatten() {
            w.bytes += v.work.bytes;
            w.hits += v.work.hits;
        }
        for e in [&self.strict_ends, &self.wide_ends, &self.narrow_ends].into_iter().flatten() {
            w.bytes += e.work.bytes;
        }
        w
    }
}

/// The value of a reading known to parse.
/// The value of the object at `start..end` by the reading `by`, known to read there.
pub fn value_at(text: &str, start: usize, end: usize, by: ReadingKind) -> Option<Value> {
    build_value(text, start, end, by)
}

/// Whether the reply (`span`, trimmed) opens with `{` and closes with `}`: one object from
/// first to last character, as far as its ends say.
fn is_one_object(text: &str, span: Span) -> bool {
    let bytes = text.as_bytes();
    bytes.get(span.start) == Some(&b'{') && span.end.checked_sub(1).and_then(|i| bytes.get(i)) == Some(&b'}')
}

/// The narrow reading of the whole reply (`span`, trimmed), built where it reads to its end.
fn build_whole(text: &str, span: Span) -> Option<Made> {
    js::parse_narrow_at(text, span.start).ok().filter(|r| r.end == span.end).map(Made::Built)
}

fn build_value(text: &str, start: usize, end: usize, by: ReadingKind) -> Option<Value> {
    match by {
        ReadingKind::Strict => js::parse(text.get(start..end)?).ok(),
        ReadingKind::Wide => js::parse_repaired_at(text, start, ColonRule::Wide).ok().map(|(v, _)| v),
        ReadingKind::Narrow => js::parse_repaired_at(text, start, ColonRule::Narrow).ok().map(|(v, _)| v),
    }
}

/// `readObjectAt(text, start)`: the value and end of the first reading that parses.
pub fn read_object_at(text: &str, start: usize) -> Option<(Value, usize)> {
    let (end, by) = Readers::new(text).read(start, Readings::StrictThenWide)?;
    Some((build_value(text, start, end, by)?, end))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::trace::Step;

    fn extract(t: &str) -> String {
        extract_json(t).map_or("null".into(), |v| v.to_json())
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

    /// Without the walk-closed gate, the self-contained gate decides; a walk that only
    /// locates its answer reads the reading's strings for it without building its value, and
    /// where the walk read the whole reply by the wide reading it needs not even that: the
    /// place it gives holds the answer the walk builds.
    #[test]
    fn a_located_whole_reply_is_not_built_for_its_gate() {
        let no_walk_closed = WalkOptions {
            whole_reply: WholeReplyPolicy { walk_closed_gate: false, ..WalkOptions::SEED.whole_reply },
            ..WalkOptions::SEED
        };
        for (t, contained) in [
            // Wide reads the whole reply: its narrow reading is the same value.
            (r#"{"html": "<p class="x">hi</p>", "log": "ok"}"#, true),
            (r#"{"html": "<p class="x">a { b</p>", "log": "ok"}"#, false),
            // The walk's last candidate is inside: the gate is read by printing aside.
            ("{\"html\": \"<p>draft\n{\"html\": \"<table></table>\", \"log\": \"ok\"}", false),
            (r#"{"faithful": false, "notes": "read as { "faithful": true }; not so."}"#, true),
        ] {
            let mut walker = Walker::new(t);
            walker.decide(&WalkOptions::SEED);
            let located = walker.locate(&no_walk_closed);
            assert!(located.value.is_none(), "{t}");
            let Place::Span { start, end, by } = located.place else { panic!("{t}: {:?}", located.place) };
            let expected = run(t, &no_walk_closed, false).value;
            assert_eq!(value_at(t, start, end, by), expected, "{t}");
            let whole = run(t, &no_walk_closed, true);
            assert_eq!(whole.whole_reply.name() == "taken", contained, "{t}");
        }
    }

    /// A reply that is one envelope the repair reads (its strict reading fails at its first
    /// unescaped quote) is read by building its narrow reading: no repaired reading validates
    /// it first, and the value the decision needs is built then, once. Where only the narrow
    /// reading reads it (a value string's `"` followed by `:`), the walk still walks it, and
    /// the whole-reply attempt takes the value built.
    #[test]
    fn a_reply_that_is_one_repaired_envelope_is_built_once_not_validated_first() {
        let page = "<td>a</td>".repeat(400);
        let wide = format!(r#"{{"html": "<p class="lead">{page}</p>", "log": "ok"}}"#);
        let narrow = format!(r#"{{"html": "<p>Note": {page}</p>", "log": "ok"}}"#);
        for (t, by, decided) in
            [(&wide, ReadingKind::Wide, DecidedBy::LastWins), (&narrow, ReadingKind::Narrow, DecidedBy::WholeReply)]
        {
            let mut walker = Walker::new(t);
            let decided_now = walker.decide(&WalkOptions::SEED);
            assert_eq!(decided_now.decided_by, decided, "{}", &t[..40]);
            assert_eq!(decided_now.place, Place::Span { start: 0, end: t.len(), by }, "{}", &t[..40]);
            assert_eq!(
                decided_now.value.as_ref().map(Value::to_json),
                run(t, &WalkOptions::SEED, true).value.map(|v| v.to_json())
            );
            // The strict reading stops at the first unescaped quote; a repaired reading
            // validated first would have read the page's four kilobytes.
            assert!(decided_now.work.bytes < 200, "{}: {:?}", &t[..40], decided_now.work);
        }
    }

    #[test]
    fn entries_the_narrow_reading_left_alone_are_not_validated_again_strictly() {
        let entries: Vec<String> =
            (0..200).map(|k| format!(r#"{{"find": "entry {k}", "replace": "line {k} of the page"}}"#)).collect();
        let t = format!(
            r#"{{"edits": [{{"find": "the "all" label", "replace": "x"}}, {}], "summary": "ok"}}"#,
            entries.join(", ")
        );
        // The walk's answer alone, not the whole-reply attempt's (which reads the reply).
        let whole_reply = WholeReplyPolicy { enabled: false, ..WalkOptions::SEED.whole_reply };
        let strict_only = WalkOptions { readings: Readings::StrictOnly, whole_reply, ..WalkOptions::SEED };
        let mut walker = Walker::new(&t);
        let seed = walker.decide(&WalkOptions::SEED);
        assert_eq!(seed.place, Place::Span { start: 0, end: t.len(), by: ReadingKind::Wide });
        let after_seed = seed.work.bytes;
        let strict = walker.run(&strict_only);
        let alone = run(&t, &strict_only, false);
        assert_eq!(strict.place, alone.place);
        assert_eq!(strict.value.map(|v| v.to_json()), alone.value.map(|v| v.to_json()));
        // The last entry, read without the validators: each of the 200 validated again would
        // cost the strict validator its bytes.
        let last = t.rfind(r#"{"find""#).unwrap_or_default();
        assert!(
            matches!(strict.place, Place::Span { start, by: ReadingKind::Strict, .. } if start == last),
            "{:?} {last}",
            strict.place
        );
        assert!(strict.work.bytes - after_seed < 200, "{:?} after {after_seed}", strict.work);
        assert!(alone.work.bytes > t.len() as u64 / 2, "{:?}", alone.work);
        // The entries counted through what the walks learned are those counted afresh.
        assert_eq!(walker.count_array_prefix("edits"), Some((201, true)));
        assert_eq!(prefix::count_array_prefix(&t, "edits"), Some((201, true)));
        let cut = &t[..t.rfind(r#", {"find""#).unwrap_or_default() + 20];
        let mut walker = Walker::new(cut);
        walker.decide(&WalkOptions::SEED);
        walker.run(&strict_only);
        assert_eq!(walker.count_array_prefix("edits"), prefix::count_array_prefix(cut, "edits"));
        assert_eq!(walker.count_array_prefix("edits"), Some((200, false)));
    }

    #[test]
    fn variants_change_only_what_they_name() {
        let t = r#"{ "html": "...", "log": "..." } then {"html": "<p>real</p>"}"#;
        let first = WalkOptions { keep: Keep::First, ..WalkOptions::SEED };
        assert_eq!(run(t, &first, false).value.unwrap().to_json(), r#"{"html":"...","log":"..."}"#);
        assert_eq!(run(t, &WalkOptions::SEED, false).value.unwrap().to_json(), r#"{"html":"<p>real</p>"}"#);
    }

    /// The narrow rule everywhere and as a fallback walk alike: whichever is located second
    /// is told by the first's walk, each at the place its own walk finds (the fallback names
    /// the wide reading where that reads the candidate).
    #[test]
    fn one_narrow_walk_tells_the_other() {
        let everywhere = WalkOptions { readings: Readings::StrictThenNarrow, ..WalkOptions::SEED };
        let fallback = WalkOptions { readings: Readings::StrictThenWideThenNarrow, ..WalkOptions::SEED };
        let resume = |o: WalkOptions| WalkOptions { on_failure: OnFailure::Resume, ..o };
        for t in [
            // The wide reading reads the last candidate.
            r#"Draft: {"html": "<p class="x">a</p>"} then {"html": "<p class="y">b</p>", "log": "ok"}"#,
            // Only the narrow one does.
            r#"{"faithful": false, "notes": "I read it as { "faithful": true }; it is not."} and more"#,
            // Strictly.
            r#"prose {"a": 1} and {"b": [1, 2]} end"#,
            // Nothing reads.
            r#"{"a": "never closed"#,
            "no braces at all",
        ] {
            for (first, second) in
                [(everywhere, fallback), (fallback, everywhere), (resume(everywhere), resume(fallback))]
            {
                let mut walker = Walker::new(t);
                walker.decide(&WalkOptions::SEED);
                let a = walker.locate(&first);
                let walked = walker.readers.walked_count;
                let b = walker.locate(&second);
                assert_eq!(a.place, locate(t, &first).place, "{t}");
                assert_eq!(b.place, locate(t, &second).place, "{t}");
                assert!(walker.readers.walked_count <= walked, "{t}: the second narrow walk was walked");
            }
        }
    }
}
