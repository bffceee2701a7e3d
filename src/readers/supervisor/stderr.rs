//! What a reader's stderr says when it fails: its last lines, and the likely fix for what
//! node, Python or the shell said there. The cause of a failure is nearly always in the
//! last lines of the log, and nearly always one of a few; saying the fix beside the failure
//! spares the user the log.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// How much of the log's end is read for its last lines.
const END: u64 = 16 << 10;
/// How long a line of the tail may be.
const LINE: usize = 200;

/// The last `n` lines of the log that hold something, each clipped, a JavaScript stack's
/// frames (`    at …`) left out: what is left is what was thrown. None where it cannot be read.
pub fn tail(log: &Path, n: usize) -> Vec<String> {
    let Ok(mut file) = std::fs::File::open(log) else { return Vec::new() };
    let len = file.metadata().map_or(0, |m| m.len());
    let mut bytes = Vec::new();
    if file.seek(SeekFrom::Start(len.saturating_sub(END))).is_err() || file.read_to_end(&mut bytes).is_err() {
        return Vec::new();
    }
    let text = String::from_utf8_lossy(&bytes);
    let mut lines: Vec<String> = text
        .lines()
        .rev()
        .filter(|l| !l.trim().is_empty() && !is_frame(l))
        .take(n)
        .map(|l| crate::visible::visible(&crate::visible::clip(l.trim_end(), LINE), false))
        .collect();
    lines.reverse();
    lines
}

/// A line of a JavaScript stack: `    at f (file:///x.mjs:1:1)`.
fn is_frame(line: &str) -> bool {
    line.starts_with(char::is_whitespace) && line.trim_start().starts_with("at ")
}

/// The likely fix for what `said` (an error, a log's last lines) says went wrong; `None`
/// where it is none of the causes known.
pub fn likely_fix(said: &str) -> Option<String> {
    if said.contains("ERR_UNKNOWN_FILE_EXTENSION") || said.contains("Unknown file extension") {
        return Some(match quoted_after(said, "Unknown file extension ") {
            Some(ext) if matches!(ext.as_str(), ".ts" | ".mts" | ".cts" | ".tsx") => format!(
                "node says ERR_UNKNOWN_FILE_EXTENSION \"{ext}\": use node ≥ 22.6 or install tsx \
                 (give the reader as NAME=js:FILE, and bracewalk runs it either way)"
            ),
            Some(ext) => format!("node says ERR_UNKNOWN_FILE_EXTENSION \"{ext}\": node does not run such files"),
            None => "node says ERR_UNKNOWN_FILE_EXTENSION: node does not run such files".to_owned(),
        });
    }
    if said.contains("ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX") || said.contains("not supported in strip-only mode") {
        return Some(
            "node strips types but does not transform TypeScript (enums, namespaces, parameter properties): \
             set NODE_OPTIONS=--experimental-transform-types, or run it through tsx on node < 22.6"
                .to_owned(),
        );
    }
    if let Some(package) =
        quoted_after(said, "Cannot find package ").or_else(|| quoted_after(said, "Cannot find module "))
    {
        if package.starts_with('/') || package.starts_with("file:") || package.starts_with('.') {
            return Some(format!("node cannot find the file {package}"));
        }
        return Some(format!(
            "node cannot find the package {package}: install it where the extractor is (npm install {package})"
        ));
    }
    if said.contains("require is not defined in ES module scope") {
        return Some("the file is CommonJS where node expects an ES module: name it .cjs".to_owned());
    }
    if said.contains("Cannot use import statement outside a module") {
        return Some(
            "the file is an ES module where node expects CommonJS: name it .mjs, or set \"type\": \"module\" in its package.json"
                .to_owned(),
        );
    }
    if let Some(module) = quoted_after(said, "No module named ") {
        let top = module.split('.').next().unwrap_or(&module).to_owned();
        return Some(format!(
            "Python cannot import {module}: install it for the Python that runs the reader (python3 -m pip install {top}), \
             or set $BRACEWALK_PYTHON to the Python that has it (a virtualenv's bin/python)"
        ));
    }
    if said.contains("command not found") || said.contains(": not found") {
        return Some("the shell cannot find the command: check that it is installed and on PATH".to_owned());
    }
    None
}

/// The text between the quotes (`"` or `'`) right after `marker`.
fn quoted_after(said: &str, marker: &str) -> Option<String> {
    let rest = &said[said.find(marker)? + marker.len()..];
    let quote = rest.chars().next().filter(|c| matches!(c, '"' | '\''))?;
    let rest = &rest[1..];
    Some(rest[..rest.find(quote)?].to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixes_for_what_node_python_and_the_shell_say() {
        let ts = "TypeError [ERR_UNKNOWN_FILE_EXTENSION]: Unknown file extension \".ts\" for /x/a.ts";
        assert_eq!(
            likely_fix(ts).as_deref(),
            Some(
                "node says ERR_UNKNOWN_FILE_EXTENSION \".ts\": use node ≥ 22.6 or install tsx \
                 (give the reader as NAME=js:FILE, and bracewalk runs it either way)"
            )
        );
        let missing = "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'jsonrepair' imported from /x/a.mjs";
        assert_eq!(
            likely_fix(missing).as_deref(),
            Some("node cannot find the package jsonrepair: install it where the extractor is (npm install jsonrepair)")
        );
        let py = "ModuleNotFoundError: No module named 'json_repair.x'";
        assert!(likely_fix(py).unwrap().contains("python3 -m pip install json_repair)"));
        assert!(likely_fix("sh: 1: nodee: not found").unwrap().contains("on PATH"));
        assert!(likely_fix("ReferenceError: require is not defined in ES module scope").unwrap().contains(".cjs"));
        assert_eq!(likely_fix("Error: boom"), None);
    }

    #[test]
    fn the_tail_is_the_last_lines_that_hold_something() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("r.log");
        let mut text = "x\n".repeat(20_000);
        text.push_str("one\n\n  two\u{1b}\n    at f (file:///x.mjs:1:1)\n\n");
        std::fs::write(&log, text).unwrap();
        assert_eq!(tail(&log, 3), ["x", "one", "  two␛"]);
        assert!(tail(&dir.path().join("none.log"), 3).is_empty());
    }
}
