//! The inspector: its update function by key sequences, its panes as snapshots, queries,
//! replies read again, the follower under a watched directory's faults, and the real binary
//! in tmux (moving and searching, restoring the terminal however it ends, no reader of one's
//! own outliving it, escape sequences shown and never obeyed).

// A test fails by an unwrap, an expect or a panic, in its helpers as in its `#[test]` fns.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../support/mod.rs"]
mod support;

mod escape_injection;
mod footprint;
mod query;
mod readers_end;
mod real_terminal;
mod reread;
mod rounds;
mod soak;
mod terminal_restore;
mod update;
mod views;
mod watch_faults;
