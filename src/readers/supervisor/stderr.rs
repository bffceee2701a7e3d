//! What a reader's stderr says when it fails: its last lines, and the likely fix for what
//! node, Python or the shell said there. The cause of a failure is nearly always in the
//! last lines of the log, and nearly always one of a few; saying the fix beside the failure
//! spares the user the log.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

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

/// The likely fix for what `said` (an error, a log's last lines) says went wrong, for an
/// extractor in `file` (where it is a file); `None` where it is none of the causes known.
pub fn likely_fix(said: &str, file: Option<&Path>) -> Option<String> {
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
        return Some(node_missing(&package, file));
    }
    if let Some(specifier) = quoted_after(said, "Package import specifier ") {
        return Some(format!(
            "node cannot resolve {specifier}: no \"imports\" of the extractor's package.json defines it; \
             define it there, or stub it"
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
        return Some(python_missing(&module, file));
    }
    if said.contains("command not found") || said.contains(": not found") {
        return Some("the shell cannot find the command: check that it is installed and on PATH".to_owned());
    }
    None
}

/// What to do about a package node cannot find, `package` as node names it (`$lib`,
/// `@scope/name`): a name that cannot be published is a bundler's alias; a name the
/// extractor's project holds (its package.json's name, a directory at its root) is its own
/// code; only what is left is offered to install.
fn node_missing(package: &str, file: Option<&Path>) -> String {
    if !publishable(package) {
        return format!(
            "node cannot find {package}, which is no package's name but an alias the extractor's bundler or \
             tsconfig paths resolve (`$lib` in SvelteKit, `@/` in Vite or Next, `~/`): node does not; \
             stub it, or run the extractor as its project builds it"
        );
    }
    let above = ancestors(file);
    let top = package.split('/').next().unwrap_or(package);
    if let Some(root) = above.iter().find(|d| package_name(d).as_deref() == Some(package)) {
        return format!(
            "node cannot find {package}, the extractor's own package (its package.json, in {}): \
             node resolves a package by its own name only through an \"exports\" field; import it by its path, or stub it",
            root.display()
        );
    }
    if !package.starts_with('@')
        && let Some(root) = above.iter().find(|d| d.join(top).is_dir() && !d.join("node_modules").join(top).exists())
    {
        return format!(
            "node cannot find {package}, a directory of the extractor's project ({}), which its bundler or \
             tsconfig baseUrl resolves: node does not; set NODE_PATH={} (for require), import it by its path, or stub it",
            root.join(top).display(),
            root.display()
        );
    }
    format!("node cannot find the package {package}: install it where the extractor is (npm install {package})")
}

/// What to do about a module Python cannot import: a module of the extractor's own project
/// (a directory or file of that name beside it or above it) is found from the project's
/// root; any other is offered to install.
fn python_missing(module: &str, file: Option<&Path>) -> String {
    let top = module.split('.').next().unwrap_or(module);
    let holds = |d: &Path| d.join(top).is_dir() || d.join(format!("{top}.py")).is_file();
    let above = ancestors(file);
    let root = above.iter().find(|d| holds(d)).cloned().or_else(|| {
        // The extractor is inside the package: its parent is the root.
        above.iter().find(|d| d.file_name().is_some_and(|n| n == top)).and_then(|d| d.parent().map(Path::to_path_buf))
    });
    if let Some(root) = root {
        return format!(
            "Python cannot import {module}: {top} is the extractor's own code (in {}), not a published package; \
             run bracewalk from {} or set PYTHONPATH={}, or stub it",
            root.display(),
            root.display(),
            root.display()
        );
    }
    if !top.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return format!("Python cannot import {module}: no package is named so; stub it");
    }
    format!(
        "Python cannot import {module}: if it is a published package, install it for the Python that runs the \
         reader (python3 -m pip install {top}), or set $BRACEWALK_PYTHON to the Python that has it (a virtualenv's \
         bin/python); if it is the extractor's own code, set PYTHONPATH to the directory that holds {top}"
    )
}

/// Whether npm would take `name` as a new package's name: lowercase letters, digits, `-`,
/// `.` and `_`, not starting with `.` or `_`, optionally under a `@scope/`.
fn publishable(name: &str) -> bool {
    let part = |p: &str| {
        !p.is_empty()
            && !p.starts_with(['.', '_'])
            && p.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'-' | b'.' | b'_'))
    };
    match name.strip_prefix('@') {
        Some(scoped) => scoped.split_once('/').is_some_and(|(scope, n)| part(scope) && part(n)),
        None => name.len() <= 214 && part(name),
    }
}

/// The `name` of the package.json in `dir`, if there is one.
fn package_name(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join("package.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json.get("name")?.as_str().map(str::to_owned)
}

/// The directories above `file` (its own first), then the working directory and those
/// above it, short of the file system's root: where the extractor's project may be.
fn ancestors(file: Option<&Path>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let from_file = file.and_then(Path::parent).map(Path::to_path_buf);
    for start in [from_file, std::env::current_dir().ok()].into_iter().flatten() {
        for d in start.ancestors().filter(|d| d.parent().is_some()) {
            if !out.iter().any(|o| o == d) {
                out.push(d.to_path_buf());
            }
        }
    }
    out
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
            likely_fix(ts, None).as_deref(),
            Some(
                "node says ERR_UNKNOWN_FILE_EXTENSION \".ts\": use node ≥ 22.6 or install tsx \
                 (give the reader as NAME=js:FILE, and bracewalk runs it either way)"
            )
        );
        let missing = "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'jsonrepair' imported from /x/a.mjs";
        assert_eq!(
            likely_fix(missing, None).as_deref(),
            Some("node cannot find the package jsonrepair: install it where the extractor is (npm install jsonrepair)")
        );
        let py = "ModuleNotFoundError: No module named 'json_repair.x'";
        assert!(likely_fix(py, None).unwrap().contains("python3 -m pip install json_repair)"));
        assert!(likely_fix("sh: 1: nodee: not found", None).unwrap().contains("on PATH"));
        let cjs = "ReferenceError: require is not defined in ES module scope";
        assert!(likely_fix(cjs, None).unwrap().contains(".cjs"));
        assert_eq!(likely_fix("Error: boom", None), None);
    }

    fn node(package: &str, file: &Path) -> String {
        let said = format!("Error [ERR_MODULE_NOT_FOUND]: Cannot find package '{package}' imported from /x/a.mjs");
        likely_fix(&said, Some(file)).unwrap()
    }

    fn python(module: &str, file: &Path) -> String {
        likely_fix(&format!("ModuleNotFoundError: No module named '{module}'"), Some(file)).unwrap()
    }

    /// A name of the extractor's own project, or a bundler's alias, is not offered to
    /// install: what it likely is is said, and what to do instead.
    #[test]
    fn what_is_the_extractors_own_is_not_offered_to_install() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("app/models")).unwrap();
        std::fs::create_dir_all(root.join("scripts")).unwrap();
        std::fs::create_dir_all(root.join("web/src/lib")).unwrap();
        std::fs::write(root.join("web/package.json"), r#"{"name": "my-site"}"#).unwrap();
        let py_file = root.join("scripts/extract.py");
        let inside = root.join("app/models/extract.py");
        let js_file = root.join("web/src/lib/extract.mjs");
        let shown = root.display().to_string();

        // Python: `from app.models import …` from a script beside the package, or inside it.
        for file in [&py_file, &inside] {
            let fix = python("app.models", file);
            assert!(!fix.contains("pip install"), "{fix}");
            assert!(fix.contains(&format!("run bracewalk from {shown} or set PYTHONPATH={shown}")), "{fix}");
            assert!(fix.contains("stub it"), "{fix}");
        }
        // A module nowhere in the project is offered to install, and the other way too.
        let fix = python("json_repair", &py_file);
        assert!(fix.contains("python3 -m pip install json_repair") && fix.contains("PYTHONPATH"), "{fix}");

        // node: bundler aliases are no package's name.
        for alias in ["$", "$lib", "@/utils", "~"] {
            let fix = node(alias, &js_file);
            assert!(!fix.contains("npm install"), "{alias}: {fix}");
            assert!(fix.contains("alias") && fix.contains("stub it"), "{alias}: {fix}");
        }
        // The extractor's own package, by its package.json's name.
        let fix = node("my-site", &js_file);
        assert!(!fix.contains("npm install") && fix.contains("own package"), "{fix}");
        // A directory of its project, imported as a tsconfig baseUrl lets one.
        let fix = node("src", &js_file);
        assert!(!fix.contains("npm install"), "{fix}");
        assert!(fix.contains(&format!("NODE_PATH={shown}/web")), "{fix}");
        // A name that can be published and is nowhere in the project: install it.
        assert!(node("@scope/pkg", &js_file).ends_with("(npm install @scope/pkg)"));
        assert!(node("leftpad", &js_file).ends_with("(npm install leftpad)"));
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
