//! The campaign generator (`examples/corpus.rs campaign`) writes what the run-log loader
//! reads as a campaign: every reply it says it wrote, each placed in its round and document,
//! every cut call an event, and nothing the loader has to complain about.

use crate::support::{campaign, loaded};

use std::collections::BTreeMap;

use bracewalk::runlog::{EventKind, StopReason};

#[test]
fn a_generated_campaign_loads_as_the_campaign_it_says_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let shape = campaign::Shape { rounds: 3, documents: 4, replies: 41, sizes: (200, 3_000), seed: 7 };
    let written = campaign::write_campaign(dir.path(), &shape).unwrap();
    assert_eq!(written.replies + written.truncated, 3 * 4 * 41);
    assert!(written.truncated > 0, "some calls hit the output ceiling: {written:?}");

    let got = loaded::load(&[dir.path()]).clean();
    assert_eq!(got.replies.len(), written.replies);
    let cut: Vec<_> = got.events.iter().filter(|e| e.kind == EventKind::Truncated).collect();
    assert_eq!(cut.len(), written.truncated);
    assert!(cut.iter().all(|e| e.meta.stop == StopReason::Truncated));

    let mut per_document: BTreeMap<(String, String), usize> = BTreeMap::new();
    for r in &got.replies {
        let round = r.meta.round.clone().expect("a round");
        let document = r.meta.document.clone().expect("a document");
        *per_document.entry((round, document)).or_default() += 1;
    }
    assert_eq!(per_document.len(), 3 * 4);
    let ids: Vec<String> = (0..4).map(|d| campaign::document_id(7, d)).collect();
    for ((round, document), n) in &per_document {
        assert!(["round-1", "round-2", "round-3"].contains(&round.as_str()), "{round}");
        assert!(ids.contains(document), "{document}");
        assert!(*n <= 41 && *n >= 30, "{round}/{document}: {n} replies");
    }
}

#[test]
fn the_same_seed_writes_the_same_campaign() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let shape = campaign::Shape { rounds: 1, documents: 2, replies: 5, sizes: (100, 500), seed: 11 };
    campaign::write_campaign(a.path(), &shape).unwrap();
    campaign::write_campaign(b.path(), &shape).unwrap();
    let id = campaign::document_id(11, 1);
    let log = |d: &std::path::Path| std::fs::read(d.join("round-1").join(&id).join("log.jsonl")).unwrap();
    assert_eq!(log(a.path()), log(b.path()));
}
