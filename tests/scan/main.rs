//! The corpus scan: what it counts, its output through the binary, merging shards, and
//! accepted differences.

// A test fails by an unwrap, an expect or a panic, in its helpers as in its `#[test]` fns.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../support/mod.rs"]
mod support;

mod accepted;
mod cli;
mod cluster;
mod counts;
mod merge;
mod rounds;
mod shards;
