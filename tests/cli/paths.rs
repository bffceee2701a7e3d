//! A path that cannot be read is an error, never an empty corpus: every command names it and
//! why on stderr and exits 2, reading nothing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::{Command, Output};

use crate::support::binary::{BIN, bracewalk, state_dir, stdout};

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `out` failed as it should on `path`: nothing on stdout, exit 2, and stderr naming it.
fn refused(what: &str, out: &Output, said: &str) {
    assert_eq!(out.status.code(), Some(2), "{what}: {}", stderr(out));
    assert_eq!(stdout(out), "", "{what} reads nothing");
    assert_eq!(stderr(out), format!("bracewalk: {said}\n"), "{what}");
}

#[test]
fn a_path_that_does_not_exist_is_an_error_for_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("smaple-logs");
    let m = missing.to_str().unwrap();
    let said = format!("{m}: no such file or directory");
    for args in [
        vec!["scan", m],
        vec!["scan", "--json", m],
        vec!["list", m],
        vec!["list", "--json", m],
        // The inspector says so before it takes the terminal, and does not open on nothing.
        vec![m],
        vec!["--no-watch", m],
    ] {
        refused(&args.join(" "), &bracewalk(&args), &said.replace(m, args.last().unwrap()));
    }
    // With a good path beside it, it is still an error: a typo is not a smaller corpus.
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-logs/formats/replies");
    refused("scan GOOD BAD", &bracewalk(&["scan", samples.to_str().unwrap(), m]), &said);
}
