//! What the list holds for each reply: a campaign of 100,000 replies is listed whole, so a
//! copy of a name or a path per reply, or a field added to every entry, is paid 100,000
//! times (the figures are in docs/PERFORMANCE.md, "The inspector on the hard campaign").

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use bracewalk::logs::{Meta, Name, WatchMode};
use bracewalk::tui::entry::Entry;

use crate::support::follower::Follower;

#[test]
fn a_campaigns_entries_share_one_copy_of_each_name_and_path() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-logs");
    let f = Follower::start(&root, WatchMode::Poll);
    let metas: Vec<(&Entry, &Meta)> = f.state.list.entries().iter().filter_map(|e| Some((e, e.meta()?))).collect();
    assert!(metas.len() > 50, "the sample logs list their calls: {}", metas.len());

    // Every entry of a file holds that file's one path.
    let mut paths: HashMap<&Path, &Arc<Path>> = HashMap::new();
    for (e, _) in &metas {
        let first = paths.entry(&*e.source).or_insert(&e.source);
        assert!(Arc::ptr_eq(first, &e.source), "{} holds a copy of its path", e.id);
    }
    assert!(paths.len() > 1);

    // Every reply naming an agent, a round or a document names the one copy of it.
    let mut seen: HashMap<&str, &Name> = HashMap::new();
    let mut shared = 0;
    for (e, m) in &metas {
        for name in [&m.agent, &m.round, &m.document, &m.model].into_iter().flatten() {
            let first = seen.entry(&**name).or_insert(name);
            assert!(Name::ptr_eq(first, name), "{} holds a copy of {name:?}", e.id);
            shared += usize::from(!std::ptr::eq(*first, name));
        }
    }
    assert!(shared > metas.len(), "names repeat over the calls: {shared} shared");
}

#[test]
fn an_entry_and_what_it_keeps_of_a_reply_stay_small() {
    // Each is held once a reply for as long as it is listed (the facts and the metadata in
    // a box of their own): growing any is a choice to make with the figures at hand.
    assert!(std::mem::size_of::<Entry>() <= 168, "Entry: {} bytes", std::mem::size_of::<Entry>());
    assert!(std::mem::size_of::<Meta>() <= 216, "Meta: {} bytes", std::mem::size_of::<Meta>());
    let facts = std::mem::size_of::<bracewalk::analysis::Facts>();
    assert!(facts <= 144, "Facts: {facts} bytes");
}

#[test]
fn the_lists_facts_share_one_copy_of_each_account() {
    use bracewalk::analysis::Raised;
    // Replies a what-if reads alike: each account of a difference is word for word another
    // reply's, and the list keeps one copy of it, for the differences and the flag alike.
    let dir = tempfile::tempdir().unwrap();
    let body: String = (0..40)
        .map(|i| {
            let text =
                format!("a draft {{\"html\": \"{}\"}} then {{\"html\": \"{}\"}}", "x".repeat(i % 4), "y".repeat(9));
            format!(
                "{}\n",
                serde_json::json!({"type": "message", "role": "assistant", "content": [{"type": "text", "text": text}]})
            )
        })
        .collect();
    std::fs::write(dir.path().join("replies.jsonl"), body).unwrap();
    let mut f = Follower::with_readings(dir.path(), WatchMode::Poll);
    f.until("every reply read", |s| s.list.entries().iter().all(|e| !e.is_reply() || e.complete()));

    let mut seen: HashMap<String, Name> = HashMap::new();
    let (mut accounts, mut flagged) = (0, 0);
    for e in f.state.list.entries() {
        let facts = e.facts.as_deref().expect("read");
        let raised = facts.flags.iter().filter_map(|r| match r {
            Raised::ReadersDisagree { account, .. } => Some(account),
            _ => None,
        });
        flagged += raised.clone().count();
        for account in facts.differences.iter().map(|(_, _, a)| a).chain(raised) {
            let first = seen.entry(account.to_string()).or_insert_with(|| account.clone());
            assert!(Name::ptr_eq(first, account), "{} holds a copy of {account:?}", e.id);
            accounts += 1;
        }
    }
    assert!(flagged > 0, "the what-if's disagreement is flagged");
    assert!(accounts >= 2 * 40 && seen.len() <= 8, "{accounts} accounts, {} distinct: {:?}", seen.len(), seen.keys());
}
