//! How long a keystroke takes on a campaign of 10,000 replies: `update` and a full
//! `render` into a 160×50 `TestBackend`, per key, after every reply is loaded and
//! summarized; and how long a batch of replies takes to apply during a flood. Measurements,
//! not checks: each prints its median, 90th percentile and worst.
//!
//! ```text
//! cargo bench --bench latency           # both
//! cargo bench --bench latency -- keys   # the keystrokes alone; `flood` the batches alone
//! ```

// A measurement fails as a test does, by an unwrap or a panic, in the fixtures it shares
// with the tests.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use bracewalk::logs::Item;
use bracewalk::tui::entry::Entry;
use bracewalk::tui::list::SortKey;
use bracewalk::tui::message::{Incoming, LoadProgress};
use bracewalk::tui::{Msg, State, update};
use support::corpus;
use support::tui_fixture::{drive, reply, screen, state};

fn main() {
    // `cargo bench` passes `--bench`; a word names the part to run.
    let only: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let wanted = |part: &str| only.is_empty() || only.iter().any(|o| o == part);
    if wanted("keys") {
        keystrokes_on_ten_thousand_replies();
    }
    if wanted("flood") {
        batches_during_a_flood();
    }
}

fn stats(name: &str, mut times: Vec<Duration>) {
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    println!(
        "{name:<28} n={:<4} median {:>7.2?}  p90 {:>7.2?}  max {:>7.2?}",
        times.len(),
        at(0.5),
        at(0.9),
        times[times.len() - 1]
    );
}

fn keystrokes_on_ten_thousand_replies() {
    let mut texts = corpus::typical_mix(corpus::GOLDEN_SEED, 120_000_000);
    texts.truncate(10_000);
    while texts.len() < 10_000 {
        texts.push(texts[texts.len() % 997].clone());
    }
    let bytes: usize = texts.iter().map(String::len).sum();
    let items: Vec<Item> = texts.iter().enumerate().map(|(i, t)| reply(i + 1, "page", (i % 40) as u32, t)).collect();
    let t = Instant::now();
    let mut s = state(items, 160, 50);
    println!("10,000 replies, {} MB: loaded and summarized in {:?} (one thread)", bytes / 1_000_000, t.elapsed());
    let key = |s: &mut bracewalk::tui::State, code: KeyCode| {
        let t = Instant::now();
        drive(s, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
        let _ = screen(s);
        t.elapsed()
    };
    stats("j (next reply, its record)", (0..100).map(|_| key(&mut s, KeyCode::Char('j'))).collect());
    stats("k (back, cached record)", (0..50).map(|_| key(&mut s, KeyCode::Char('k'))).collect());
    stats(
        "] [ (candidates)",
        (0..50).map(|i| key(&mut s, KeyCode::Char(if i % 2 == 0 { ']' } else { '[' }))).collect(),
    );
    stats("Tab (focus)", (0..60).map(|_| key(&mut s, KeyCode::Tab)).collect());
    stats("s (sort 10,000)", (0..8).map(|_| key(&mut s, KeyCode::Char('s'))).collect());
    stats(
        "G g (ends of the list)",
        (0..20).map(|i| key(&mut s, KeyCode::Char(if i % 2 == 0 { 'G' } else { 'g' }))).collect(),
    );
    stats(
        "f (filter menu) Esc",
        (0..20).map(|i| key(&mut s, if i % 2 == 0 { KeyCode::Char('f') } else { KeyCode::Esc })).collect(),
    );
    stats("PgDn in the list", (0..50).map(|_| key(&mut s, KeyCode::PageDown)).collect());
}

/// `n` replies from files of 100 lines, keys from `key`, in batches of `per`, the files in
/// no particular order.
fn flood(key: &mut u64, files: std::ops::Range<usize>, per: usize) -> Vec<Vec<Incoming>> {
    let mut all = Vec::new();
    for f in files {
        let file = format!("logs/run-{:05}/log.jsonl", f * 7919 % 100_000);
        for line in 1..=100 {
            *key += 1;
            let item = match reply(line, "page", (line % 40) as u32, "{\"html\": \"<p>x</p>\", \"log\": \"ok\"}") {
                Item::Reply(mut r) => {
                    r.id = format!("{file}:{line}");
                    r.source = file.clone().into();
                    Item::Reply(r)
                }
                other => other,
            };
            all.push(Incoming::Entry(Entry::from_item(*key, item)));
        }
    }
    let mut batches = Vec::new();
    while !all.is_empty() {
        let rest = all.split_off(per.min(all.len()));
        batches.push(std::mem::replace(&mut all, rest));
    }
    batches
}

fn batches_during_a_flood() {
    for sort in [SortKey::Source, SortKey::Size] {
        let mut s = State::new(vec!["logs".into()], Default::default(), (160, 50));
        s.list.set_sort(sort);
        let mut key = 0;
        // The first load of 100,000 replies, 2,000 a batch (as the loader sends them).
        let batches = flood(&mut key, 0..1000, 2000);
        let t = Instant::now();
        let mut times = Vec::new();
        for batch in batches {
            let t = Instant::now();
            update(&mut s, Msg::Incoming { batch, initial: true });
            times.push(t.elapsed());
        }
        update(&mut s, Msg::Progress(LoadProgress { files: 1000, items: 100_000, bytes: 0, done: true }));
        println!("{sort:?}: 100,000 replies loaded in {:?}", t.elapsed());
        stats("  a batch of 2,000", times);
        // Then the follower: 10,000 more in batches of 40, as 25 a second would bring them.
        let batches = flood(&mut key, 1000..1100, 40);
        let times = batches
            .into_iter()
            .map(|batch| {
                let t = Instant::now();
                update(&mut s, Msg::Incoming { batch, initial: false });
                t.elapsed()
            })
            .collect();
        stats("  then a batch of 40", times);
    }
}
