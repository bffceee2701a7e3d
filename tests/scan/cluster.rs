//! The Dask recipe (`examples/cluster/dask_scan.py`) run as a user runs it, on a LocalCluster of
//! two workers over a generated campaign, with the first run of one shard's scan killed: the
//! task is run again, and the merge prints one scan of the corpus, key for key.

// Helpers outside `#[test]` fns fail the test the same way an assertion does.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

use serde_json::Value as Json;

use crate::support::binary::{BIN, state_dir};
use crate::support::campaign::{Shape, write_campaign};
use crate::support::tools::{DASK, PYTHON3};

const RECIPE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/cluster/dask_scan.py");

/// What a scan printed as JSON, without what says when it ran and how long it took.
fn untimed(stdout: &[u8]) -> Json {
    let mut json: Json = serde_json::from_slice(stdout).unwrap();
    for k in ["elapsed_seconds", "replies_per_second", "bytes_per_second"] {
        assert!(json.as_object_mut().unwrap().remove(k).is_some(), "{k}");
    }
    // The command's own whole time, which a merge of shards made by several has not.
    for k in ["wall_seconds", "readers_seconds"] {
        json.as_object_mut().unwrap().remove(k);
    }
    json["manifest"].as_object_mut().unwrap().remove("started");
    json
}

#[test]
fn the_dask_recipe_merges_to_one_scan_with_a_scan_killed_once() {
    if !PYTHON3.needed_by("the Dask recipe") || !DASK.needed_by("the Dask recipe") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let shape = Shape { rounds: 2, documents: 3, replies: 8, sizes: (300, 12_000), ..Shape::default() };
    write_campaign(&cwd.join("corpus"), &shape).unwrap();
    // The scan of part 2 killed the first time it runs, as a node's OOM killer would.
    let wrapper = cwd.join("bracewalk.sh");
    std::fs::write(
        &wrapper,
        "#!/bin/sh\ncase \" $* \" in *\" --shard 2/\"*)\n  if mkdir \"$MARK\" 2>/dev/null; then\n    \"$BW\" \"$@\" & pid=$!\n    kill -9 \"$pid\"\n    wait \"$pid\"\n    exit $?\n  fi;;\nesac\nexec \"$BW\" \"$@\"\n",
    )
    .unwrap();
    #[cfg(unix)]
    std::fs::set_permissions(&wrapper, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mark = cwd.join("killed-once");
    let shards = cwd.join("shards");
    let recipe = Command::new("python3")
        .args([RECIPE, "--shards", "4", "--workers", "2", "--out", "shards", "--root", "corpus"])
        .args(["--bracewalk", wrapper.to_str().unwrap(), "--merge-options", "--json --list", "corpus"])
        .current_dir(cwd)
        .env("BW", BIN)
        .env("MARK", &mark)
        .env("BRACEWALK_STATE_DIR", state_dir())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&recipe.stderr);
    assert!(mark.is_dir(), "the scan of part 2 was killed: {err}");
    assert!(err.contains("exited -9") || err.contains("exited 137"), "and its task failed, and ran again: {err}");
    assert_eq!(recipe.status.code(), Some(0), "{err}");
    let written: Vec<String> = std::fs::read_dir(&shards)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    assert_eq!(written.len(), 4, "{written:?}");

    let one = Command::new(BIN)
        .args(["scan", "--root", "corpus", "corpus", "--json", "--list"])
        .current_dir(cwd)
        .env("BRACEWALK_STATE_DIR", state_dir())
        .output()
        .unwrap();
    let (merged, one) = (untimed(&recipe.stdout), untimed(&one.stdout));
    assert!(one["replies"].as_u64().unwrap() > 40, "{}", one["replies"]);
    let keys = |j: &Json| j.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&merged), keys(&one));
    for key in keys(&one) {
        assert_eq!(merged[&key], one[&key], "{key}");
    }
    assert!(!Path::new(&cwd.join("corpus")).join("shards").exists(), "nothing written into the corpus");
}
