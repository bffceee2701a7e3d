//! bracewalk: see how a lenient JSON extractor read an LLM reply.
//!
//! Pipelines ask a model for a JSON envelope and get prose, drafts, fences and broken
//! escaping around it. The [`read`] module ports the extractors such pipelines use, exactly
//! (JavaScript semantics included), and has each one record its decisions: every `{`
//! candidate, each reading of it, the rule that decided, and what came out. [`cli`] prints
//! those records; [`describe`] and [`visible`] are the display helpers both front ends share.

pub mod cli;
pub mod describe;
pub mod natural;
pub mod query;
pub mod read;
pub mod readers;
pub mod reading;
pub mod runlog;
pub mod scan;
pub mod state_dir;
pub mod tui;
pub mod visible;
