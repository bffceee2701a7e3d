//! The command line end to end: `list`, `extract` and `explain` given a reply, the batch
//! command into a pipe, the formats as the command line names them, no command writing into
//! what it reads, no reader of one's own outliving a command, and the docs' commands and
//! links kept true.

// A test fails by an unwrap, an expect or a panic, in its helpers as in its `#[test]` fns.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../support/mod.rs"]
mod support;

mod batch;
mod docs;
mod formats;
mod list;
mod nothing_written;
mod paths;
mod readers_end;
