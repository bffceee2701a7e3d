//! What is read of a reply and compared: the readers, the comparisons, the array fields.

use crate::readers::{Catalogue, ReaderId};

use super::pair::Pair;

/// What a scan compares and looks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The readers there are.
    pub catalogue: Catalogue,
    /// The reader comparisons, in the order they are shown.
    pub pairs: Vec<Pair>,
    /// The array fields looked at for truncation (`readArrayPrefix`).
    pub fields: Vec<String>,
    /// Readers whose comparisons with the seed are made in the early part of the facts
    /// ([`Facts::early`](super::Facts::early)): what the inspector shows before the rest (its `≠` badge).
    pub early: Vec<ReaderId>,
}

impl Default for Config {
    fn default() -> Self {
        Config::new(Catalogue::builtin())
    }
}

impl Config {
    /// Every what-if of `catalogue` against the seed; the `edits` field for truncation.
    pub fn new(catalogue: Catalogue) -> Config {
        Config {
            pairs: Pair::defaults(&catalogue),
            catalogue,
            fields: vec!["edits".to_owned()],
            early: vec![ReaderId::FIRST_WINS],
        }
    }

    /// Whether pair `p` is compared in the early part of the facts.
    pub fn is_early(&self, p: usize) -> bool {
        self.pairs.get(p).is_some_and(|pair| pair.against_seed() && self.early.contains(&pair.from))
    }

    /// Whether pair `p` is one the `readers-disagree` flag looks at: a reader set beside the
    /// seed to see where it reads otherwise (an early one, the inspector's `≠`, or a reader
    /// command), not a what-if of the seed's own rules, which differs by design.
    pub fn disagreement(&self, p: usize) -> bool {
        self.is_early(p)
            || self.pairs.get(p).is_some_and(|pair| pair.against_seed() && self.catalogue.is_command(pair.from))
    }

    /// The index of the pair reading `reader` against the seed, if the config makes it.
    pub fn pair_with_seed(&self, reader: ReaderId) -> Option<usize> {
        self.pairs.iter().position(|p| p.from == reader && p.against_seed())
    }

    /// The command readers the pairs compare, in catalogue order: the ones to run.
    pub fn commands(&self) -> Vec<ReaderId> {
        self.catalogue
            .commands()
            .map(|(id, _)| id)
            .filter(|id| self.pairs.iter().any(|p| p.from == *id || p.to == *id))
            .collect()
    }

    /// The pair's key (`first-wins`, `A,B`).
    pub fn key(&self, p: &Pair) -> String {
        p.key(&self.catalogue)
    }
}
