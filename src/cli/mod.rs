//! What the command line prints: the oracle-format record, the explained trace, styling.
//! The binary's `main.rs` parses arguments and calls into here.

pub mod explain;
pub mod list;
pub mod record;
pub mod scan;
pub mod shell;
pub mod style;
