//! `bracewalk extract --jsonl` through the binary, writing into a pipe as a pipeline's next
//! step reads it.

use std::io::Read;
use std::process::{Command, Stdio};

/// The batch's records come through a pipe whole and in order, and the pipe was given room
/// for a chunk of them (a megabyte, or what the system allows), not left at 64 KiB.
#[cfg(target_os = "linux")]
#[test]
fn the_pipe_it_writes_into_is_given_room_for_a_chunk_of_records() {
    use nix::fcntl::{FcntlArg, fcntl};

    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("replies.jsonl");
    let page = "<p>a \\\"quoted\\\" word</p>".repeat(400);
    let lines: String = (0..300)
        .map(|i| {
            format!("{{\"id\":\"r{i}\",\"text\":\"Thinking.\\n{{\\\"html\\\": \\\"{page}\\\", \\\"n\\\": {i}}}\"}}\n")
        })
        .collect();
    std::fs::write(&input, &lines).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_bracewalk"))
        .args(["extract", "--jsonl", input.to_str().unwrap(), "--keys", "id,extract_json"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdout.take().unwrap();
    let mut out = String::new();
    pipe.read_to_string(&mut out).unwrap();
    assert!(child.wait().unwrap().success());

    let records: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(records.len(), 300);
    for (i, r) in records.iter().enumerate() {
        assert_eq!(r["id"], format!("r{i}"));
        assert_eq!(r["extract_json"]["n"], i);
        assert_eq!(r["extract_json"]["html"].as_str().unwrap().len(), "<p>a \"quoted\" word</p>".len() * 400);
    }

    let allowed: usize = std::fs::read_to_string("/proc/sys/fs/pipe-max-size").unwrap().trim().parse().unwrap();
    let room = usize::try_from(fcntl(&pipe, FcntlArg::F_GETPIPE_SZ).unwrap()).unwrap();
    assert!(room >= allowed.min(1 << 20), "the pipe holds {room} bytes");
}
