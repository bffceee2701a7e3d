//! The inspector's list holds no reply's text: each is read again from its file when it is
//! wanted. These tests load real files, as the inspector does, and check what that promises:
//! no text is held, the records kept stay within their bound, and a reply whose text changed
//! on disk since it was listed is marked and read again.

use crate::support::tui_fixture as fixture;

use std::path::Path;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use bracewalk::logs::{Item, Loader};
use bracewalk::tui::badges::Badge;
use bracewalk::tui::entry::Entry;
use bracewalk::tui::message::Read;
use bracewalk::tui::message::{Incoming, LoadProgress};
use bracewalk::tui::reply::{DETAILS_BYTES, DETAILS_KEPT};
use bracewalk::tui::{Effect, Msg, State};
use fixture::{drive, typed};

/// A log of `texts`, one `{"id", "text"}` record a line.
fn write_log(path: &Path, texts: &[String]) {
    let lines: Vec<String> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| serde_json::json!({"id": format!("r{i}"), "text": t}).to_string())
        .collect();
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

/// The items of `path`, loaded as the inspector's files thread loads them.
fn load(path: &Path) -> Vec<Item> {
    let mut items = Vec::new();
    Loader::new(Default::default()).load(&[path.to_path_buf()], &mut |it| items.push(it));
    items
}

/// An inspector state of the replies in `path`, listed as loaded (no text held), with the
/// early facts the readings thread makes from each reply read again from its file.
fn loaded_state(path: &Path) -> State {
    let mut s = State::new(vec![path.to_path_buf()], Default::default(), (120, 30));
    let entries: Vec<Entry> =
        load(path).into_iter().enumerate().map(|(i, it)| Entry::loaded(i as u64 + 1, it)).collect();
    let loader = Loader::new(Default::default());
    let config = s.config.clone();
    let early: Vec<Read> = entries
        .iter()
        .map(|e| {
            let text = loader.reread(&e.locator().expect("a loaded reply has a locator")).unwrap();
            Read::early(e.key, &text, e.cut(), &config)
        })
        .collect();
    drive(&mut s, Msg::Incoming { batch: entries.into_iter().map(Incoming::Entry).collect(), initial: true });
    drive(&mut s, Msg::Progress(LoadProgress { files: 1, items: 0, bytes: 0, done: true }));
    drive(&mut s, Msg::Facts(early));
    s
}

fn seed_value(s: &State, key: u64) -> Option<String> {
    let e = s.list.entries().iter().find(|e| e.key == key)?;
    e.sketch.as_deref().map(str::to_owned)
}

#[test]
fn a_listed_reply_holds_no_text_and_its_record_reads_it_from_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.jsonl");
    let texts: Vec<String> = (0..5).map(|i| format!("thinking… {{\"page\": {i}, \"html\": \"<p>{i}</p>\"}}")).collect();
    write_log(&path, &texts);
    let mut s = loaded_state(&path);
    assert_eq!(s.list.entries().len(), 5);
    assert!(s.list.entries().iter().all(|e| e.held_text().is_none()), "a loaded reply's text is not kept in the list");
    assert!(s.list.entries().iter().all(|e| e.facts.is_some()), "every reply has its badges");
    let d = s.detail().expect("the selected reply's record is made");
    assert_eq!(&*d.text, texts[0].as_str(), "the record is of the text in the file");
    typed(&mut s, "j");
    assert_eq!(&*s.detail().unwrap().text, texts[1].as_str());
    assert!(s.list.entries().iter().all(|e| !e.changed), "nothing changed on disk");
}

#[test]
fn a_reply_changed_on_disk_is_marked_and_its_facts_read_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.jsonl");
    // More replies than records are kept, so the first one's record is made again on return.
    let mut texts: Vec<String> = (0..DETAILS_KEPT + 2).map(|i| format!("{{\"page\": {i}, \"ok\": true}}")).collect();
    write_log(&path, &texts);
    let mut s = loaded_state(&path);
    let first = s.list.entries()[0].key;
    let before = seed_value(&s, first);
    for _ in 0..DETAILS_KEPT + 1 {
        typed(&mut s, "j");
    }
    assert!(s.reply.details().iter().all(|(k, _)| *k != first), "the first reply's record was let go");

    // The first reply is rewritten in place, longer and with another answer.
    texts[0] = "a draft {\"page\": 0, \"ok\": false, \"note\": \"redone\"}".to_owned();
    write_log(&path, &texts);
    let fx = typed(&mut s, "g");
    let e = s.list.entries().iter().find(|e| e.key == first).unwrap();
    assert!(e.changed, "the reply is marked changed");
    assert!(Badge::Changed.on(e, false, &s.config), "and wears the badge");
    assert_eq!(e.text().unwrap().len, texts[0].len(), "its size is the new text's");
    assert!(e.facts.is_none(), "its old facts are dropped");
    assert!(fixture::screen(&s).contains("changed"), "the list says so:\n{}", fixture::screen(&s));
    assert_eq!(&*s.detail().unwrap().text, texts[0].as_str(), "the record shows the text now on disk");
    let reread: Vec<_> = fx
        .iter()
        .filter_map(|f| match f {
            Effect::Reread { key, locator, .. } => Some((*key, locator.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(reread.len(), 1, "its facts are asked for again, once: {fx:?}");
    assert_eq!(reread[0].0, first);

    // The readings thread reads the text again from where the locator says.
    let text = Loader::new(Default::default()).reread(&reread[0].1).unwrap();
    assert_eq!(text, texts[0]);
    let config = s.config.clone();
    drive(&mut s, Msg::Facts(vec![Read::early(first, &text, false, &config)]));
    let after = seed_value(&s, first);
    assert_ne!(before, after, "the badges and sketch are of the new text");
    assert!(after.unwrap().contains("note"));

    // The same text again: nothing more to do.
    typed(&mut s, "jk");
    let again = typed(&mut s, "g");
    assert!(!again.iter().any(|f| matches!(f, Effect::Reread { .. })));
}

/// Applies `text` on the query line, as typed over what the line held.
fn query(s: &mut State, text: &str) {
    typed(s, ":");
    drive(s, Msg::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL)));
    typed(s, &format!("{text}\n"));
}

/// Ids of the replies the list shows.
fn shown(s: &State) -> Vec<String> {
    s.list.view().iter().map(|&i| s.list.entries()[i].id.to_string()).collect()
}

#[test]
fn a_reply_changed_on_disk_is_searched_again_for_the_query_applied() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.jsonl");
    let mut texts: Vec<String> =
        (0..DETAILS_KEPT + 2).map(|i| format!("the page: {{\"page\": {i}, \"ok\": true}}")).collect();
    write_log(&path, &texts);
    let mut s = loaded_state(&path);
    // A bare word is looked for in the texts, each read again from its file.
    query(&mut s, "ok");
    assert_eq!(shown(&s).len(), texts.len(), "every reply says ok: {:?}", s.flash);
    let first = s.list.entries()[0].key;
    for _ in 0..DETAILS_KEPT + 1 {
        typed(&mut s, "j");
    }

    // The first reply no longer says it on disk: once its record is made again it is
    // searched again, and the list stops showing it.
    texts[0] = "a draft {\"page\": 0, \"fine\": false}".to_owned();
    write_log(&path, &texts);
    typed(&mut s, "g");
    let e = s.list.entries().iter().find(|e| e.key == first).unwrap();
    assert!(e.changed, "the reply is marked changed");
    assert!(!shown(&s).contains(&"r0".to_owned()), "the old text's match no longer holds: {:?}", shown(&s));
    assert_eq!(shown(&s).len(), texts.len() - 1);
    let q = s.list.filter().query.as_ref().unwrap();
    assert!(q.searched(), "every reply asked about has its answer: {}/{}", q.hits.len(), q.asked);

    // Written back, it is shown again once its record is made.
    texts[0] = "the page again: {\"page\": 0, \"ok\": true}".to_owned();
    write_log(&path, &texts);
    query(&mut s, "");
    for _ in 0..DETAILS_KEPT + 1 {
        typed(&mut s, "j");
    }
    typed(&mut s, "g");
    query(&mut s, "ok");
    assert!(shown(&s).contains(&"r0".to_owned()), "{:?}", shown(&s));
}

#[test]
fn the_records_kept_stay_within_their_bound() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.jsonl");
    let texts: Vec<String> =
        (0..20).map(|i| format!("{{\"page\": {i}, \"html\": \"{}\"}}", "x".repeat(1000 * (i + 1)))).collect();
    write_log(&path, &texts);
    let mut s = loaded_state(&path);
    for _ in 0..19 {
        typed(&mut s, "j");
        assert!(s.reply.details().len() <= DETAILS_KEPT, "{} records kept", s.reply.details().len());
        let bytes: usize = s.reply.details().iter().map(|(_, d)| d.text.len()).sum();
        assert!(bytes <= DETAILS_BYTES);
        assert!(s.detail().is_some(), "the selected reply's record is always kept");
    }
    assert!(s.list.entries().iter().all(|e| e.held_text().is_none()));
}

#[test]
fn a_reply_that_cannot_be_read_again_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.jsonl");
    let texts: Vec<String> = (0..DETAILS_KEPT + 2).map(|i| format!("{{\"page\": {i}}}")).collect();
    write_log(&path, &texts);
    let mut s = loaded_state(&path);
    let first = s.list.entries()[0].key;
    for _ in 0..DETAILS_KEPT + 1 {
        typed(&mut s, "j");
    }
    std::fs::write(&path, "").unwrap();
    // What the details thread meets, and sends on as `Lost`.
    let at = s.list.entries()[0].locator().unwrap();
    let why = Loader::new(Default::default()).reread(&at).expect_err("the reply is no longer in its file");
    drive(&mut s, Msg::Lost(vec![(first, why.clone().into())]));
    let e = s.list.entries().iter().find(|e| e.key == first).unwrap();
    assert!(e.gone, "a reply that cannot be read again is marked gone");
    let said = s.loading.last_diagnostic.clone().unwrap_or_default();
    assert!(said.contains("could not be read again") && said.contains(&why.to_string()), "{said}");
}
