//! What can go wrong in naming, defining and starting a reader: each error names the reader
//! and, where there is one, its file, and says the cause, so that one line tells the user
//! what to change. A reader that fails while it answers is not an error here: that is a
//! [`Given::Failed`](super::Given::Failed) for the replies it owed.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// A reader's name that the catalogue does not hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown reader {name:?}; the readers are {}", known.join(", "))]
pub struct UnknownReader {
    pub name: String,
    /// Every name the catalogue holds, in its order.
    pub known: Vec<String>,
}

/// A reader that cannot be defined or started. A shard's JSON gives one back as it was
/// (`scan --merge`): it is written tagged by its kind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ReaderError {
    #[error(
        "{name:?} is not a reader name: use up to 40 letters, digits, `-`, `_` and `.`, starting with a letter or digit"
    )]
    BadName { name: String },
    #[error("there is already a reader named {name:?}")]
    Taken { name: String },
    #[error("too many readers")]
    TooMany,
    #[error("expected NAME=COMMAND, NAME=js:FILE[#EXPORT] or NAME=py:TARGET[:ATTR], got {given:?}")]
    NoDefinition { given: String },
    #[error("reader {name} has no command")]
    NoCommand { name: String },
    /// An option after `?` that is not one, or whose value is not what it takes.
    #[error("reader {name}: {spec}: {problem}")]
    BadOption { name: String, spec: String, problem: OptionError },
    #[error("reader {name}: {spec}: {problem}")]
    BadSpec { name: String, spec: String, problem: String },
    #[error("reader {name}: {}: no such file", file.display())]
    NoFile { name: String, file: PathBuf },
    /// The program the reader runs with (node, python3, `$BRACEWALK_PYTHON`) cannot be run.
    #[error("reader {name}: {target}: {program} {problem}")]
    NoProgram { name: String, target: String, program: String, problem: String },
    /// A TypeScript file, and neither a node that strips types nor tsx to run it.
    #[error(
        "reader {name}: {}: node {node} cannot run TypeScript: use node ≥ 22.6, which strips types itself, \
         or install tsx (`npm install --save-dev tsx` beside the file, or on PATH)",
        file.display()
    )]
    TypeScript { name: String, file: PathBuf, node: String },
    /// The program could not be started at all.
    #[error("reader {name}: could not start {program}: {cause}")]
    Start { name: String, program: String, cause: String },
    /// The extractor's module could not be loaded: it is missing an import, does not parse,
    /// or throws as it loads.
    #[error("reader {name}: {target}: {cause}{}", fix.as_ref().map(|f| format!(" ({f})")).unwrap_or_default())]
    Load { name: String, target: String, cause: String, fix: Option<String> },
    /// The module loaded, and holds no function of the name given (`wanted`), or, with no
    /// name given, no single function to take.
    #[error("reader {name}: {target}: {}", no_function(wanted.as_deref(), functions, spec))]
    NoFunction {
        name: String,
        target: String,
        wanted: Option<String>,
        /// The functions it offers, by the names a spec takes.
        functions: Vec<String>,
        /// What goes before a function's name in a spec (`js:x.mjs#`, `py:x.py:`).
        spec: String,
    },
    /// The runner ended, or said something else, before it said it was ready.
    #[error("reader {name}: {target}: {how} before it was ready{}", fix.as_ref().map(|f| format!(" ({f})")).unwrap_or_default())]
    NotReady { name: String, target: String, how: String, fix: Option<String> },
}

/// The options a `js:` or `py:` spec takes after `?`.
const OPTIONS: &str = "unwrap=/POINTER, nothing=JSON, strings=value|json, throws=fail|nothing";

/// An option after `?` that is not one, or whose value is not what it takes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum OptionError {
    #[error("{part:?} is not an option; the options are {OPTIONS}")]
    NotAnOption { part: String },
    #[error("unknown option {key:?}; the options are {OPTIONS}")]
    Unknown { key: String },
    #[error("unwrap={pointer}: not a JSON pointer (they start with /)")]
    NotAPointer { pointer: String },
    /// `nothing=` and text that is not JSON, with why.
    #[error("nothing={given}: not JSON ({why})")]
    NotJson { given: String, why: String },
    /// `strings=` or `throws=`, and a value neither takes.
    #[error("{key}={given}: {key} takes {}", if key == "strings" { "value or json" } else { "fail or nothing" })]
    BadValue { key: String, given: String },
}

/// Why no function was taken, and the names to choose from.
fn no_function(wanted: Option<&str>, functions: &[String], spec: &str) -> String {
    const SHOWN: usize = 12;
    let listed = || {
        let mut names: Vec<&str> = functions.iter().take(SHOWN).map(String::as_str).collect();
        let more = functions.len().saturating_sub(SHOWN);
        let more = if more > 0 { format!(" and {more} more") } else { String::new() };
        names.sort_unstable();
        format!("{}{more}", names.join(", "))
    };
    let example = functions.first().map(|f| format!("; name one, as in {spec}{f}")).unwrap_or_default();
    match (wanted, functions.len()) {
        (Some(w), 0) => format!("no function {w:?}, and it offers no function at all"),
        (Some(w), _) => format!("no function {w:?}; its functions: {}", listed()),
        (None, 0) => "offers no function to call".to_owned(),
        (None, _) => format!("no default function and more than one: {}{example}", listed()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_reader_the_file_and_the_cause() {
        let e = ReaderError::NoFunction {
            name: "mine".into(),
            target: "x.mjs".into(),
            wanted: None,
            functions: vec!["parse".into(), "extract".into()],
            spec: "js:x.mjs#".into(),
        };
        assert_eq!(
            e.to_string(),
            "reader mine: x.mjs: no default function and more than one: extract, parse; name one, as in js:x.mjs#parse"
        );
        let e = ReaderError::NoFunction {
            name: "mine".into(),
            target: "x.py".into(),
            wanted: Some("nope".into()),
            functions: vec!["parse".into()],
            spec: "py:x.py:".into(),
        };
        assert_eq!(e.to_string(), "reader mine: x.py: no function \"nope\"; its functions: parse");
        let e = ReaderError::Load {
            name: "mine".into(),
            target: "x.mjs".into(),
            cause: "Error: boom".into(),
            fix: Some("fix it".into()),
        };
        assert_eq!(e.to_string(), "reader mine: x.mjs: Error: boom (fix it)");
        let e = UnknownReader { name: "nope".into(), known: vec!["a".into(), "b".into()] };
        assert_eq!(e.to_string(), "unknown reader \"nope\"; the readers are a, b");
    }
}
