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
