//! The corpus scan: what it counts, its output through the binary, merging shards, and
//! accepted differences.

#[path = "../support/mod.rs"]
mod support;

mod accepted;
mod cli;
mod cluster;
mod counts;
mod merge;
mod rounds;
mod shards;
