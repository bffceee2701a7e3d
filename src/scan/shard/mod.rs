//! A corpus scanned in shards, on one machine or many: each shard says what it covers, and
//! the merge refuses shards that would not add up to one scan.
//!
//! A scan reads a [`Plan`]: its inputs walked in bracewalk's own order and cut to one part
//! (`scan --shard I/N`, balanced by bytes), each file named relative to the corpus root
//! (`--root`, or the inputs' common directory) so that a node may hold the corpus anywhere.
//! `scan --json --list` writes the [`Manifest`] of what it read: the root and the inputs as
//! given, every file with its size and time, the part, the options that change counts, the
//! format and bracewalk's version. A merge reads the manifests first, [`check`]s them (a shard
//! given twice, two that overlap, a part missing, other options, roots or versions) and orders
//! the shards by them; a merge that lists nothing then reads each shard by its counts
//! ([`Scan::from_counts`](super::Scan::from_counts)), so that it holds the differences and the
//! diagnostics, not every reply.

mod check;
mod counted;
mod manifest;
mod plan;

pub use check::{Checks, Given, Refusal, check, merged};
pub use counted::Named;
pub use manifest::{CorpusSum, FORMAT, FileRead, Manifest, Options, Reader, Shard};
pub use plan::{BadPart, Corpus, File, Part, Plan, PlanError, Root};
