//! The docs stay true: the README opens with the two commands a newcomer runs, and they do
//! what it says; every relative link of the docs reaches a file, and every `#anchor` a heading
//! of it (as GitHub makes anchors of headings); every file of the project the docs name in
//! backticks is there.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::support::binary::{bracewalk, stdout};

/// The Markdown a reader of the project is sent to.
const DOCS: [&str; 6] = [
    "README.md",
    "CONTRIBUTING.md",
    "docs/GUIDE.md",
    "docs/PERFORMANCE.md",
    "sample-logs/README.md",
    "tests/golden/README.md",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The lines outside fenced code blocks, with their numbers (from 1).
fn prose(markdown: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in markdown.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push((i + 1, line));
        }
    }
    out
}

/// The fenced code blocks, in order.
fn blocks(markdown: &str) -> Vec<Vec<&str>> {
    let mut out = Vec::new();
    let mut block: Option<Vec<&str>> = None;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            match block.take() {
                Some(b) => out.push(b),
                None => block = Some(Vec::new()),
            }
        } else if let Some(b) = &mut block {
            b.push(line);
        }
    }
    out
}

/// A line with its code spans left out, so that `[` `]` in a table of keys is no link.
fn without_code(line: &str) -> String {
    line.split('`').step_by(2).collect::<Vec<_>>().join(" ")
}

/// The anchors GitHub gives the headings of `markdown`: lower case, letters, digits, `-` and
/// `_` kept, spaces made `-`, everything else dropped; a repeated one numbered `-1`, `-2`.
fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for (_, line) in prose(markdown) {
        let Some(heading) = line.strip_prefix('#') else { continue };
        let text = heading.trim_start_matches('#').trim();
        let slug: String = text
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect();
        let mut anchor = slug.clone();
        let mut n = 0;
        while seen.contains(&anchor) {
            n += 1;
            anchor = format!("{slug}-{n}");
        }
        seen.insert(anchor);
    }
    seen
}

/// Every `[text](target)` of the prose, with its line.
fn links(markdown: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in prose(markdown) {
        let line = without_code(line);
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            out.push((n, after[..end].to_owned()));
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn the_readme_opens_with_the_two_commands() {
    let readme = read(&root().join("README.md"));
    let first = blocks(&readme).into_iter().next().expect("a code block");
    let commands: Vec<&str> = first.iter().map(|l| l.split(" #").next().unwrap().trim()).collect();
    assert_eq!(commands, ["cargo run --release -- sample-logs", "cargo test"], "the README's first block");
    // On the first screen: the title, then the commands.
    let opening = readme.lines().position(|l| l.starts_with("```")).unwrap();
    assert!(opening <= 3, "the commands open the README (line {})", opening + 1);
}

#[test]
fn the_readmes_commands_do_what_it_says() {
    // `cargo run` runs the inspector, the binary this package builds, on the path given.
    let manifest = read(&root().join("Cargo.toml"));
    assert!(manifest.lines().any(|l| l.trim() == r#"default-run = "bracewalk""#), "cargo run runs bracewalk");
    // `sample-logs` is there, and what the inspector is given there holds replies.
    let listed = bracewalk(&["list", "--json", root().join("sample-logs").to_str().unwrap()]);
    let replies = stdout(&listed).lines().filter(|l| l.contains(r#""id":"#)).count();
    assert!(replies > 100, "sample-logs/ lists {replies} replies");
    // CI runs exactly the test command the README gives.
    let ci = read(&root().join(".ci/run"));
    assert!(
        ci.lines().any(|l| !l.trim_start().starts_with('#') && l.trim_end().ends_with(" cargo test")),
        ".ci/run runs `cargo test`"
    );
}

#[test]
fn every_relative_link_and_anchor_of_the_docs_is_there() {
    let mut broken = Vec::new();
    let mut count = 0;
    for doc in DOCS {
        let path = root().join(doc);
        let text = read(&path);
        for (line, target) in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            count += 1;
            let (file, anchor) = target.split_once('#').map_or((target.as_str(), None), |(f, a)| (f, Some(a)));
            let file = if file.is_empty() { path.clone() } else { path.parent().unwrap().join(file) };
            if !file.exists() {
                broken.push(format!("{doc}:{line}: {target}: no such file"));
            } else if let Some(anchor) = anchor
                && !anchors(&read(&file)).contains(anchor)
            {
                broken.push(format!("{doc}:{line}: {target}: no such heading"));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(count > 40, "only {count} links found: is the link syntax still read right?");
}

#[test]
fn every_file_the_docs_name_is_there() {
    let mut missing = Vec::new();
    for doc in DOCS {
        for (line, text) in prose(&read(&root().join(doc))) {
            for span in text.split('`').skip(1).step_by(2) {
                let named = ["src/", "tests/", "examples/", "benches/", "fuzz/", "scripts/", "sample-logs/", "docs/"]
                    .iter()
                    .any(|top| span.starts_with(top));
                // `PATH:LINE` names a reply; `<target>`, `…` and `*` stand for any.
                let path = span.split(':').next().unwrap();
                if named && !path.contains(['<', '…', '*', ' ']) && !root().join(path).exists() {
                    missing.push(format!("{doc}:{line}: {span}"));
                }
            }
        }
    }
    assert!(missing.is_empty(), "the docs name files that are not there:\n{}", missing.join("\n"));
}

#[test]
fn anchors_are_made_as_github_makes_them() {
    let made =
        anchors("# A b\n## `scan --json`\n### The readers it compares (`--compare` keys)\n## A b\n```\n# not\n```\n");
    let want = ["a-b", "a-b-1", "scan---json", "the-readers-it-compares---compare-keys"];
    assert_eq!(made, want.iter().map(|s| (*s).to_owned()).collect());
}

/// A command line of the docs: where it is, and the line as a shell runs it (continuation
/// lines joined).
struct CommandLine {
    at: String,
    line: String,
}

/// The command lines of `markdown`: every line of its `sh` blocks, and the `$ ` lines of its
/// `text` blocks (a session shown with its prompt).
fn command_lines(doc: &str, markdown: &str) -> Vec<CommandLine> {
    let mut out = Vec::new();
    let mut block: Option<&str> = None;
    let mut pending = String::new();
    for (i, raw) in markdown.lines().enumerate() {
        let at = format!("{doc}:{}", i + 1);
        if let Some(fence) = raw.trim_start().strip_prefix("```") {
            block = if block.is_some() { None } else { Some(if fence.is_empty() { "text" } else { fence }) };
            continue;
        }
        let line = match block {
            Some("sh") => raw,
            Some("text") => match raw.strip_prefix("$ ") {
                Some(command) => command,
                None => continue,
            },
            _ => continue,
        };
        match line.strip_suffix('\\') {
            Some(start) => pending.push_str(start),
            None => {
                pending.push_str(line);
                let joined = std::mem::take(&mut pending);
                if !joined.trim().is_empty() && !joined.trim_start().starts_with('#') {
                    out.push(CommandLine { at, line: joined.trim().to_owned() });
                }
            }
        }
    }
    out
}

/// The command lines of the man page's examples (`.EX` … `.EE`), unescaped from roff.
fn man_command_lines(roff: &str) -> Vec<CommandLine> {
    let mut out = Vec::new();
    let mut inside = false;
    for (i, line) in roff.lines().enumerate() {
        match line {
            ".EX" => inside = true,
            ".EE" => inside = false,
            _ if inside => {
                let unescaped =
                    line.trim_start_matches(r"\&").replace(r"\*(Aq", "'").replace(r"\-", "-").replace(r"\\", r"\");
                out.push(CommandLine { at: format!("bracewalk man:{}", i + 1), line: unescaped });
            }
            _ => {}
        }
    }
    out
}

/// What a command line needs beside the binary, if anything, and whether it is here: node
/// for `js:`, a TypeScript runner for a `.ts` file, python3 for `py:`.
fn needs(line: &str) -> Option<(&'static str, bool)> {
    if line.contains("js:") && line.contains(".ts") {
        let node_new = std::process::Command::new("node").arg("--version").output().ok().is_some_and(|o| {
            let v = String::from_utf8_lossy(&o.stdout);
            let mut parts = v.trim().trim_start_matches('v').split('.').map(|p| p.parse::<u32>().unwrap_or(0));
            (parts.next().unwrap_or(0), parts.next().unwrap_or(0)) >= (22, 6)
        });
        let tsx = std::process::Command::new("tsx").arg("--version").output().is_ok_and(|o| o.status.success());
        return Some(("node ≥ 22.6 or tsx", node_new || tsx));
    }
    if line.contains("js:") {
        return Some(("node", crate::support::tools::NODE.present()));
    }
    if line.contains("py:") {
        return Some(("python3", crate::support::tools::PYTHON3.present()));
    }
    None
}

/// A clone's files the docs' command lines use: the sample logs, the examples, and the
/// readers of the tests the guide shows.
fn clone_into(to: &Path) {
    for dir in ["sample-logs", "examples", "tests/readers"] {
        crate::support::tree::copy(&root().join(dir), &to.join(dir));
    }
}

/// Every command line of the README, the guide and the man page runs in a clone, as a shell
/// runs it, with `bracewalk` on the PATH and a home of its own (so the install lines work on a
/// fresh one): none exits with an error, and a line whose comment gives its output (`#
/// {"a":2}`) prints it. What is not bracewalk's is left to what checks it: `cargo` (the
/// README's two commands above; `cargo install` builds what `cargo test` built) and `git`.
#[test]
fn every_command_line_of_the_docs_runs_in_a_clone() {
    let man = bracewalk(&["man"]);
    assert_eq!(man.status.code(), Some(0));
    let mut lines = Vec::new();
    for doc in ["README.md", "docs/GUIDE.md"] {
        lines.extend(command_lines(doc, &read(&root().join(doc))));
    }
    let from_man = man_command_lines(&stdout(&man));
    assert!(from_man.len() >= 5, "the man page has its examples: {}", from_man.len());
    lines.extend(from_man);
    assert!(lines.len() > 25, "only {} command lines found: are the blocks still read right?", lines.len());

    let dir = tempfile::tempdir().unwrap();
    let clone = dir.path().join("clone");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    clone_into(&clone);
    let bin = Path::new(env!("CARGO_BIN_EXE_bracewalk")).parent().unwrap().to_path_buf();
    let path =
        std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())))
            .unwrap();
    let manifest = read(&root().join("Cargo.toml"));
    let mut ran = 0;
    let mut shrinking: Option<String> = None;
    for CommandLine { at, line } in &lines {
        let first = line.split_whitespace().next().unwrap_or("");
        if first == "cargo" {
            // The campaign the guide's rounds example reads: what the example writes, written
            // here (under the test's own directory) without building the example.
            if let Some(to) = line.strip_prefix("cargo run --example corpus -- shrinking ") {
                shrinking = Some(to.trim().to_string());
                crate::support::campaign::write_shrinking(&dir.path().join("shrinking")).unwrap();
            }
            if line.starts_with("cargo install") {
                assert!(root().join("Cargo.lock").exists() && manifest.contains("[[bin]]"), "{at}: {line}");
            }
            continue;
        }
        if first == "git" {
            continue;
        }
        if let Some((what, here)) = needs(line)
            && !here
        {
            crate::support::tools::missing(what, &format!("{at}: {line}"));
            continue;
        }
        let line = match &shrinking {
            Some(to) => line.replace(to.as_str(), &dir.path().join("shrinking").display().to_string()),
            None => line.clone(),
        };
        let out = std::process::Command::new("sh")
            .args(["-c", &line])
            .current_dir(&clone)
            .env_clear()
            .env("PATH", &path)
            .env("HOME", &home)
            .env("NO_COLOR", "1")
            .envs(
                std::env::vars_os()
                    .filter(|(k, _)| ["NODE_PATH", "PYTHONPATH", "TMPDIR", "LANG"].contains(&k.to_str().unwrap_or(""))),
            )
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(matches!(out.status.code(), Some(0 | 1)), "{at}: `{line}` exited {:?}:\n{err}", out.status.code());
        assert!(!err.contains("command not found") && !err.contains("not found"), "{at}: `{line}`:\n{err}");
        // A comment that is a JSON value is the output the line prints.
        if let Some(said) = line.split(" # ").nth(1).map(str::trim).filter(|c| c.starts_with(['{', '['])) {
            assert_eq!(stdout(&out).trim_end(), said, "{at}: `{line}`");
        }
        ran += 1;
    }
    assert!(ran > 15, "only {ran} command lines ran");
    // The install lines made what man and the shells look for, on a home that had none.
    for installed in [
        ".local/share/man/man1/bracewalk.1",
        ".local/share/bash-completion/completions/bracewalk",
        ".config/fish/completions/bracewalk.fish",
        ".zfunc/_bracewalk",
    ] {
        let file = home.join(installed);
        assert!(file.metadata().is_ok_and(|m| m.len() > 100), "{} was written", file.display());
    }
}

/// The man page writes every page it names (it is one page, and names no other), and its
/// ENVIRONMENT gives every variable the code reads.
#[test]
fn the_man_page_names_no_page_it_does_not_write_and_every_variable_read() {
    let man = stdout(&bracewalk(&["man"]));
    for section in [".SH COMMANDS", ".SH KEYS", ".SH ENVIRONMENT", ".SH FILES", ".SH \"EXIT STATUS\"", ".SH EXAMPLES"] {
        assert!(man.contains(section), "the man page has {section}");
    }
    let pointer = regex::Regex::new(r"[a-z]\\-[a-z]+\(\d\)").unwrap();
    assert!(!pointer.is_match(&man), "no page is pointed at: {:?}", pointer.find(&man));
    for sub in ["extract", "explain", "list", "scan", "marks", "completions", "man"] {
        assert!(man.contains(&format!(".SS \"bracewalk {sub}\"")), "the man page gives `bracewalk {sub}`");
    }
    // Every key of the key table, as the help screen gives it.
    for (_, rows) in bracewalk::tui::keymap::TABLES {
        for binding in rows {
            let roff = binding.what.replace('\\', "\\\\").replace('-', "\\-").replace('\'', "\\*(Aq");
            assert!(man.contains(&roff), "the man page's keys give {:?}", binding.what);
        }
    }
    let environment = man.split(".SH ENVIRONMENT").nth(1).unwrap().split(".SH FILES").next().unwrap();
    let mut variables = std::collections::BTreeSet::new();
    let names = regex::Regex::new(r#"(?:var|var_os)\("([A-Z][A-Z0-9_]+)"\)|_VAR: &str = "([A-Z][A-Z0-9_]+)""#).unwrap();
    let mut sources = vec![root().join("src")];
    while let Some(dir) = sources.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                sources.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = read(&path);
                for c in names.captures_iter(&text) {
                    variables.insert(c.get(1).or(c.get(2)).unwrap().as_str().to_owned());
                }
                if text.contains("temp_dir()") {
                    variables.insert("TMPDIR".to_owned());
                }
            }
        }
    }
    assert!(variables.len() >= 10, "the variables read: {variables:?}");
    for name in &variables {
        assert!(
            environment.contains(&format!("\\fB{name}")) || environment.contains(&format!(", {name}")),
            "ENVIRONMENT gives {name}"
        );
    }
}
