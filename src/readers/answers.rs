//! Each reader's answer for one reply, read once, when first asked for.

use crate::read::trace::{DecidedBy, Trace};
use crate::read::value::Value;

use super::{Catalogue, ReaderId, held};

/// The answers of one reply. An answer may be as large as the reply, so a caller that is done
/// with one lets it go ([`Answers::keep_only`]).
pub struct Answers<'a> {
    catalogue: &'a Catalogue,
    text: &'a str,
    /// The trimmed reply parsed whole. Every walk, whatever its options, tries that before
    /// anything else, so every walk's answer is then the seed's, and is not read again: on
    /// a corpus of well-behaved replies that is most of the work.
    whole_text: bool,
    known: Vec<(ReaderId, Option<Value>)>,
}

impl<'a> Answers<'a> {
    /// The answers of `text`, the seed's taken from its walk (`seed`, run by the caller for
    /// the decision it also records).
    pub fn with_seed(catalogue: &'a Catalogue, text: &'a str, seed: &Trace) -> Answers<'a> {
        Answers {
            catalogue,
            text,
            whole_text: seed.decided_by == DecidedBy::WholeText,
            known: vec![(ReaderId::LAST_WINS, held(seed.value.clone()))],
        }
    }

    /// Whether `id`'s answer is the seed's without reading it.
    pub fn is_seed(&self, id: ReaderId) -> bool {
        id == ReaderId::LAST_WINS || (self.whole_text && self.catalogue.is_walk(id))
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
