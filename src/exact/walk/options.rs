//! The walk's parameters. The seed's behaviour is [`WalkOptions::SEED`]; each what-if the
//! seed's comments measured is another value of the same options, never a copy of the walk.

use crate::exact::memo::Carries;
use crate::exact::trace::ReadingKind;

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
    pub(super) fn carried(self) -> Carries {
        match self {
            Readings::StrictOnly => Carries::Neither,
            Readings::StrictThenWide => Carries::Wide,
            Readings::StrictThenNarrow | Readings::StrictThenWideThenNarrow => Carries::Both,
        }
    }

    pub(super) fn order(self) -> &'static [ReadingKind] {
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
