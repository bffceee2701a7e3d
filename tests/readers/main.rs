//! The readers: against the oracle's recorded output and the original reader's, linear work,
//! the record of candidates, fuzzing, the catalogue read the same way by every command, and
//! readers run as commands (`whole_text.mjs` is a stand-in extractor for the ES module
//! adapter).

// A test fails by an unwrap, an expect or a panic, in its helpers as in its `#[test]` fns.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../support/mod.rs"]
mod support;

mod adapters;
mod commands;
mod fence_first;
mod fuzz;
mod golden;
mod imported;
mod linear;
mod one_definition;
mod oracle_diff;
mod specs;
mod sweep;
mod visits;
