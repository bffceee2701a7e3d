//! The follower under a bench that keeps writing, for a few seconds: logs rotated, truncated,
//! deleted and replaced while both followers watch, after which each lists exactly what
//! `list` lists (`tests/support/soak.rs` says how). `benches/soak.rs` runs it longer.

use std::time::Duration;

use crate::support::soak::soak;

#[test]
fn the_inspector_lists_what_list_lists_while_logs_rotate_and_go() {
    let report = soak(Duration::from_secs(3));
    assert!(report.written.rotated > 0 && report.written.late > 0, "{:?}", report.written);
}
