//! Loading replies from the logs people already have.
//!
//! Nobody converts their logs for a tool, so this reads them as they are: the pipeline's
//! run logs (a reply is one field of one event among many), whole bench campaigns (a
//! ledger and a directory per document, several campaigns side by side being several
//! rounds), raw API responses (Anthropic, Bedrock, OpenAI and the servers that speak its
//! API, Gemini and Vertex AI, Cohere, Ollama) as JSON, JSONL or batch output, streams saved
//! as server-sent events, NDJSON or Bedrock's binary frames (`stream`), eval and trace logs
//! (Inspect, lm-evaluation-harness, HELM, promptfoo, Langfuse, LangSmith, OpenTelemetry),
//! bracewalk's own records, a file per reply, and any other JSON through a pointer. What a
//! file is, is decided by its content (the `file` module and the table in `formats` say how),
//! and a user can force it. A response that holds no text (a tool call, a refusal, a blocked
//! prompt, an API's error) is a call that left no reply, not a problem.
//!
//! Three promises shape the code:
//!
//! * **nothing is lost to one problem.** Every problem — a bad byte, a broken line, a
//!   record of no known shape, a file that cannot be opened or vanished, a symlink loop —
//!   becomes a [`Diagnostic`] with its path and line or byte, and loading goes on;
//! * **memory is bounded by the largest reply.** JSONL is streamed a line at a time, a JSON
//!   document a record at a time (`document`), an eval archive a sample at a time, and
//!   the context a run log logs after a reply is gathered by a light first pass (see
//!   `pipeline`), so a 1 GB log opens in the memory of its longest line;
//! * **results are pushed, not collected.** [`Loader::load`] pushes each [`Item`] to a
//!   caller's sink in path-then-line order, as ripgrep's searcher pushes to a sink: the CLI
//!   prints as it goes, the TUI shows progress, the corpus scan fans files out to threads
//!   ([`discover()`], then [`Loader::load_file`] per file). A [`Tail`] follows one file as it
//!   grows and returns only what is new; [`follow()`] follows every path opened (native
//!   events, or polling), pushing each change to a [`Sink`].
//!
//! Facts a record does not carry are absent, never guessed. The few this module infers
//! (which `model_call` a run-log reply came from, its review round, its page's
//! verification) are inferred because the log leaves no other way, and each reply names
//! them in [`Meta::inferred`].

// The floors, from the bottom: what loading produces (`model`), bytes before any format
// (`bytes`), the formats and what they share (`formats`); then the front here, which walks
// the paths, decides what each file is and reads it (`loader`, `file`, `discover`, `jsonl`,
// `pipeline`, `campaign`, `ahead`, `locator`, `reference`); and files followed as they change
// (`following`). Each floor uses only the ones below it.
mod bytes;
mod formats;
mod model;

mod ahead;
mod campaign;
mod discover;
mod file;
mod jsonl;
mod loader;
mod locator;
mod pipeline;
mod reference;

mod following;

use std::path::PathBuf;

pub use campaign::is_ledger;
pub use discover::{Found, discover, is_passed_over, unreadable};
pub use following::follow::{Sink, WatchMode, Watching, follow};
pub use following::tail::{Change, Restart, Tail};
pub use loader::Loader;
pub use locator::Locator;
pub use model::diagnostic::{Diagnostic, Offer, Problem};
pub use model::hash::text_hash;
pub use model::names::{Name, Names};
pub use model::options::LoadOptions;
pub use model::reply::{Event, EventKind, Format, Inferred, Item, Listed, Listing, Meta, Reply, StopReason, Tokens};
pub use model::written::{Place, Written};
pub use reference::{ReferenceError, Resolved, parse_reference, resolve};

/// Every reply, event and diagnostic in `paths`, pushed to `sink` in path-then-line order.
pub fn load(paths: &[PathBuf], opts: &LoadOptions, sink: &mut dyn FnMut(Item)) {
    Loader::new(opts.clone()).load(paths, sink);
}
