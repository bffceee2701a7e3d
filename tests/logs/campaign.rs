//! The campaign generator (`examples/corpus.rs campaign`) writes what the run-log loader
//! reads as a campaign: every reply it says it wrote, each placed in its round and document,
//! every cut call an event, and nothing the loader has to complain about.

use crate::support::{campaign, loaded};

use std::collections::BTreeMap;

use bracewalk::logs::{EventKind, StopReason};

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
        let round = r.meta.round.as_deref().map(str::to_owned).expect("a round");
        let document = r.meta.document.as_deref().map(str::to_owned).expect("a document");
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

/// The hard mix: the same layout, ledgers and calls as the typical campaign of the same shape,
/// only the replies differ, and they carry the seed's hard shapes at the density the campaign
/// figures are measured at: dozens of `{` a reply, scratch templates, drafts, fences, decoys.
#[test]
fn a_hard_campaign_is_the_same_campaign_with_hard_replies() {
    let (typical, hard) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let shape = campaign::Shape { rounds: 2, documents: 2, replies: 24, ..campaign::Shape::default() };
    let t = campaign::write_campaign_of(typical.path(), &shape, campaign::Mix::Typical).unwrap();
    let h = campaign::write_campaign_of(hard.path(), &shape, campaign::Mix::Hard).unwrap();
    assert_eq!((t.files, t.replies, t.truncated), (h.files, h.replies, h.truncated));
    let per_reply = h.braces as f64 / h.replies as f64;
    assert!((60.0..=120.0).contains(&per_reply), "{per_reply} `{{` a reply");

    let (a, b) = (loaded::load(&[typical.path()]).clean(), loaded::load(&[hard.path()]).clean());
    assert_eq!(a.replies.len(), b.replies.len());
    assert_eq!(a.events.len(), b.events.len());
    for (x, y) in a.replies.iter().zip(&b.replies) {
        assert_eq!((&x.meta.round, &x.meta.document), (&y.meta.round, &y.meta.document));
    }
    let texts: Vec<&str> = b.replies.iter().map(|r| r.text.as_str()).collect();
    let share = |what: &dyn Fn(&str) -> bool| texts.iter().filter(|t| what(t)).count() * 100 / texts.len();
    let mean = texts.iter().map(|t| t.len()).sum::<usize>() / texts.len();
    assert!((20_000..=45_000).contains(&mean), "{mean} bytes a reply");
    assert!(share(&|t| t.contains(r#""html": "...""#)) >= 50, "scratch templates");
    assert!(share(&|t| t.contains("```")) >= 50, "fences");
    assert!(share(&|t| t.contains("The contract is {")) >= 50, "decoys quoted in prose");
    assert!(share(&|t| t.contains("reads \"CLOSED\" today")) >= 50, "unescaped quotes");
    assert!(share(&|t| t.contains("RESTART")) >= 50, "drafts and cut arrays");
    assert!(share(&|t| t.matches("\"suggested_agent\"").count() >= 4) >= 50, "several envelopes");
}
