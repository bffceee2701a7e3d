//! How files are read: what a user can ask of the loader.

use crate::logs::model::reply::Format;

/// How files are read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadOptions {
    /// Read every file as this format instead of detecting it.
    pub format: Option<Format>,
    /// A JSON pointer to the reply text, for JSON records of no known shape.
    pub text_path: Option<String>,
    /// `(NAME, POINTER)` pairs: metadata to read off such records.
    pub meta: Vec<(String, String)>,
    /// The longest line read; a longer one is skipped with a diagnostic.
    pub max_line: usize,
    /// The largest file read whole (a text reply, a JSON document).
    pub max_whole: u64,
    /// Per-line diagnostics listed one by one per file (per read, in a tail); the rest are
    /// counted in one.
    pub max_problems_per_file: usize,
    /// Read what a run log says of a reply after it (its review round, its page's
    /// verification, the run's outcome): a first pass over each chunk of a log for those
    /// few lines. A caller that uses none of it (a scan that filters nothing) reads without.
    pub forward_context: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            format: None,
            text_path: None,
            meta: Vec::new(),
            // A reply may be as long on a line of a log as in a file of its own.
            max_line: 256 << 20,
            max_whole: 256 << 20,
            max_problems_per_file: 50,
            forward_context: true,
        }
    }
}
