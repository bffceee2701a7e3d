//! Each reader's answer for one reply, read once, when first asked for; and the answers of
//! readers that run outside (commands), given per reply by whoever ran them.
//!
//! Where a built-in reader's answer is in the reply is found first, and its value built only
//! when asked for: two answers at the same place are the same ([`Answers::known_same`]), which
//! on most replies is most comparisons.
//!
//! A command's answer arrives as JSON text, so it is compared with a built-in reader's as JSON
//! text carries that one: [`json_view`], `JSON.stringify`'s view (a non-finite number is
//! `null`, so nothing read; a lone surrogate survives as its escape). The seed run as a command
//! then agrees with the built-in seed on every reply.

use std::ops::Range;

use crate::exact::fence::FenceTries;
use crate::exact::first::first_found;
use crate::exact::trace::{DecidedBy, Place, ReadingKind, Reads, Trace, Verdict};
use crate::exact::value::Value;
use crate::exact::walk::{self, Keep, Readings, WalkOptions, Walker};
use crate::exact::{js, lex};

use super::catalogue::{Catalogue, Run};
use super::given::{Given, changes_in_json, held, json_view};
use super::id::ReaderId;

/// The reply's range once trimmed of JavaScript's whitespace.
fn trimmed(text: &str) -> Range<usize> {
    let (start, end) = lex::trim_range(text);
    start..end
}

/// Why a command reader that was given no answer has none.
const NOT_GIVEN: &str = "no answer was given";

/// The answers of one reply. An answer may be as large as the reply, so a caller that is done
/// with one lets it go ([`Answers::keep_only`]).
pub struct Answers<'a> {
    catalogue: &'a Catalogue,
    text: &'a str,
    /// Every walk of the reply is walked here, so that what one learned of the text the
    /// next need not learn again.
    walker: Walker<'a>,
    /// The trimmed reply parsed whole. Every walk, whatever its options, tries that before
    /// anything else, so every walk's answer is then the seed's, and is not read again: on
    /// a corpus of well-behaved replies that is most of the work.
    whole_text: bool,
    /// The seed's whole-reply verdict, and what its walk read: what tells, for most
    /// what-ifs on most replies, that they would read as the seed ([`Answers::is_seed`]).
    verdict: Verdict,
    reads: Reads,
    known: Vec<Known>,
    /// The command readers' answers for this reply.
    given: &'a [(ReaderId, Given)],
}

/// One built-in reader's answer: where it is (for the readers that can say), its value once
/// built (`Some(None)` for nothing read), and its JSON view once asked for (where that is
/// not the value itself).
struct Known {
    id: ReaderId,
    place: Option<Place>,
    value: Option<Option<Value>>,
    json: Option<Option<Value>>,
}

impl Known {
    fn answer(&self) -> Option<&Value> {
        self.value.as_ref().and_then(Option::as_ref)
    }
}

impl<'a> Answers<'a> {
    /// The answers of `text`; the seed's is walked now, and returned for the decision the
    /// caller also records. Its value is not in the trace: it is built when first asked for
    /// (many replies need it for nothing), and kept in the answers.
    pub fn with_seed(catalogue: &'a Catalogue, text: &'a str) -> (Answers<'a>, Trace) {
        let mut walker = Walker::new(text);
        let mut seed = walker.decide_seed();
        // Built already where finding the place built it, and nothing where nothing reads.
        let value = match seed.value.take() {
            Some(v) => Some(held(Some(v))),
            None => (seed.place == Place::Nothing).then_some(None),
        };
        let known = Known { id: ReaderId::LAST_WINS, place: Some(seed.place), value, json: None };
        let answers = Answers {
            catalogue,
            text,
            walker,
            whole_text: seed.decided_by == DecidedBy::WholeText,
            verdict: seed.whole_reply.verdict(),
            reads: seed.reads,
            known: vec![known],
            given: &[],
        };
        (answers, seed)
    }

    /// Every candidate the seed's walk visits ([`walk::visits`]): as its walk kept them, or
    /// walked again (with what the answers' walks learned of the text) where it walked none;
    /// [`Answers::keep_spans`] keeps the spans found of them for the walks to come.
    pub fn visits(&mut self) -> walk::Visited<'a> {
        self.walker.seed_visits()
    }

    /// [`walk::Walker::keep_spans`].
    pub fn keep_spans(&mut self, visited: walk::Visited<'a>) {
        self.walker.keep_spans(visited);
    }

    /// [`walk::count_array_prefix`] of the reply, read with what the answers' walks learned
    /// of the text.
    pub fn count_array_prefix(&mut self, field: &str) -> Option<(usize, bool)> {
        self.walker.count_array_prefix(field)
    }

    /// These answers with the command readers' answers for the reply.
    pub fn given(self, given: &'a [(ReaderId, Given)]) -> Answers<'a> {
        Answers { given, ..self }
    }

    /// Takes `id`'s answer (built-in), read now if it was not yet, out of the answers.
    pub fn take(&mut self, id: ReaderId) -> Option<Value> {
        let at = self.built(id);
        self.known[at].value.take().flatten()
    }

    /// How many answers have had their value built: what a test counts.
    #[cfg(test)]
    pub(crate) fn values_built(&self) -> usize {
        self.known.iter().filter(|k| k.value.as_ref().is_some_and(Option::is_some)).count()
    }

    #[cfg(test)]
    pub(crate) fn built_ids(&self) -> Vec<(ReaderId, Option<Place>)> {
        self.known.iter().filter(|k| k.value.as_ref().is_some_and(Option::is_some)).map(|k| (k.id, k.place)).collect()
    }

    /// Whether built-in `id`'s answer has been read, its value built (or nothing read).
    pub fn built_already(&self, id: ReaderId) -> bool {
        let id = self.slot(id);
        self.known.iter().any(|k| k.id == id && k.value.is_some())
    }

    /// Whether `id`'s answer is the seed's without reading it.
    pub fn is_seed(&self, id: ReaderId) -> bool {
        if id == ReaderId::LAST_WINS {
            return true;
        }
        match self.catalogue.get(id).map(|d| &d.run) {
            Some(Run::Walk(opts)) => self.whole_text || walks_as_the_seed(opts, self.verdict, self.reads),
            _ => false,
        }
    }

    fn slot(&self, id: ReaderId) -> ReaderId {
        if self.is_seed(id) { ReaderId::LAST_WINS } else { id }
    }

    /// Why the command reader `id` has no answer for this reply (`None`: it has one, or `id`
    /// is built in). Nothing read, a throw and text that is not JSON are answers: nothing,
    /// as their caller holds.
    pub fn failure(&self, id: ReaderId) -> Option<&str> {
        if !self.catalogue.is_command(id) {
            return None;
        }
        match self.given_by(id) {
            Some(g) => g.failure(),
            None => Some(NOT_GIVEN),
        }
    }

    /// What the command reader `id` gave for this reply, if it was given.
    pub fn given_by(&self, id: ReaderId) -> Option<&Given> {
        self.given.iter().find(|(r, _)| *r == id).map(|(_, g)| g)
    }

    fn given_value(&self, id: ReaderId) -> Option<&Value> {
        self.given_by(id).and_then(Given::value)
    }

    /// Where built-in `id`'s entry is, found now (where its answer is, but not its value)
    /// if need be.
    fn find(&mut self, id: ReaderId) -> usize {
        let id = self.slot(id);
        if let Some(at) = self.known.iter().position(|k| k.id == id) {
            return at;
        }
        let text = self.text;
        let known = match self.catalogue.get(id).map(|d| &d.run) {
            Some(Run::Walk(opts)) => {
                let located = self.walker.locate(opts);
                let place = located.place;
                // The value where finding the place built it; else when asked for.
                let value = located.built().map(|v| held(Some(v)));
                Known { id, place: Some(place), value, json: None }
            }
            Some(Run::FirstWins) => {
                // Each brace read by the strict validator the walks share (the seed's walk has
                // read most of them).
                let place = match first_found(text, |start| self.walker.strict_end(start)) {
                    Some(s) => Place::Span { start: s.start, end: s.end, by: ReadingKind::Strict },
                    None => self.raw_place(),
                };
                Known { id, place: Some(place), value: None, json: None }
            }
            Some(Run::FenceFirst) => self.fence_first(id),
            _ => Known { id, place: None, value: Some(self.catalogue.read(id, text)), json: None },
        };
        self.known.push(known);
        self.known.len() - 1
    }

    /// Where `JSON.parse(text)` (the raw reply, untrimmed) reads, told by what the seed's
    /// whole-text reading found: it reads only where the trimmed reply parses (the seed
    /// decided by the whole text), and then as it, unless what the trim took is not JSON's
    /// whitespace (U+FEFF, U+2028, …), which `JSON.parse` refuses.
    fn raw_place(&self) -> Place {
        let (start, end) = lex::trim_range(self.text);
        let bytes = self.text.as_bytes();
        let json_whitespace = |b: &[u8]| b.iter().all(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'));
        if self.whole_text && json_whitespace(&bytes[..start]) && json_whitespace(&bytes[end..]) {
            Place::WholeText
        } else {
            Place::Nothing
        }
    }

    /// Fence-first's entry ([`FenceTries`]), its value built only where the range it parses
    /// is not a container the strict validator can read: the whole text, trimmed, is the
    /// seed's whole-text reading, and a container that parses is a strict span like the
    /// walks'.
    fn fence_first(&mut self, id: ReaderId) -> Known {
        let text = self.text;
        let tries = FenceTries::of(text);
        // Nothing read is known already; a place's value is built when asked for.
        let place =
            |place| Known { id, place: Some(place), value: (place == Place::Nothing).then_some(None), json: None };
        let (start, end) = lex::trim_range(text);
        let first = if tries.trimmed == (start..end) {
            // The seed's own first reading: it read, or it failed.
            self.whole_text.then_some(Place::WholeText)
        } else if matches!(text.as_bytes().get(tries.trimmed.start), Some(b'{' | b'[')) {
            let Range { start, end } = tries.trimmed;
            self.walker.strictly_parses(start, end).then_some(Place::Span { start, end, by: ReadingKind::Strict })
        } else {
            match text.get(tries.trimmed.clone()).map(js::parse) {
                Some(Ok(v)) => return Known { id, place: None, value: Some(held(Some(v))), json: None },
                _ => None,
            }
        };
        if let Some(first) = first {
            return place(first);
        }
        // The first balanced span parses where the strict reading of the object at its `{`
        // reads, and is then that object: where the text is JSON the span's brace match and
        // the parser agree on every string and brace (`exact::memo`). Where the object does not
        // read, no span that opens there parses. So the span need not be found, and its
        // object is what the walks' strict validator read (the seed's first candidate).
        match tries.first_brace(text).map(|start| (start, self.walker.strict_end(start))) {
            Some((start, Some(end))) if end <= tries.end() => {
                place(Place::Span { start, end, by: ReadingKind::Strict })
            }
            _ => place(Place::Nothing),
        }
    }

    /// Built-in `id`'s entry, its value built.
    fn built(&mut self, id: ReaderId) -> usize {
        let at = self.find(id);
        let text = self.text;
        let k = &mut self.known[at];
        if k.value.is_none() {
            k.value = Some(held(match k.place {
                Some(Place::Raw) => js::parse(text).ok(),
                Some(Place::Nothing) => None,
                Some(Place::Span { start, end, by }) => walk::value_at(text, start, end, by),
                // The seed's whole-text reading (`JSON.parse` of the trimmed reply, which the
                // place says parses), whichever reader answers there.
                Some(Place::WholeText) => text.get(trimmed(text)).and_then(|t| js::parse(t).ok()),
                _ => self.catalogue.read(k.id, text),
            }));
        }
        at
    }

    /// Whether the two answers are known to be the same by where they are, neither built (a
    /// command's answer is never known so: it must be compared).
    pub fn known_same(&mut self, a: ReaderId, b: ReaderId) -> bool {
        if self.catalogue.is_command(a) || self.catalogue.is_command(b) {
            return false;
        }
        let (a, b) = (self.find(a), self.find(b));
        let (x, y) = (self.known[a].place, self.known[b].place);
        if a == b || matches!((x, y), (Some(x), Some(y)) if x == y) {
            return true;
        }
        // `JSON.parse` of the trimmed reply and the strict reading of the span it trims to
        // parse the same text.
        let whole = trimmed(self.text);
        let strict_whole = |p: Option<Place>| matches!(p, Some(Place::Span { start, end, by: ReadingKind::Strict }) if (start..end) == whole);
        if (x == Some(Place::WholeText) && strict_whole(y)) || (y == Some(Place::WholeText) && strict_whole(x)) {
            return true;
        }
        // The wide and the narrow reading of one object are the same: the rules differ only
        // at a value string's `"` followed by `:`, which the narrow rule keeps open and the
        // wide one closes; a value followed by `:` is no JSON, so the wide reading, which
        // reads, met none, and the narrow one made every decision it made.
        matches!(
            (x, y),
            (Some(Place::Span { start, end, by: ReadingKind::Wide }), Some(Place::Span { start: s, end: e, by: ReadingKind::Narrow }))
            | (Some(Place::Span { start, end, by: ReadingKind::Narrow }), Some(Place::Span { start: s, end: e, by: ReadingKind::Wide }))
                if (start, end) == (s, e)
        )
    }

    /// Whether `id` reads something: an object found at a place is something without
    /// building it (only a whole reply read as it is can be JavaScript's `null`).
    pub fn reads(&mut self, id: ReaderId) -> bool {
        if self.catalogue.is_command(id) {
            return self.given_value(id).is_some();
        }
        let at = self.find(id);
        match self.known[at].place {
            Some(Place::Span { .. }) => true,
            Some(Place::Nothing) => false,
            // JSON text that parses reads JavaScript's `null` only where it is `null`.
            Some(Place::WholeText) if self.known[at].value.is_none() => {
                self.text.get(trimmed(self.text)) != Some("null")
            }
            _ => self.get(id).is_some(),
        }
    }

    /// The answer of `id`, read now if it was not yet; a command reader's as given (nothing
    /// where it failed: ask [`Answers::failure`]).
    pub fn get(&mut self, id: ReaderId) -> Option<&Value> {
        if self.catalogue.is_command(id) {
            return self.given_value(id);
        }
        let at = self.built(id);
        self.known[at].answer()
    }

    /// Both answers, read if need be, for a comparison: as JSON text carries them when either
    /// reader is a command. `None` when a command reader of the pair has no answer.
    pub fn pair(&mut self, a: ReaderId, b: ReaderId) -> Option<(Option<&Value>, Option<&Value>)> {
        if self.failure(a).is_some() || self.failure(b).is_some() {
            return None;
        }
        let as_json = self.catalogue.is_command(a) || self.catalogue.is_command(b);
        let mut at = [None, None];
        for (slot, id) in at.iter_mut().zip([a, b]) {
            if self.catalogue.is_command(id) {
                continue;
            }
            let i = self.built(id);
            // Its JSON view is read only where it differs from the answer (rarely: a number
            // that is not finite).
            let k = &mut self.known[i];
            let json = as_json && k.answer().is_some_and(changes_in_json);
            if json && k.json.is_none() {
                k.json = Some(k.answer().and_then(json_view));
            }
            *slot = Some((i, json));
        }
        let side = |slot: Option<(usize, bool)>, id: ReaderId| match slot {
            Some((i, true)) => self.known[i].json.as_ref().and_then(Option::as_ref),
            Some((i, false)) => self.known[i].answer(),
            None => self.given_value(id),
        };
        Some((side(at[0], a), side(at[1], b)))
    }

    /// Where the reply is JSON as it stands, as the seed's walk found: the span it read
    /// strictly, or the whole reply trimmed, where `JSON.parse` read that.
    pub fn json_span(&self) -> Option<Range<usize>> {
        match self.known.iter().find(|k| k.id == ReaderId::LAST_WINS)?.place? {
            Place::Span { start, end, by: ReadingKind::Strict } => Some(start..end),
            Place::WholeText => Some(trimmed(self.text)),
            _ => None,
        }
    }

    /// Lets go of every answer but the seed's and those `keep` wants.
    pub fn keep_only(&mut self, keep: impl Fn(ReaderId) -> bool) {
        self.known.retain(|k| k.id == ReaderId::LAST_WINS || keep(k.id));
    }
}

#[cfg(test)]
mod given_tests {
    use std::sync::Arc;

    use super::*;
    use crate::readers::own::Outside;

    fn catalogue() -> (Catalogue, ReaderId) {
        let mut c = Catalogue::builtin();
        let id = c.add_command("mine", Outside::command("true")).unwrap();
        (c, id)
    }

    fn answers<'a>(c: &'a Catalogue, text: &'a str, given: &'a [(ReaderId, Given)]) -> (Answers<'a>, ()) {
        (Answers::with_seed(c, text).0.given(given), ())
    }

    #[test]
    fn a_command_is_compared_with_json_text_as_json_stringify_prints_it() {
        let (c, mine) = catalogue();
        // 1e400 is Infinity to the seed, `null` once printed: the command that printed the
        // seed's answer (`null`) agrees with it.
        let given = [(mine, Given::Nothing)];
        let (mut a, _) = answers(&c, "1e400", &given);
        assert!(a.get(ReaderId::LAST_WINS).is_some(), "the seed holds Infinity");
        assert_eq!(a.pair(mine, ReaderId::LAST_WINS), Some((None, None)));
        // A lone surrogate survives as its escape, both ways.
        let lone = js::parse(r#""\ud800""#).unwrap();
        let given = [(mine, Given::Read(lone.clone()))];
        let (mut a, _) = answers(&c, r#" "\ud800" "#, &given);
        assert_eq!(a.pair(mine, ReaderId::LAST_WINS), Some((Some(&lone), Some(&lone))));
        // Between built-in readers nothing changes: Infinity is a value.
        let (mut a, _) = answers(&c, "1e400", &[]);
        let (first, last) = a.pair(ReaderId::FIRST_WINS, ReaderId::LAST_WINS).unwrap();
        assert!(first.is_some() && last.is_some());
    }

    #[test]
    fn a_command_without_an_answer_is_not_compared() {
        let (c, mine) = catalogue();
        let (mut a, _) = answers(&c, "{\"a\":1}", &[]);
        assert_eq!(a.failure(mine), Some(NOT_GIVEN));
        assert_eq!(a.pair(mine, ReaderId::LAST_WINS), None);
        assert_eq!(a.failure(ReaderId::FIRST_WINS), None);
        let given = [(mine, Given::Failed(Arc::from("reader failed: exited")))];
        let (mut a, _) = answers(&c, "{\"a\":1}", &given);
        assert_eq!(a.failure(mine), Some("reader failed: exited"));
        assert!(a.pair(ReaderId::LAST_WINS, mine).is_none());
        assert!(a.get(mine).is_none());
        // The other readers' answers stand.
        assert_eq!(a.get(ReaderId::FIRST_WINS).map(Value::to_json).as_deref(), Some(r#"{"a":1}"#));
    }
}

/// Whether a walk under `opts` reads as the seed's did, given the seed's whole-reply verdict
/// and what its walk read. Each case is what the walk's definition forces:
///
/// * a walk that differs from the seed's only in the whole-reply attempt walks the same
///   path to the same answer; its attempt decides otherwise only where the seed's was taken
///   and it makes none, or where a gate refused the seed's and it has not that gate;
/// * one that keeps the first readable candidate walks as the seed where the seed read one
///   candidate at most (the first readable is the last);
/// * one that never repairs walks as the seed where the seed read no candidate by the repair
///   (each candidate then reads strictly, or fails both readings, in both), and answers as it
///   unless the seed took the whole-reply reading, which it does not make.
fn walks_as_the_seed(opts: &WalkOptions, verdict: Verdict, reads: Reads) -> bool {
    let seed = WalkOptions::SEED;
    let path = |o: &WalkOptions| (o.readings, o.on_failure, o.keep);
    let attempt_agrees = |o: &WalkOptions| {
        let p = o.whole_reply;
        match verdict {
            Verdict::NotTried | Verdict::NoReading => true,
            Verdict::Taken => p.enabled,
            Verdict::RefusedWalkClosed => !p.enabled || p.walk_closed_gate,
            Verdict::RefusedNotSelfContained => !p.enabled || p.self_contained_gate,
        }
    };
    if path(opts) == path(&seed) {
        return attempt_agrees(opts);
    }
    let first = WalkOptions { keep: Keep::First, ..seed };
    if path(opts) == path(&first) {
        return reads.candidates <= 1 && attempt_agrees(opts);
    }
    let strict = WalkOptions { readings: Readings::StrictOnly, ..seed };
    if path(opts) == path(&strict) {
        return reads.repaired == 0 && attempt_agrees(opts);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn built(answers: &Answers, id: ReaderId) -> bool {
        answers.known.iter().any(|k| k.id == id && k.value.is_some())
    }

    /// Fence-first and first-wins answer where the seed does, on most replies, and are then
    /// compared with it by where they are: neither answer is built.
    #[test]
    fn answers_at_the_seeds_place_are_compared_unbuilt() {
        let catalogue = Catalogue::builtin();
        let fence = catalogue.find("fence-first").unwrap();
        for text in ["prose {\"a\": 1} more", "```json\n{\"a\": [1]}\n```", " [1, 2]\n", "{\"a\": 1}"] {
            let (mut answers, _) = Answers::with_seed(&catalogue, text);
            assert!(answers.known_same(fence, ReaderId::LAST_WINS), "{text:?}");
            assert!(!built(&answers, fence), "{text:?}");
            assert_eq!(catalogue.read(fence, text), catalogue.read(ReaderId::LAST_WINS, text), "{text:?}");
        }
        // The raw reply handed back by first-wins is the seed's whole text, or nothing.
        for (text, same) in [("[1, 2]\r\n", true), ("\u{feff}[1,2]", false), ("[1] x", true)] {
            let (mut answers, _) = Answers::with_seed(&catalogue, text);
            assert_eq!(answers.known_same(ReaderId::FIRST_WINS, ReaderId::LAST_WINS), same, "{text:?}");
            assert!(!built(&answers, ReaderId::FIRST_WINS), "{text:?}");
            let read = catalogue.read(ReaderId::FIRST_WINS, text);
            assert_eq!(read.is_some(), answers.reads(ReaderId::FIRST_WINS), "{text:?}");
            assert_eq!(read.as_ref(), answers.get(ReaderId::FIRST_WINS), "{text:?}");
        }
    }

    /// The wide and the narrow reading of one object are the same: known so with neither
    /// built.
    #[test]
    fn a_wide_and_a_narrow_reading_of_one_object_are_compared_unbuilt() {
        let catalogue = Catalogue::builtin();
        let narrow = catalogue.find("narrow-everywhere").unwrap();
        // Read by the repair (a raw newline in a string), with no colon after a quote in a
        // string: both rules decide alike.
        let text = "{\"html\": \"<p>a\nb</p>\", \"log\": \"ok\"} and {oops";
        let (mut answers, seed) = Answers::with_seed(&catalogue, text);
        assert!(matches!(seed.place, Place::Span { by: ReadingKind::Wide, .. }), "{:?}", seed.place);
        assert!(answers.known_same(narrow, ReaderId::LAST_WINS));
        assert!(!built(&answers, narrow) && !built(&answers, ReaderId::LAST_WINS));
        assert_eq!(answers.get(narrow).cloned(), catalogue.read(narrow, text));
        assert_eq!(answers.get(narrow).cloned(), catalogue.read(ReaderId::LAST_WINS, text));
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config { cases: 3000, ..Default::default() })]

        /// Where the wide reading of an object reads, the narrow one reads the same, to the
        /// same end: what lets [`Answers::known_same`] build neither.
        #[test]
        fn where_the_wide_reading_reads_the_narrow_one_is_the_same(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec!["{", "}", "[", "]", "\"", ":", ",", " ", "\n", "\\", "a", "1", "\": \"", "\", \""]),
                0..40,
            )
        ) {
            let text = format!("{{\"k\": \"{}", pieces.concat());
            for start in memchr::memchr_iter(b'{', text.as_bytes()) {
                if let Ok((wide, end)) = js::parse_repaired_at(&text, start, crate::exact::repair::ColonRule::Wide) {
                    let narrow = js::parse_narrow_at(&text, start);
                    proptest::prop_assert!(narrow.is_ok(), "{text:?} at {start}");
                    let narrow = narrow.unwrap();
                    proptest::prop_assert!(narrow.wide_is_the_same);
                    proptest::prop_assert_eq!((narrow.value, narrow.end), (wide, end));
                }
            }
        }
    }

    /// Every answer taken for the seed's without reading it is the seed's, on every golden
    /// reply; and each reader is so taken on some.
    #[test]
    fn an_answer_known_to_be_the_seeds_is() {
        let catalogue = Catalogue::builtin();
        let mut known = vec![0usize; catalogue.iter().count()];
        let replies = include_str!("../../tests/golden/replies.jsonl");
        for line in replies.lines().filter(|l| !l.trim().is_empty()) {
            let record = crate::exact::js::parse(line).unwrap();
            let Some(crate::exact::value::Value::String(text)) = record.as_object().and_then(|o| o.get("text")) else {
                panic!("a golden record has a text")
            };
            let text = text.to_string_lossy();
            let (answers, _) = Answers::with_seed(&catalogue, &text);
            let seed_answer = catalogue.read(ReaderId::LAST_WINS, &text);
            for (id, def) in catalogue.iter() {
                if id != ReaderId::LAST_WINS && answers.is_seed(id) {
                    // Known by the walk, not by the whole text parsing.
                    known[id.index()] += usize::from(!answers.whole_text);
                    assert_eq!(catalogue.read(id, &text), seed_answer, "{} on {text:?}", def.name);
                }
            }
        }
        for name in ["strict-only", "first-readable", "no-whole-reply", "no-walk-closed-gate", "no-self-contained-gate"]
        {
            let id = catalogue.find(name).unwrap();
            assert!(known[id.index()] > 100, "{name} taken for the seed's {} times", known[id.index()]);
        }
    }
}
