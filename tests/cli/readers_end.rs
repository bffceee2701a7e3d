//! No reader of one's own outlives a command, whichever way the command ends: SIGINT (what
//! `timeout -s INT` and a terminal's Ctrl-C send), SIGTERM and SIGHUP while a reader that
//! never answers holds the scan; the end of `scan`, `extract` and `explain` with a reader
//! that leaves a process of its own behind; an error returned after a reader was started;
//! and bracewalk killed outright (SIGKILL), which nothing in it sees, after which the
//! watcher in the reader's group ends it. Each reader says which process group it runs in,
//! and no process of that group may be left.
//!
//! The readers are POSIX `sh`; the one that is an extractor function needs python3 (`.ci/run`
//! has it).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::support::binary::BIN;
use crate::support::groups::{self, assert_gone, assert_running, group_in};
use crate::support::tools::PYTHON3;

/// Generous: the machine running the tests may be small and busy.
const DEADLINE: Duration = Duration::from_secs(20);
/// How long a group may take to go once bracewalk has.
const GONE: Duration = Duration::from_secs(5);

const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-logs");

struct Place {
    dir: tempfile::TempDir,
}

impl Place {
    fn new() -> Place {
        Place { dir: tempfile::tempdir().unwrap() }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `bracewalk ARGS`, started, its output thrown away.
    fn start(&self, args: &[&str]) -> Child {
        Command::new(BIN)
            .args(args)
            .env("BRACEWALK_STATE_DIR", self.path("state"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    }
}

fn signal(child: &Child, signal: &str) {
    let sent = Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap();
    assert!(sent.success(), "kill {signal}");
}

/// `scan` with a reader that never answers, stopped by `sig` once the reader runs: it ends by
/// the signal, and the reader's group with it.
fn scan_stopped_by(sig: &str, number: i32) {
    let place = Place::new();
    let file = place.path("group");
    let reader = format!("slow={}", groups::stuck_reader(&file));
    let mut scan = place.start(&["scan", "--reader", &reader, SAMPLES]);
    let group = group_in(&file, DEADLINE);
    assert_running(group);
    signal(&scan, sig);
    let status = scan.wait().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(number), "scan ends by the signal, as without readers: {status:?}");
    assert_gone(group, GONE, sig);
}

#[test]
fn sigint_ends_the_scan_and_its_readers() {
    scan_stopped_by("-INT", 2);
}

#[test]
fn sigterm_ends_the_scan_and_its_readers() {
    scan_stopped_by("-TERM", 15);
}

#[test]
fn sighup_ends_the_scan_and_its_readers() {
    scan_stopped_by("-HUP", 1);
}

/// Runs `args` (with `{READER}` replaced by a reader that answers and leaves a process of
/// its own) to its end: the reader's group is gone.
fn ends_with_its_readers(args: &[&str]) {
    let place = Place::new();
    let file = place.path("group");
    let reader = format!("lingers={}", groups::lingering_reader(&file));
    let args: Vec<&str> = args.iter().map(|a| if *a == "{READER}" { reader.as_str() } else { a }).collect();
    let status = place.start(&args).wait().unwrap();
    assert!(status.code().is_some(), "{args:?} ended by itself: {status:?}");
    let group = group_in(&file, DEADLINE);
    assert_gone(group, GONE, &args.join(" "));
}

#[test]
fn the_end_of_a_scan_ends_its_readers() {
    ends_with_its_readers(&["scan", "--reader", "{READER}", SAMPLES]);
}

#[test]
fn the_end_of_extract_and_explain_ends_their_readers() {
    let reply = Path::new(SAMPLES).join("bad/good-reply.txt");
    let reply = reply.to_str().unwrap();
    assert!(Path::new(reply).is_file(), "{reply}");
    ends_with_its_readers(&["extract", "--reader", "{READER}", reply]);
    ends_with_its_readers(&["explain", "--reader", "{READER}", reply]);
}

/// An extractor function whose module, as it loads, writes its group's id beside it and
/// starts a process of its own, and which then sleeps on every reply.
const SLEEPY: &str = "import os, subprocess, sys, time\n\
                      open(os.path.join(os.path.dirname(__file__), 'group'), 'w').write(str(os.getpgid(0)))\n\
                      subprocess.Popen(['sleep', '1000'])\n\
                      def extract(text):\n    time.sleep(1000)\n";

#[test]
fn an_error_after_a_reader_started_ends_it() {
    if !PYTHON3.needed_by("an extractor function started before an error") {
        return;
    }
    let place = Place::new();
    std::fs::write(place.path("sleepy.py"), SLEEPY).unwrap();
    let reader = format!("sleepy=py:{}", place.path("sleepy.py").display());
    // The reader is started, to say whether it loads; then --compare names no reader.
    let out = Command::new(BIN)
        .args(["scan", "--reader", &reader, "--compare", "nope", SAMPLES])
        .env("BRACEWALK_STATE_DIR", place.path("state"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--compare \"nope\""));
    let group = group_in(&place.path("group"), DEADLINE);
    assert_gone(group, GONE, "an error returned");
}

#[test]
fn a_killed_bracewalk_leaves_no_reader_behind() {
    let place = Place::new();
    let file = place.path("group");
    let reader = format!("slow={}", groups::stuck_reader(&file));
    let mut scan = place.start(&["scan", "--reader", &reader, SAMPLES]);
    let group = group_in(&file, DEADLINE);
    assert_running(group);
    signal(&scan, "-KILL");
    scan.wait().unwrap();
    // Nothing in bracewalk ran: the watcher in the group ends it, within a second or two.
    assert_gone(group, GONE, "SIGKILL");
}
