//! bracewalk: see how a lenient JSON extractor read an LLM reply.
//!
//! Pipelines ask a model for a JSON envelope and get prose, drafts, fences and broken
//! escaping around it. The [`exact`] module ports the extractors such pipelines use, exactly
//! (JavaScript semantics included), and has each one record its decisions: every `{`
//! candidate, each reading of it, the rule that decided, and what came out. [`cli`] prints
//! those records; [`describe`] and [`visible`] are the display helpers both front ends share.
//!
//! The layers, each using only those listed before it:
//!
//! 1. [`exact`]: the readers, exactly as the seeds read, and their decision records (no I/O);
//!    [`natural`] (the natural order of names), [`visible`] (text made safe to show),
//!    [`state_dir`] (where what outlives a run is kept).
//! 2. [`readers`]: which readers there are, what a caller of each holds, and readers run as
//!    processes; [`logs`]: loading logs of every format, and following them on disk;
//!    [`describe`]: the wording of a decision record.
//! 3. [`analysis`]: one reply's reading: its facts, its flags, its full record, how replies
//!    are batched.
//! 4. [`query`]: the query language, over a reply's facts.
//! 5. [`scan`]: a corpus scanned, its report, its rounds, accepted differences.
//! 6. [`tui`]: the inspector.
//! 7. [`cli`]: the commands' printing (the binary's `main.rs` parses arguments and calls it).

pub mod analysis;
pub mod cli;
pub mod describe;
pub mod exact;
pub mod logs;
pub mod natural;
pub mod query;
pub mod readers;
pub mod scan;
pub mod state_dir;
pub mod tui;
pub mod visible;
