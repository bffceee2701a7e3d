//! Each reader's answer for one reply, read once, when first asked for.

use crate::read::trace::{DecidedBy, Reads, Trace, Verdict};
use crate::read::value::Value;
use crate::read::walk::{Keep, Readings, WalkOptions};

use super::{Catalogue, ReaderId, Run, held};

/// The answers of one reply. An answer may be as large as the reply, so a caller that is done
/// with one lets it go ([`Answers::keep_only`]).
pub struct Answers<'a> {
    catalogue: &'a Catalogue,
    text: &'a str,
    /// The trimmed reply parsed whole. Every walk, whatever its options, tries that before
    /// anything else, so every walk's answer is then the seed's, and is not read again: on
    /// a corpus of well-behaved replies that is most of the work.
    whole_text: bool,
    /// The seed's whole-reply verdict, and what its walk read: what tells, for most
    /// what-ifs on most replies, that they would read as the seed ([`Answers::is_seed`]).
    verdict: Verdict,
    reads: Reads,
    known: Vec<(ReaderId, Option<Value>)>,
}

impl<'a> Answers<'a> {
    /// The answers of `text`, the seed's taken from its walk (`seed`, run by the caller for
    /// the decision it also records; its value is moved here, not copied: it may be as large
    /// as the reply).
    pub fn with_seed(catalogue: &'a Catalogue, text: &'a str, seed: &mut Trace) -> Answers<'a> {
        Answers {
            catalogue,
            text,
            whole_text: seed.decided_by == DecidedBy::WholeText,
            verdict: seed.whole_reply.verdict(),
            reads: seed.reads,
            known: vec![(ReaderId::LAST_WINS, held(seed.value.take()))],
        }
    }

    /// Takes `id`'s answer, if it was read, out of the answers.
    pub fn take(&mut self, id: ReaderId) -> Option<Value> {
        let id = self.slot(id);
        self.known.iter_mut().find(|(k, _)| *k == id).and_then(|(_, v)| v.take())
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

    /// The answer of `id`, read now if it was not yet.
    pub fn get(&mut self, id: ReaderId) -> Option<&Value> {
        let id = self.slot(id);
        let at = match self.known.iter().position(|(k, _)| *k == id) {
            Some(at) => at,
            None => {
                let value = self.catalogue.read(id, self.text);
                self.known.push((id, value));
                self.known.len() - 1
            }
        };
        self.known.get(at).and_then(|(_, v)| v.as_ref())
    }

    /// Both answers, read if need be, for a comparison.
    pub fn pair(&mut self, a: ReaderId, b: ReaderId) -> (Option<&Value>, Option<&Value>) {
        self.get(a);
        self.get(b);
        let (a, b) = (self.slot(a), self.slot(b));
        let find = |id: ReaderId| self.known.iter().find(|(k, _)| *k == id).and_then(|(_, v)| v.as_ref());
        (find(a), find(b))
    }

    /// Lets go of every answer but the seed's and those `keep` wants.
    pub fn keep_only(&mut self, keep: impl Fn(ReaderId) -> bool) {
        self.known.retain(|(r, _)| *r == ReaderId::LAST_WINS || keep(*r));
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
    use crate::read::walk;

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
            let mut seed = walk::run(&text, &WalkOptions::SEED, false);
            let answers = Answers::with_seed(&catalogue, &text, &mut seed);
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
