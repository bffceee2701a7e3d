//! The walk does work linear in the reply's size on every adversarial family: checked by
//! counting the bytes its validators examine, not by timing, so a quadratic regression
//! fails here on any machine.

use crate::support::corpus;

use bracewalk::exact::walk::{OnFailure, Readings, WalkOptions, run, visits};

#[test]
fn work_per_byte_stays_flat_as_replies_grow() {
    flat(&WalkOptions::SEED);
}

/// The what-ifs that read a candidate under the narrow colon rule or go on after its span: a
/// reply nested a million deep must not cost a scan to its end per `{`.
#[test]
fn the_what_ifs_that_read_candidates_otherwise_do_linear_work_too() {
    flat(&WalkOptions { readings: Readings::StrictThenNarrow, ..WalkOptions::SEED });
    flat(&WalkOptions { readings: Readings::StrictThenWideThenNarrow, ..WalkOptions::SEED });
    flat(&WalkOptions { on_failure: OnFailure::Resume, ..WalkOptions::SEED });
}

fn flat(opts: &WalkOptions) {
    for family in corpus::ADVERSARIAL_FAMILIES {
        let mut per_byte = Vec::new();
        for size in [16 << 10, 64 << 10, 256 << 10] {
            let text = corpus::adversarial(family, size);
            let trace = run(&text, opts, false);
            let w = trace.work.bytes as f64 / text.len() as f64;
            // A handful of passes over the text at most (checked before growing, so a
            // quadratic regression fails fast instead of running for minutes).
            assert!(w <= 8.0, "{family}: {w:.2} bytes examined per byte at {size} bytes ({opts:?})");
            per_byte.push(w);
        }
        // And no growth with size: a quadratic walk multiplies this by 4 at each step.
        assert!(per_byte[2] <= per_byte[0] * 1.25 + 0.1, "{family}: work per byte grew: {per_byte:?} ({opts:?})");
    }
}

#[test]
fn descending_into_a_failed_candidate_reuses_what_it_learned() {
    // Every `{` of a deep failed object is a candidate; each must cost a lookup, not a
    // re-read of the nesting below it (the last few, failing within a few bytes, are not
    // memoized: re-reading them costs less). The repaired reading fails where the strict one
    // does, and is known to without a lookup of its own.
    let depth = 20_000;
    let text = format!("{}x{}", "{\"a\":".repeat(depth), "}".repeat(depth));
    let trace = run(&text, &WalkOptions::SEED, false);
    assert!(trace.work.hits as usize + 8 >= depth, "{:?}", trace.work);
    assert!((trace.work.bytes as usize) < 4 * text.len(), "{:?}", trace.work);
}

#[test]
fn an_object_every_candidate_reaches_is_read_once() {
    // `{"{"{"{"…{"a": S x`: every `{` fails strictly at its first key, and repaired its key
    // runs (each inner quote is followed by `{`, so the repair reads past it) to the `"a"`
    // that the colon closes, so every candidate's wide reading reaches the same object `S`
    // before failing at `x`. Only `S`'s success, kept from the first candidate, spares each
    // of the others a re-read of it: the memo's successes are needed for linearity, not
    // only its failures.
    let n = 5_000;
    let s = format!("{{\"t\": [{}0]}}", "0,".repeat(5_000));
    let text = format!("{{{}\"a\": {s} x", "\"{".repeat(n));
    let trace = run(&text, &WalkOptions::SEED, false);
    assert!((trace.work.bytes as usize) < 8 * text.len(), "{:?} for {} bytes", trace.work, text.len());
    assert!(trace.work.hits as usize >= n, "{:?}", trace.work);
}

/// The record of every candidate (`extract --jsonl` with `candidates`): the seed reads each
/// from scratch, quadratic on every family here. Counted as the walk is, plus the span-end
/// scans, so a record that read its candidates as the seed does (and counts nothing) fails
/// the floor.
#[test]
fn the_record_of_candidates_does_linear_work() {
    for family in corpus::ADVERSARIAL_FAMILIES {
        let mut per_byte = Vec::new();
        for size in [16 << 10, 64 << 10, 256 << 10] {
            let text = corpus::adversarial(family, size);
            let (trace, mut visited) = visits(&text);
            // The record asks for every strict span.
            let strict_ends = visited.strict_ends();
            let work = trace.work.bytes + visited.spans.scanned();
            let w = work as f64 / text.len() as f64;
            // A candidate that reads gives its spans; one that does not has its strict span
            // scanned, and that scan is counted (a record that scanned as the seed does, and
            // counted nothing, fails here).
            if let Some((v, end)) = visited.visits.iter().zip(&strict_ends).find(|(v, _)| v.read_end.is_none()) {
                let span = end.unwrap_or(text.len()) - v.start;
                assert!(work as usize >= span, "{family}: {w:.2} bytes examined per byte: not the linear record");
            }
            assert!(w <= 12.0, "{family}: {w:.2} bytes examined per byte at {size} bytes");
            assert!(visited.visits.len() <= text.len(), "{family}: more visits than bytes");
            per_byte.push(w);
        }
        assert!(per_byte[2] <= per_byte[0] * 1.25 + 0.1, "{family}: work per byte grew: {per_byte:?}");
    }
}

/// The risk flags' candidates: the seed's walk, then its visits read through the same memo
/// (what a scan's facts do where a flag could hold), linear on every family. The values the
/// flags build are of superseded candidates, which do not overlap: at most the reply's length.
#[test]
fn the_flags_walk_does_linear_work() {
    use bracewalk::analysis::flags;
    use bracewalk::exact::walk::Walker;
    for family in corpus::ADVERSARIAL_FAMILIES {
        let mut per_byte = Vec::new();
        for size in [16 << 10, 64 << 10, 256 << 10] {
            let text = corpus::adversarial(family, size);
            let mut walker = Walker::new(&text);
            let seed = walker.run(&WalkOptions::SEED);
            let (trace, mut visits) = walker.visits();
            assert_eq!(trace.place, seed.place, "{family}");
            let raised = flags::raised(&text, &seed, seed.value.as_ref(), false, Some(&mut visits));
            assert!(raised.len() <= 3, "{family}: {raised:?}");
            let w = (trace.work.bytes + visits.spans.scanned()) as f64 / text.len() as f64;
            assert!(w <= 16.0, "{family}: {w:.2} bytes examined per byte at {size} bytes, both walks");
            per_byte.push(w);
        }
        assert!(per_byte[2] <= per_byte[0] * 1.25 + 0.1, "{family}: work per byte grew: {per_byte:?}");
    }
}
