//! An extractor's module is imported as a module, never run as the program: an ES module, a
//! CommonJS module and a Python module, each a program too, with the main guards such
//! programs use (`import.meta.url === pathToFileURL(process.argv[1]).href`,
//! `require.main === module`, `__name__ == "__main__"`, and what `process.argv` and
//! `sys.argv` say), write a file when one of them holds. Run directly they write it (the
//! guards are real); as `js:` and `py:` readers they do not, and their extractor answers.
//!
//! Needs node and python3 (`.ci/run` has them).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::Command;

use crate::support::binary::{BIN, state_dir};
use crate::support::tools::{NODE, PYTHON3, Tool};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/readers").join(name)
}

/// What the module wrote when `program` ran it directly, then when bracewalk read a reply
/// with it as reader `definition`; and what bracewalk printed.
fn run_both(program: &str, file: &str, definition: &str) -> (String, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let mark = dir.path().join("ran");
    let direct = Command::new(program).arg(fixture(file)).env("BRACEWALK_TEST_MARK", &mark).output().unwrap();
    assert!(direct.status.success(), "{program} {file}: {}", String::from_utf8_lossy(&direct.stderr));
    let as_program = std::fs::read_to_string(&mark).unwrap_or_default();
    std::fs::remove_file(&mark).unwrap_or_default();
    let reply = dir.path().join("reply.txt");
    std::fs::write(&reply, "Here: {\"a\": [1, 2]} done").unwrap();
    let out = Command::new(BIN)
        .args(["extract", "--reader", &format!("mine={definition}"), reply.to_str().unwrap()])
        .env("BRACEWALK_TEST_MARK", &mark)
        .env("BRACEWALK_STATE_DIR", state_dir())
        .output()
        .unwrap();
    assert!(out.status.success(), "{definition}: {}", String::from_utf8_lossy(&out.stderr));
    let as_module = std::fs::read_to_string(&mark).unwrap_or_default();
    (as_program, as_module, String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn check(tool: &Tool, program: &str, file: &str, prefix: &str, guards: &[&str]) {
    if !tool.needed_by("an extractor's module imported, not run") {
        return;
    }
    let (as_program, as_module, printed) = run_both(program, file, &format!("{prefix}{}", fixture(file).display()));
    let fired: Vec<&str> = as_program.lines().collect();
    assert_eq!(fired, guards, "{file} run directly: the guards that hold for a program");
    assert_eq!(as_module, "", "{file} read by bracewalk ran as the program");
    assert_eq!(printed, r#"{"a":[1,2]}"#, "{file}: its extractor answers");
}

#[test]
fn an_es_module_is_imported_not_run() {
    // `import.meta.main` is node 24's; before it, only the two argv guards hold.
    let out = Command::new("node").args(["-p", "process.versions.node.split('.')[0]"]).output();
    let major: u32 = out.map(|o| String::from_utf8_lossy(&o.stdout).trim().parse().unwrap_or(0)).unwrap_or(0);
    let guards: &[&str] = if major >= 24 {
        &["import.meta.url", "process.argv[1]", "import.meta.main"]
    } else {
        &["import.meta.url", "process.argv[1]"]
    };
    check(&NODE, "node", "main_guard.mjs", "js:", guards);
}

#[test]
fn a_commonjs_module_is_imported_not_run() {
    check(&NODE, "node", "main_guard.cjs", "js:", &["require.main", "process.argv[1]"]);
}

#[test]
fn a_python_module_is_imported_not_run() {
    check(&PYTHON3, "python3", "main_guard.py", "py:", &["__name__", "sys.argv[0]"]);
}
