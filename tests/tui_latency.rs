//! How long a keystroke takes on a campaign of 10,000 replies: `update` and a full
//! `render` into a 160×50 `TestBackend`, per key, after every reply is loaded and
//! summarized. Ignored by default (it is a measurement, not a check); run it with
//!
//!     cargo test --release --test tui_latency -- --ignored --nocapture

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/corpus.rs"]
mod corpus;
#[path = "support/tui_fixture.rs"]
mod fixture;

use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use bracewalk::runlog::Item;
use bracewalk::tui::Msg;
use fixture::{drive, reply, screen, state};

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

#[test]
#[ignore]
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
