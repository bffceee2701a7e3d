//! One reply's reading: what every reader makes of it, kept as facts.
//!
//! A [`Config`] says which readers a run reads with and which of them it compares
//! ([`Pair`]s, each read from one reader's answer to the other's). [`Facts::of`] reads one
//! reply with all of them, answers read once, and keeps counts and one-line accounts
//! ([`account`]), never text or values: how the seed decided, what the repair changed,
//! whether it was cut off, which comparisons differ, which risk [`flags`] are raised.
//!
//! One reply looked at closely has its full record ([`detail`]): every candidate, how each
//! is painted, what each built-in reader compared holds.
//!
//! Everything that filters, badges, describes or counts a reply reads it through here: the
//! query language, the corpus scan (which folds the facts of many replies), `explain` and
//! `extract`, and the inspector's list, badges and panes. This layer knows nothing of a
//! corpus, a terminal or an output format.

pub mod batch;
mod config;
pub mod detail;
mod difference;
mod facts;
pub mod flags;
mod pair;

pub use config::Config;
pub use difference::{Class, account, difference, parts};
pub use facts::{Facts, Noted, Partial};
pub use flags::{Flag, Raised};
pub use pair::{Pair, PairError};
