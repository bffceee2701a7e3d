//! The readers a scan compares: the seed's last-wins reader, seed 001's first-wins reader,
//! and the what-ifs the seed's comments measured, each a value of [`WalkOptions`] (one
//! engine, a parameter changed), never a copy of the walk.

use crate::read::first::{FirstOutcome, first_wins};
use crate::read::js;
use crate::read::value::Value;
use crate::read::walk::{self, Keep, OnFailure, Readings, WalkOptions, WholeReplyPolicy};

/// One reader, by its stable key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reader {
    /// Seed 000 `extractJson`, exactly.
    LastWins,
    /// Seed 001 `extractJsonObject`: the first strict candidate that parses, bounded.
    FirstWins,
    /// No repair of any kind: the whole text, then candidates read strictly.
    StrictOnly,
    /// The narrow colon rule in place of the wide one, in every candidate.
    NarrowEverywhere,
    /// The narrow colon rule as a third reading of a candidate both others fail.
    NarrowFallback,
    /// After a candidate that fails, on from the end of its span instead of inside it.
    ResumeAfterFail,
    /// The first readable candidate instead of the last.
    FirstReadable,
    /// No whole-reply attempt.
    NoWholeReply,
    /// The whole-reply attempt without its first gate.
    NoWalkClosedGate,
    /// The whole-reply attempt without its second gate.
    NoSelfContainedGate,
}

const SEED: WalkOptions = WalkOptions::SEED;
const GATES: WholeReplyPolicy = SEED.whole_reply;

impl Reader {
    pub const ALL: [Reader; 10] = [
        Reader::LastWins,
        Reader::FirstWins,
        Reader::StrictOnly,
        Reader::NarrowEverywhere,
        Reader::NarrowFallback,
        Reader::ResumeAfterFail,
        Reader::FirstReadable,
        Reader::NoWholeReply,
        Reader::NoWalkClosedGate,
        Reader::NoSelfContainedGate,
    ];

    /// The key used on the command line (`--compare`) and in `--json`.
    pub fn name(self) -> &'static str {
        match self {
            Reader::LastWins => "last-wins",
            Reader::FirstWins => "first-wins",
            Reader::StrictOnly => "strict-only",
            Reader::NarrowEverywhere => "narrow-everywhere",
            Reader::NarrowFallback => "narrow-fallback",
            Reader::ResumeAfterFail => "resume-after-fail",
            Reader::FirstReadable => "first-readable",
            Reader::NoWholeReply => "no-whole-reply",
            Reader::NoWalkClosedGate => "no-walk-closed-gate",
            Reader::NoSelfContainedGate => "no-self-contained-gate",
        }
    }

    pub fn from_name(name: &str) -> Option<Reader> {
        Reader::ALL.into_iter().find(|r| r.name() == name)
    }

    /// What the reader is, in a few words.
    pub fn description(self) -> &'static str {
        match self {
            Reader::LastWins => "seed 000: the last readable candidate, or the whole reply",
            Reader::FirstWins => "seed 001: the first strict candidate that parses, bounded",
            Reader::StrictOnly => "no repair: strict readings only, no whole-reply attempt",
            Reader::NarrowEverywhere => "the narrow colon rule in every candidate",
            Reader::NarrowFallback => "the narrow colon rule as a per-candidate fallback",
            Reader::ResumeAfterFail => "after a failed candidate, resume past it instead of inside",
            Reader::FirstReadable => "the first readable candidate instead of the last",
            Reader::NoWholeReply => "no whole-reply attempt",
            Reader::NoWalkClosedGate => "the whole-reply attempt without the walk-closed gate",
            Reader::NoSelfContainedGate => "the whole-reply attempt without the self-contained gate",
        }
    }

    /// The walk this reader is; `None` for first-wins, which is another reader.
    pub fn options(self) -> Option<WalkOptions> {
        let whole_reply = |w: WholeReplyPolicy| WalkOptions { whole_reply: w, ..SEED };
        Some(match self {
            Reader::FirstWins => return None,
            Reader::LastWins => SEED,
            // The whole-reply attempt is a repair too (the narrow colon rule), so a reader
            // that never repairs does not make it.
            Reader::StrictOnly => WalkOptions {
                readings: Readings::StrictOnly,
                whole_reply: WholeReplyPolicy { enabled: false, ..GATES },
                ..SEED
            },
            Reader::NarrowEverywhere => WalkOptions { readings: Readings::StrictThenNarrow, ..SEED },
            Reader::NarrowFallback => WalkOptions { readings: Readings::StrictThenWideThenNarrow, ..SEED },
            Reader::ResumeAfterFail => WalkOptions { on_failure: OnFailure::Resume, ..SEED },
            Reader::FirstReadable => WalkOptions { keep: Keep::First, ..SEED },
            Reader::NoWholeReply => whole_reply(WholeReplyPolicy { enabled: false, ..GATES }),
            Reader::NoWalkClosedGate => whole_reply(WholeReplyPolicy { walk_closed_gate: false, ..GATES }),
            Reader::NoSelfContainedGate => whole_reply(WholeReplyPolicy { self_contained_gate: false, ..GATES }),
        })
    }

    /// What a caller of this reader ends up holding for `text`, `None` for JavaScript's
    /// `null` (a reply that is literally `null` included: the caller cannot tell the two
    /// apart).
    pub fn read(self, text: &str) -> Option<Value> {
        let value = match self.options() {
            Some(opts) => walk::run(text, &opts, false).value,
            None => first_wins_value(text),
        };
        value.filter(|v| !matches!(v, Value::Null))
    }
}

/// The value a caller of seed 001 parses: the candidate it returned, or, when it hands back
/// the reply unchanged (nothing parsed, too long, attempts exhausted), the reply itself, which
/// the caller's `JSON.parse` reads only when the whole reply is JSON.
fn first_wins_value(text: &str) -> Option<Value> {
    match first_wins(text).outcome {
        FirstOutcome::Found(s) => text.get(s.start..s.end).and_then(|t| js::parse(t).ok()),
        _ => js::parse(text).ok(),
    }
}

/// Two readers compared: an account of a difference reads from `from`'s answer to `to`'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pair {
    pub from: Reader,
    pub to: Reader,
}

impl Pair {
    /// The comparisons a scan makes unless told otherwise: each other reader against the
    /// seed, so an account says what the seed's rule does that the other does not.
    pub fn defaults() -> Vec<Pair> {
        Reader::ALL
            .into_iter()
            .filter(|&r| r != Reader::LastWins)
            .map(|r| Pair { from: r, to: Reader::LastWins })
            .collect()
    }

    /// The stable key: the other reader's name for a pair read towards the seed
    /// (`first-wins`), `A,B` for any other.
    pub fn key(&self) -> String {
        if self.to == Reader::LastWins {
            self.from.name().to_owned()
        } else {
            format!("{},{}", self.from.name(), self.to.name())
        }
    }

    /// `A,B`, or one reader's name, meaning `NAME,last-wins`.
    pub fn parse(s: &str) -> Result<Pair, String> {
        let reader = |n: &str| {
            Reader::from_name(n.trim()).ok_or_else(|| {
                let names: Vec<&str> = Reader::ALL.iter().map(|r| r.name()).collect();
                format!("unknown reader {:?}; the readers are {}", n.trim(), names.join(", "))
            })
        };
        match s.split_once(',') {
            Some((a, b)) => {
                let pair = Pair { from: reader(a)?, to: reader(b)? };
                if pair.from == pair.to {
                    return Err(format!("{s:?} compares a reader with itself"));
                }
                Ok(pair)
            }
            None => {
                let r = reader(s)?;
                if r == Reader::LastWins {
                    return Err("last-wins is the seed; name the reader to compare it with".to_owned());
                }
                Ok(Pair { from: r, to: Reader::LastWins })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_only_first_wins_is_another_reader() {
        for r in Reader::ALL {
            assert_eq!(Reader::from_name(r.name()), Some(r));
            assert_eq!(r.options().is_none(), r == Reader::FirstWins);
        }
        assert_eq!(Reader::LastWins.options(), Some(WalkOptions::SEED));
    }

    #[test]
    fn pairs_parse_in_either_spelling() {
        let p = Pair::parse("first-wins").unwrap();
        assert_eq!(p, Pair { from: Reader::FirstWins, to: Reader::LastWins });
        assert_eq!(p.key(), "first-wins");
        assert_eq!(Pair::parse("first-wins, last-wins").unwrap().key(), "first-wins");
        assert_eq!(Pair::parse("last-wins,first-wins").unwrap().key(), "last-wins,first-wins");
        assert_eq!(Pair::parse("strict-only,narrow-everywhere").unwrap().key(), "strict-only,narrow-everywhere");
        assert!(Pair::parse("last-wins").is_err());
        assert!(Pair::parse("nope").unwrap_err().contains("first-wins"));
        assert!(Pair::parse("first-wins,first-wins").is_err());
    }

    #[test]
    fn first_wins_falls_back_to_the_reply_parsed_whole() {
        assert_eq!(Reader::FirstWins.read("[1, 2]").unwrap().to_json(), "[1,2]");
        assert!(Reader::FirstWins.read("prose {x}").is_none());
        assert!(Reader::LastWins.read(" null ").is_none());
    }
}
