//! Throughput and worst-case benchmarks for the last-wins reader.
//!
//! ```text
//! cargo bench --bench throughput               # everything
//! cargo bench --bench throughput -- --quick    # smaller corpus, fewer passes
//! cargo bench --bench throughput -- --only key-colon   # one part: `typical` or a family
//! cargo bench --bench throughput -- --only key-colon,empty-objects   # some families
//! ```
//!
//! Inputs are generated deterministically (`tests/support/corpus.rs`). Prints MB/s for the
//! typical mix, for each adversarial family at 64 KiB, 256 KiB and 1 MiB with its per-byte
//! time relative to the typical mix (a sample of it, timed in alternation with the family, so
//! that a machine whose speed shifts during the run shifts both), and the ratio to a plain
//! serde_json parse. When node
//! and the reference oracle are present (`BRACEWALK_ORACLE`, default `../shared/oracle`), the
//! seed's own throughput on the same corpus is measured in the same run and the ratio shown.

// Measured with the allocator the binary ships with.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "../tests/support/corpus.rs"]
mod corpus;

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

use bracewalk::exact::walk::extract_json;

/// Best of `passes` timings of `f`, in seconds.
fn best(passes: usize, mut f: impl FnMut()) -> f64 {
    (0..passes)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// Best timings of `a` and `b`, taken in alternation over `passes` rounds, so that both are
/// timed under whatever the machine is doing at the time: on a shared machine whose speed
/// shifts during a run, a ratio of times taken minutes apart measures the shift.
fn best_beside(passes: usize, mut a: impl FnMut(), mut b: impl FnMut()) -> (f64, f64) {
    let (mut best_a, mut best_b) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..passes {
        best_a = best_a.min(best(1, &mut a));
        best_b = best_b.min(best(1, &mut b));
    }
    (best_a, best_b)
}

fn mb(bytes: usize) -> f64 {
    bytes as f64 / 1e6
}

/// The seed's throughput under node on `replies` and the mix's beside it, in MB/s: node (each
/// run the best of three passes, in process) and `time_mix` are run in alternation `rounds`
/// times and the best of each kept, as the families are timed beside the mix sample. `None`
/// without node or the oracle.
fn seed_beside_mix(replies: &[String], rounds: usize, mut time_mix: impl FnMut() -> f64) -> Option<(f64, f64)> {
    let dir = std::env::var_os("BRACEWALK_ORACLE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/oracle"));
    let bench = dir.join("bench.mjs");
    if !bench.exists() {
        return None;
    }
    let path = std::env::temp_dir().join(format!("bracewalk-bench-{}.jsonl", std::process::id()));
    let records: Vec<corpus::Record> = replies
        .iter()
        .enumerate()
        .map(|(i, t)| corpus::Record { id: format!("t{i}"), text: t.clone(), fields: None })
        .collect();
    std::fs::write(&path, corpus::to_jsonl(&records)).ok()?;
    let bytes: usize = replies.iter().map(String::len).sum();
    let rates: Option<Vec<(f64, f64)>> =
        (0..rounds).map(|_| Some((node_rate(&bench, &path)?, mb(bytes) / time_mix()))).collect();
    let _ = std::fs::remove_file(&path);
    rates?.into_iter().reduce(|(n, m), (node, mix)| (n.max(node), m.max(mix)))
}

fn node_rate(bench: &Path, corpus: &Path) -> Option<f64> {
    let out = std::process::Command::new("node").arg(bench).arg(corpus).arg("3").output().ok()?;
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    json.get("mb_per_s")?.as_f64()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    // `--only typical` measures the mix alone; `--only FAMILY[,FAMILY…]` the mix and those
    // families.
    let only = args.iter().position(|a| a == "--only").and_then(|i| args.get(i + 1)).map(String::as_str);
    let (corpus_bytes, passes) = if quick { (8_000_000, 3) } else { (52_000_000, 5) };

    let typical = corpus::typical_mix(1, corpus_bytes);
    let bytes: usize = typical.iter().map(String::len).sum();
    let time_mix = || {
        best(passes, || {
            for r in &typical {
                black_box(extract_json(black_box(r)));
            }
        })
    };
    let t = time_mix();
    let typical_rate = mb(bytes) / t;
    let per_byte_typical = t / bytes as f64;
    println!("typical mix: {} replies, {:.1} MB: {:.0} MB/s", typical.len(), mb(bytes), typical_rate);

    if only == Some("typical") {
        return;
    }

    // A plain strict parse of valid JSON of the same size: the values, printed back.
    let valid: Vec<String> = typical.iter().filter_map(|r| extract_json(r)).map(|v| v.to_json()).collect();
    let valid_bytes: usize = valid.iter().map(String::len).sum();
    let serde = best(passes, || {
        for v in &valid {
            black_box(serde_json::from_str::<serde_json::Value>(black_box(v)).ok());
        }
    });
    let serde_per_byte = serde / valid_bytes as f64;
    println!(
        "serde_json::Value parse of the answers ({:.1} MB): {:.0} MB/s; last-wins / serde per byte: {:.2}x",
        mb(valid_bytes),
        mb(valid_bytes) / serde,
        per_byte_typical / serde_per_byte
    );

    // Every 25th reply of the mix (about 2 MB), timed beside each family.
    let sample: Vec<&String> = typical.iter().step_by(25).collect();
    let sample_bytes: usize = sample.iter().map(|r| r.len()).sum();
    println!(
        "\nadversarial families (per-byte time relative to {:.1} MB of the typical mix timed in alternation \
         with each; growth = time ratio per 4x size, in units of the sample's time)",
        mb(sample_bytes)
    );
    println!("{:<20} {:>9} {:>10} {:>9} {:>7}", "family", "size", "MB/s", "vs typ", "growth");
    for family in corpus::ADVERSARIAL_FAMILIES.iter().filter(|f| only.is_none_or(|o| o.split(',').any(|x| x == **f))) {
        let mut previous: Option<f64> = None;
        for size in [64 << 10, 256 << 10, 1 << 20] {
            let text = corpus::adversarial(family, size);
            let (t, t_sample) = best_beside(
                if quick { 5 } else { 21 },
                || {
                    black_box(extract_json(black_box(&text)));
                },
                || {
                    for r in &sample {
                        black_box(extract_json(black_box(r)));
                    }
                },
            );
            let per_byte = t / text.len() as f64;
            let per_byte_typical = t_sample / sample_bytes as f64;
            // In units of the sample's time, so that a shift in the machine's speed between
            // sizes does not show as growth.
            let relative = t / t_sample;
            let growth = previous.map_or(String::from("-"), |p| format!("{:.2}", relative / p));
            println!(
                "{family:<20} {:>9} {:>10.1} {:>8.2}x {growth:>7}",
                text.len(),
                mb(text.len()) / t,
                per_byte / per_byte_typical
            );
            previous = Some(relative);
        }
    }
    // Last, so that the families are timed with nothing run between them and the mix: the
    // seed on the same corpus, timed in alternation with the mix.
    if only.is_none() {
        match seed_beside_mix(&typical, if quick { 1 } else { 3 }, time_mix) {
            Some((node, mix)) => println!(
                "\nseed under node on the same corpus: {node:.1} MB/s; the mix beside it: {mix:.0} MB/s; \
                 bracewalk / seed: {:.1}x",
                mix / node
            ),
            None => println!("\nseed under node: not measured (no node or oracle)"),
        }
    }
}
