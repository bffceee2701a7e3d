//! The catalogue of readers: every reader bracewalk runs, shows or compares, once.
//!
//! A reader is what a pipeline would call on a reply, and its answer is what that caller
//! holds afterwards, by one rule for all: JavaScript's `null` is nothing read (the caller
//! cannot tell a reply that is literally `null` from a reader that found nothing), and
//! where seed 001 hands back the raw reply its caller's `JSON.parse(raw)` is applied to it
//! exactly, with no trim (so `\ufeff[1,2]` is nothing: `JSON.parse` does not skip U+FEFF).
//! `extract --reader`, `scan --compare`, and the inspector's what-if column, readers pane
//! and `≠` badge all name readers by their [`ReaderDef::name`] here and take their answers
//! from [`Catalogue::read`] (or, reply by reply, from [`Answers`]), so no two surfaces can
//! read a reply differently.
//!
//! A reader is an entry of a [`Catalogue`] made at run time, named by a [`ReaderId`]: the
//! built-in readers come first, in a fixed order, so the few every front end names
//! ([`ReaderId::LAST_WINS`], [`ReaderId::FIRST_WINS`], [`ReaderId::STRICT_ONLY`]) are
//! constants; readers that are not compiled in are entries appended after them. Those run
//! outside: [commands](own) the user gives (`--reader NAME=COMMAND`), or the user's own
//! extractor function run through bracewalk's [adapter] (`--reader NAME=js:FILE`,
//! `NAME=py:TARGET`): a long-lived child that answers replies by id, so its answers are not
//! read from a text here but arrive from its [`supervisor::Commands`], each a [`Given`] (a value,
//! nothing, a throw, text that is not JSON, or a failure), and are given to [`Answers`],
//! which compares them with the others as JSON text carries them.

pub mod adapter;
mod answers;
mod catalogue;
pub(crate) mod error;
mod given;
mod id;
pub mod own;
pub mod pending;
mod problem;
pub mod protocol;
mod resolve;
pub mod supervisor;

pub use answers::Answers;
pub use catalogue::{Catalogue, ReaderDef, Run, first_wins_value};
pub use error::{OptionError, ReaderError, UnknownReader};
pub use given::{Given, Outcome, changes_in_json, held, json_view};
pub use id::ReaderId;
pub use problem::{Fault, ReaderProblem};
pub use resolve::resolve;
