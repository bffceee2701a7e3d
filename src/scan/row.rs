//! A number the report shows ([`Row`]): the data alone, which a [`Scan`](super::Scan) keeps
//! counts by and the [report](super::report) labels, counts and lists.

use crate::analysis::{Class, Flag};
use crate::exact::trace::{DecidedBy, Verdict};
use crate::readers::{Outcome, ReaderId};

/// A number the report shows, as the replies behind it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Row {
    /// The seed decided this way.
    Decided(DecidedBy),
    /// The seed's whole-reply attempt had this verdict.
    Verdict(Verdict),
    /// A walk with no repair reads nothing.
    StrictUnreadable,
    /// Of those, the seed reads something: the repair rescued it.
    Rescued,
    /// A walk with no repair reads something, and the seed something else.
    RepairChanged,
    /// Cut off: the record says the output ceiling stopped it, or it opens an object that
    /// never closes.
    CutOff,
    /// The config's array field (by index) opened and never closed.
    Truncated(usize),
    /// The config's pair (by index) reads it differently.
    Differs(usize),
    /// The config's pair (by index) reads it differently this way. Not a row of its own in
    /// the report: the comparison's row counts its classes, and its listing says each
    /// reply's.
    Class(usize, Class),
    /// A risk flag is raised on it.
    Flag(Flag),
    /// The command reader gave no value for it, and said why: it threw or returned text that
    /// is not JSON (nothing read, and compared so), or it gave no answer ([`Outcome::Failed`]:
    /// an error, or its failure at it or before; "reader failed", never "nothing read", and
    /// its comparisons are not made). One of [`NOTED`](super::NOTED).
    Reader(ReaderId, Outcome),
    /// An agent, a round or a record format; [`NONE_KEY`](super::NONE_KEY) for none.
    Agent(String),
    Round(String),
    Format(String),
}
