//! Loading replies: every format, the sample logs, bad inputs beside good ones, and following
//! a file as it grows.

// A test fails by an unwrap, an expect or a panic, in its helpers as in its `#[test]` fns.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../support/mod.rs"]
mod support;

mod bad_inputs;
mod campaign;
mod eval_tools;
mod evals;
mod formats;
mod provider_files;
mod providers;
mod samples;
mod streams;
mod tail;
