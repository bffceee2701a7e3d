//! Corpus scan: the seed's own measurements, for any corpus.
//!
//! Every rule in seed 000 was justified by a count over the bench logs ("nine read
//! differently and every one of the nine is a rescue", "reads 60 of the 67 replies that a
//! strict reading cannot read at all", "changes 14 of the 4,100 replies … and worsens all
//! 14"). A scan makes those counts again over any set of replies, keeps the replies behind
//! every number, and compares the seed with the readers its comments measured it against:
//! seed 001's first-wins reader, and each what-if, all of them readers of the
//! [catalogue](crate::readers), which says what each is and what its caller holds.
//!
//! Each reply is read once into its [`Facts`](crate::analysis::Facts) (counts and one-line
//! accounts, never text or values); a [`Scanner`] folds facts into a [`Scan`] in the order
//! the replies were given (one at a time, or a batch read in parallel), and [`scan_paths`]
//! drives it over files with the loader on its own thread. The [`report`] is how a scan is
//! shown: its sections, rows, labels and predicates, once, for `bracewalk scan`'s table,
//! Markdown and JSON and for the inspector's summary screen and filters. Scans of shards are
//! put together ([`Scan::append`]); [`accepted`] checks a scan against the differences a project
//! has accepted. [`rounds`] puts a campaign's rounds side by side, and raises `page-shrank`
//! on a page's final answer that shrank or vanished since an earlier round.
//!
//! The readers a scan compares (`--compare`, the `comparisons` keys) and the keys of
//! `bracewalk scan --json` are documented for users in the README (*The corpus scan*);
//! tests in `cli::scan` hold those tables to the catalogue and to the output.

pub mod accepted;
mod merge;
mod pages;
mod paths;
pub mod report;
pub mod rounds;
mod row;
mod scanner;
pub mod shard;

pub use merge::ShardError;
pub use paths::{Batch, Progress, in_batches, scan_found, scan_paths, scan_paths_only, sizes};
pub use scanner::{
    Comparison, Difference, Group, InputDiagnostic, NONE_KEY, NOTED, Raising, ReaderNotes, Repair, ReplyName, Scan,
    ScanDiagnostic, Scanner, Truncation, Unlisted, Whole, read,
};
