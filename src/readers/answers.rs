//! Each reader's answer for one reply, read once, when first asked for.

use crate::read::first::{FirstOutcome, first_wins};
use crate::read::js;
use crate::read::trace::{DecidedBy, Place, ReadingKind, Reads, Trace, Verdict};
use crate::read::value::Value;
use crate::read::walk::{self, Keep, Readings, WalkOptions, Walker};

use super::{Catalogue, ReaderId, Run, held};

/// The answers of one reply. An answer may be as large as the reply, so a caller that is done
/// with one lets it go ([`Answers::keep_only`]). Where a reader's answer is in the reply is
/// found first, and its value built only when asked for: two answers at the same place are
/// the same ([`Answers::known_same`]), which on most replies is most comparisons.
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
}

/// One reader's answer: where it is (for the readers that can say), and its value once built
/// (`Some(None)` for nothing read).
struct Known {
    id: ReaderId,
    place: Option<Place>,
    value: Option<Option<Value>>,
}

impl Known {
    fn answer(&self) -> Option<&Value> {
        self.value.as_ref().and_then(Option::as_ref)
    }
}

impl<'a> Answers<'a> {
    /// The answers of `text`; the seed's is walked now, and returned for the decision the
    /// caller also records (its value is moved into the answers, not copied: it may be as
    /// large as the reply).
    pub fn with_seed(catalogue: &'a Catalogue, text: &'a str) -> (Answers<'a>, Trace) {
        let mut walker = Walker::new(text);
        let mut seed = walker.run(&WalkOptions::SEED);
        let answers = Answers::new(catalogue, text, walker, &mut seed);
        (answers, seed)
    }

    fn new(catalogue: &'a Catalogue, text: &'a str, walker: Walker<'a>, seed: &mut Trace) -> Answers<'a> {
        let known = Known { id: ReaderId::LAST_WINS, place: Some(seed.place), value: Some(held(seed.value.take())) };
        Answers {
            catalogue,
            text,
            walker,
            whole_text: seed.decided_by == DecidedBy::WholeText,
            verdict: seed.whole_reply.verdict(),
            reads: seed.reads,
            known: vec![known],
        }
    }

    /// Takes `id`'s answer, if it was read, out of the answers.
    pub fn take(&mut self, id: ReaderId) -> Option<Value> {
        let id = self.slot(id);
        self.known.iter_mut().find(|k| k.id == id).and_then(|k| k.value.take().flatten())
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

    /// Where `id`'s entry is, found now (where its answer is, but not its value) if need be.
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
                let value = matches!(place, Place::WholeText).then(|| held(located.into_value(text)));
                Known { id, place: Some(place), value }
            }
            Some(Run::FirstWins) => {
                let place = match first_wins(text).outcome {
                    FirstOutcome::Found(s) => Place::Span { start: s.start, end: s.end, by: ReadingKind::Strict },
                    _ => Place::Raw,
                };
                Known { id, place: Some(place), value: None }
            }
            _ => Known { id, place: None, value: Some(self.catalogue.read(id, text)) },
        };
        self.known.push(known);
        self.known.len() - 1
    }

    /// Whether the two answers are known to be the same by where they are, neither built.
    pub fn known_same(&mut self, a: ReaderId, b: ReaderId) -> bool {
        let (a, b) = (self.find(a), self.find(b));
        a == b || matches!((self.known[a].place, self.known[b].place), (Some(x), Some(y)) if x == y)
    }

    /// Whether `id` reads something: an object found at a place is something without
    /// building it (only a whole reply read as it is can be JavaScript's `null`).
    pub fn reads(&mut self, id: ReaderId) -> bool {
        let at = self.find(id);
        match self.known[at].place {
            Some(Place::Span { .. }) => true,
            Some(Place::Nothing) => false,
            _ => self.get(id).is_some(),
        }
    }

    /// The answer of `id`, read now if it was not yet.
    pub fn get(&mut self, id: ReaderId) -> Option<&Value> {
        let at = self.find(id);
        let text = self.text;
        let k = &mut self.known[at];
        if k.value.is_none() {
            k.value = Some(held(match k.place {
                Some(Place::Raw) => js::parse(text).ok(),
                Some(Place::Span { start, end, by }) => walk::value_at(text, start, end, by),
                _ => self.catalogue.read(k.id, text),
            }));
        }
        k.value.as_ref().and_then(Option::as_ref)
    }

    /// Both answers, read if need be, for a comparison.
    pub fn pair(&mut self, a: ReaderId, b: ReaderId) -> (Option<&Value>, Option<&Value>) {
        self.get(a);
        self.get(b);
        let (a, b) = (self.find(a), self.find(b));
        (self.known[a].answer(), self.known[b].answer())
    }

    /// Lets go of every answer but the seed's and those `keep` wants.
    pub fn keep_only(&mut self, keep: impl Fn(ReaderId) -> bool) {
        self.known.retain(|k| k.id == ReaderId::LAST_WINS || keep(k.id));
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

    /// Every answer taken for the seed's without reading it is the seed's, on every golden
    /// reply; and each reader is so taken on some.
    #[test]
    fn an_answer_known_to_be_the_seeds_is() {
        let catalogue = Catalogue::builtin();
        let mut known = vec![0usize; catalogue.iter().count()];
        let replies = include_str!("../../tests/golden/replies.jsonl");
        for line in replies.lines().filter(|l| !l.trim().is_empty()) {
            let record = crate::read::js::parse(line).unwrap();
            let Some(crate::read::value::Value::String(text)) = record.as_object().and_then(|o| o.get("text")) else {
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
