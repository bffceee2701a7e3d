//! The readers: against the oracle's recorded output and the original reader's, linear work,
//! the record of candidates, fuzzing, the catalogue read the same way by every command, and
//! readers run as commands (`whole_text.mjs` is a stand-in extractor for the ES module
//! adapter).

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
mod visits;
