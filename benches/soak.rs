//! The soak of the inspector's tests (`tests/support/soak.rs`), run for as long as asked: a
//! bench writing over 100 replies a second while its logs rotate, are truncated, deleted and
//! replaced, after which both followers must list what `list` lists. Prints what was written
//! and how long each follower took to agree once the writer stopped.
//!
//! ```text
//! BRACEWALK_SOAK_SECONDS=60 cargo bench --bench soak   # 30 s by default
//! ```

// The soak fails as a test does, by an assertion, an unwrap or a panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::time::Duration;

use support::soak::{BURST, soak};

fn main() {
    let seconds: u64 = std::env::var("BRACEWALK_SOAK_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(30);
    let report = soak(Duration::from_secs(seconds));
    let w = &report.written;
    println!(
        "soak: {:.1} s of writing, {} replies ({:.0}/s), {} in two pieces; {} logs rotated by rename ({} written \
         late through the old handle), {} copied and truncated, {} deleted, {} replaced atomically, {} documents \
         and {} rounds begun, a burst of {} files",
        w.seconds,
        w.replies,
        w.replies as f64 / w.seconds,
        w.pieces,
        w.rotated,
        w.late,
        w.copied,
        w.deleted,
        w.replaced,
        w.documents,
        w.rounds,
        BURST
    );
    for (mode, listed, took) in &report.agreed {
        println!("soak: {mode:?} listed {listed} replies, as list does, {took:.2} s after the writer stopped");
    }
}
