//! The follower under a bench that keeps writing: a writer appending run-log replies to the
//! logs of many documents at more than 100 a second while it rotates logs by rename (writing
//! on through the old handle for a while, as a logger that reopens lazily does), copies a log
//! and truncates it in place, deletes rotated logs, writes lines in two pieces, replaces files
//! atomically, starts new documents and a new round, and drops a burst of files at once. Two
//! followers watch it side by side, one by native events and one polling, each with the real
//! readings thread ([`Follower::with_readings`]). Once the writer stops, each must list
//! exactly what loading the directory lists (`bracewalk list` is that loading): the same ids,
//! as often, with the same texts, each reply's facts those of its text on disk; and a reply
//! marked and selected before its log was rotated away is still marked and selected, at its
//! new name, in its place.
//!
//! The inspector's tests soak for a few seconds (`tests/tui/soak.rs`); the soak bench runs
//! the same for as long as it is asked, and prints what was written and how long the
//! followers took to agree (`benches/soak.rs`).

use crate::support::follower::{DEADLINE, Follower, listing};
use crate::support::tui_fixture::typed;

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bracewalk::logs::{Item, LoadOptions, Loader, Problem};
use bracewalk::tui::State;
use bracewalk::tui::entry::{Body, Entry, hash};
use bracewalk::tui::list::arrival;
use bracewalk::tui::message::Read;
use bracewalk::tui::watch::WatchMode;

/// Replies a second the writer keeps to (catching up when a pause held it back).
const RATE: f64 = 150.0;
/// Files the burst drops at once.
pub const BURST: usize = 400;

/// What a soak wrote, and when each follower agreed with the directory after it stopped.
pub struct Report {
    pub written: Written,
    pub agreed: Vec<(WatchMode, usize, f64)>,
}

pub fn soak(length: Duration) -> Report {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("bench");
    let mut writer = Writer::new(&root, 0x5eed_cafe);
    let mut followers =
        [Follower::with_readings(&root, WatchMode::Native), Follower::with_readings(&root, WatchMode::Poll)];
    // The second reply of the first document, marked and selected before its log rotates.
    let marked_text = writer.first_texts[1].clone();
    for f in &mut followers {
        agrees(f, "the first load");
        let at = f.state.list.view().iter().position(|&i| *f.state.list.entries()[i].id == *writer.first_id(2));
        f.state.list.set_cursor(at.unwrap());
        let fx = typed(&mut f.state, "mrotates soon\n");
        f.effects(fx);
        assert!(f.state.list.is_marked(f.state.selected().unwrap()), "{:?}: marked", f.mode);
    }
    let marked_key = followers[0].state.selected().unwrap().key;

    let start = Instant::now();
    while start.elapsed() < length {
        writer.step(start.elapsed().as_secs_f64() / length.as_secs_f64());
        for f in &mut followers {
            f.pump();
        }
    }
    let barrier = writer.record("the barrier");
    let written = writer.finish(start.elapsed().as_secs_f64());
    assert!(written.rotated_first, "the first document's log was rotated");

    let mut agreed = Vec::new();
    for f in &mut followers {
        let stopped = Instant::now();
        agrees(f, "the writer stopped");
        agreed.push((f.mode, f.state.list.reply_count(), stopped.elapsed().as_secs_f64()));
    }
    // A reply listed twice late, after the lists agreed, is caught by one more file's wait.
    fs::write(root.join("zz-barrier.jsonl"), barrier).unwrap();
    for f in &mut followers {
        agrees(f, "a barrier after the writer stopped");
        same_place(f, &marked_text, marked_key);
    }
    Report { written, agreed }
}

/// An entry as `list` lists it: its id, where it is, and its text's size and hash.
type Listed = (String, PathBuf, Option<usize>, usize, u64);

/// What loading `root` lists: every reply and every call that left none, and their texts;
/// and a log just begun, empty, as the problem `list` calls it.
fn loaded(root: &Path) -> (Vec<Listed>, BTreeMap<String, (String, bool)>) {
    let mut listed = Vec::new();
    let mut texts = BTreeMap::new();
    Loader::new(LoadOptions::default()).load(&[root.to_path_buf()], &mut |item| match item {
        Item::Reply(r) => {
            listed.push((r.id.clone(), r.source.clone(), r.line, r.text.len(), hash(&r.text)));
            let stopped = Entry::from_item(0, Item::Reply(r.clone())).cut();
            texts.insert(r.id, (r.text, stopped));
        }
        Item::Event(e) => listed.push((e.id, e.source, e.line, 0, 0)),
        // A log just begun, or emptied by a rotation: the inspector says so as `list` does,
        // and reads it again once written.
        Item::Diagnostic(d) if d.problem == Problem::Empty => listed.push((d.to_string(), d.source, None, 0, 0)),
        Item::Diagnostic(d) => panic!("loading the bench: {d}"),
    });
    listed.sort();
    (listed, texts)
}

/// What the inspector lists, as `list` would (its problems too).
fn shown(s: &State) -> Vec<Listed> {
    let mut out: Vec<Listed> = s
        .list
        .entries()
        .iter()
        .map(|e| {
            let (len, hash) = e.text().map_or((0, 0), |t| (t.len, t.hash));
            (e.id.to_string(), e.source.to_path_buf(), e.line, len, hash)
        })
        .collect();
    out.sort();
    out
}

/// Waits until the follower lists what loading the directory lists, every reply read (none
/// lost on the way), then checks each reply's facts against its text on disk.
fn agrees(f: &mut Follower, when: &str) {
    let (want, texts) = loaded(&f.root);
    let start = Instant::now();
    loop {
        f.pump();
        let s = &f.state;
        let read = s.list.entries().iter().all(|e| !e.is_reply() || e.complete());
        if s.list.entries().len() == want.len() && read && shown(s) == want {
            // No other problem listed either: the entries are all replies, calls and empty logs.
            break;
        }
        if start.elapsed() > DEADLINE {
            let problems: Vec<&str> =
                s.list.entries().iter().filter(|e| matches!(e.body, Body::Diagnostic(_))).map(|e| &*e.id).collect();
            panic!(
                "{:?}, {when}: after {DEADLINE:?} the list is not what list lists\n{}\nproblems listed: {problems:#?}\n{}",
                f.mode,
                difference(&want, &shown(s)),
                listing(s)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let s = &f.state;
    assert_eq!(s.loading.diagnostics, 0, "{:?}, {when}: {:?}", f.mode, s.loading.last_diagnostic);
    for e in s.list.entries().iter().filter(|e| e.is_reply()) {
        assert!(!e.gone, "{:?}, {when}: {} is listed as gone", f.mode, e.id);
        let (text, stopped) = &texts[&*e.id];
        let mut expected = e.clone();
        expected.set_facts(Read::whole(e.key, text, *stopped, &s.config).facts);
        assert_eq!(e.facts, expected.facts, "{:?}, {when}: {}'s facts are not its text's", f.mode, e.id);
    }
}

/// The reply marked and selected before its log was rotated: still marked (and saved so) and
/// selected under its new name, the same entry, arrived when it did, not new.
fn same_place(f: &Follower, text: &str, key: u64) {
    let s = &f.state;
    let e = s.selected().unwrap_or_else(|| panic!("{:?}: nothing selected", f.mode));
    assert_eq!((e.text().unwrap().len, e.text().unwrap().hash), (text.len(), hash(text)), "{:?}: {}", f.mode, e.id);
    assert!(e.id.contains("doc00/log.") && !e.id.contains("doc00/log.jsonl"), "{:?}: {} moved", f.mode, e.id);
    assert!(s.list.is_marked(e), "{:?}: the mark moved with {}", f.mode, e.id);
    let saved = f.saved_marks.as_ref().unwrap();
    assert_eq!(saved.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(), [&*e.id], "{:?}", f.mode);
    assert_eq!(arrival(e.key), arrival(key), "{:?}: the same entry", f.mode);
    assert!(!e.new, "{:?}: {} is not new", f.mode, e.id);
}

fn difference(want: &[Listed], got: &[Listed]) -> String {
    let missing: Vec<_> = want.iter().filter(|w| !got.contains(w)).take(10).collect();
    let extra: Vec<_> = got.iter().filter(|g| !want.contains(g)).take(10).collect();
    format!(
        "list lists {}, the inspector {}\nnot listed: {missing:#?}\nlisted, not by list: {extra:#?}",
        want.len(),
        got.len()
    )
}

/// What the writer did.
#[derive(Debug, Default)]
pub struct Written {
    pub seconds: f64,
    pub replies: usize,
    pub pieces: usize,
    pub rotated: usize,
    pub late: usize,
    pub copied: usize,
    pub deleted: usize,
    pub replaced: usize,
    pub documents: usize,
    pub rounds: usize,
    pub rotated_first: bool,
}

/// A document's run directory and the log it writes.
struct Doc {
    dir: PathBuf,
    log: File,
    /// Replies still to write through the handle of a log renamed away.
    late: usize,
    /// Files rotated out of the log (renamed or copied), by number.
    next: usize,
    rotated: Vec<PathBuf>,
}

/// The bench: documents in rounds, each writing replies to its `log.jsonl`.
struct Writer {
    root: PathBuf,
    docs: Vec<Doc>,
    rng: u64,
    n: usize,
    started: Option<Instant>,
    written: Written,
    /// The texts of the first document's first replies.
    first_texts: Vec<String>,
    burst: bool,
    stage: u8,
}

impl Writer {
    fn new(root: &Path, seed: u64) -> Writer {
        let mut w = Writer {
            root: root.to_path_buf(),
            docs: Vec::new(),
            rng: seed,
            n: 0,
            started: None,
            written: Written::default(),
            first_texts: Vec::new(),
            burst: false,
            stage: 0,
        };
        for d in 0..10 {
            w.begin(&format!("round-1/doc{d:02}"));
            for _ in 0..3 {
                w.reply(d);
            }
        }
        w.first_texts = (1..=3).map(|n| w.text(n)).collect();
        w.written = Written::default();
        w
    }

    fn first_id(&self, line: usize) -> String {
        format!("{}:{line}", self.docs[0].dir.join("log.jsonl").display())
    }

    fn random(&mut self) -> u64 {
        // xorshift64*: enough to vary the writes, and the same every run.
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        self.rng.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn chance(&mut self, p: f64) -> bool {
        (self.random() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }

    fn pick(&mut self, n: usize) -> usize {
        (self.random() % n as u64) as usize
    }

    fn text(&self, n: usize) -> String {
        format!("{{\"html\": \"<p>reply {n}</p>\", \"log\": \"ok\"}}")
    }

    fn record(&self, text: &str) -> String {
        let r = serde_json::json!({"ts": "2025-05-12T14:05:17.114Z", "type": "agent_call", "agent": "page.md",
            "image": format!("p{}.png", self.n), "output": text});
        format!("{r}\n")
    }

    fn begin(&mut self, name: &str) {
        let dir = self.root.join(name);
        fs::create_dir_all(&dir).unwrap();
        let log = OpenOptions::new().create(true).append(true).open(dir.join("log.jsonl")).unwrap();
        self.docs.push(Doc { dir, log, late: 0, next: 0, rotated: Vec::new() });
        self.written.documents += 1;
    }

    /// One reply to document `d`'s log, a tenth of them in two pieces.
    fn reply(&mut self, d: usize) {
        self.n += 1;
        let line = self.record(&self.text(self.n));
        let pieces = self.chance(0.1);
        let log = &mut self.docs[d].log;
        if pieces {
            let half = line.len() / 2;
            log.write_all(&line.as_bytes()[..half]).unwrap();
            std::thread::sleep(Duration::from_millis(3));
            log.write_all(&line.as_bytes()[half..]).unwrap();
            self.written.pieces += 1;
        } else {
            log.write_all(line.as_bytes()).unwrap();
        }
        self.written.replies += 1;
        let doc = &mut self.docs[d];
        if doc.late > 0 {
            doc.late -= 1;
            self.written.late += 1;
            if doc.late == 0 {
                doc.log = OpenOptions::new().create(true).append(true).open(doc.dir.join("log.jsonl")).unwrap();
            }
        }
    }

    /// Rotates document `d`'s log by rename; with `late`, replies go on through the old
    /// handle for a while before a fresh log is opened.
    fn rotate(&mut self, d: usize, late: usize) {
        let doc = &mut self.docs[d];
        doc.next += 1;
        let to = doc.dir.join(format!("log.{}.jsonl", doc.next));
        fs::rename(doc.dir.join("log.jsonl"), &to).unwrap();
        doc.rotated.push(to);
        doc.late = late;
        if late == 0 {
            doc.log = OpenOptions::new().create(true).append(true).open(doc.dir.join("log.jsonl")).unwrap();
        }
        self.written.rotated += 1;
        self.written.rotated_first |= d == 0;
    }

    /// One tick of the bench: a reply, and now and then something else, to a document other
    /// than the first (whose marked reply must stay where its one rotation takes it).
    fn step(&mut self, progress: f64) {
        let started = *self.started.get_or_insert_with(Instant::now);
        // New documents a third of the way in, a new round two thirds in; the burst midway.
        if self.stage == 0 && progress > 0.2 {
            self.rotate(0, 3);
            self.stage = 1;
        } else if self.stage == 1 && progress > 0.33 {
            for d in 10..15 {
                self.begin(&format!("round-1/doc{d:02}"));
            }
            self.stage = 2;
        } else if self.stage == 2 && progress > 0.5 && !self.burst {
            for i in 0..BURST {
                self.n += 1;
                let path = self.root.join(format!("round-1/burst/b{i:04}.jsonl"));
                fs::create_dir_all(path.parent().unwrap()).unwrap();
                fs::write(path, self.record(&self.text(self.n))).unwrap();
            }
            self.written.replies += BURST;
            self.burst = true;
            self.stage = 3;
        } else if self.stage == 3 && progress > 0.66 {
            for d in 0..5 {
                self.begin(&format!("round-2/doc{d:02}"));
            }
            self.written.rounds += 1;
            self.stage = 4;
        }
        let d = self.pick(self.docs.len());
        if d != 0 && self.docs[d].late == 0 {
            self.event(d);
        }
        self.reply(d);
        // Keep to the rate: the next reply is due at its place in the schedule.
        let due = started + Duration::from_secs_f64(self.written.replies as f64 / RATE);
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
    }

    /// Now and then, something other than a reply happens to document `d`'s files.
    fn event(&mut self, d: usize) {
        if self.chance(0.03) {
            let late = if self.chance(0.5) { 1 + self.pick(5) } else { 0 };
            self.rotate(d, late);
        } else if self.chance(0.015) {
            // logrotate's copytruncate: a copy with the old content, the log emptied in place.
            let doc = &mut self.docs[d];
            doc.next += 1;
            let copy = doc.dir.join(format!("log.{}.jsonl", doc.next));
            fs::copy(doc.dir.join("log.jsonl"), &copy).unwrap();
            doc.log.set_len(0).unwrap();
            doc.rotated.push(copy);
            self.written.copied += 1;
        } else if self.chance(0.015) && !self.docs[d].rotated.is_empty() {
            let i = self.pick(self.docs[d].rotated.len());
            fs::remove_file(self.docs[d].rotated.remove(i)).unwrap();
            self.written.deleted += 1;
        } else if self.chance(0.015) {
            // A file written aside and renamed over: the document's state, or its log.
            let name = if self.chance(0.3) { "log.jsonl" } else { "state.jsonl" };
            let aside = self.docs[d].dir.join(format!(".{name}.tmp"));
            let body: String = (0..1 + self.pick(3))
                .map(|_| {
                    self.n += 1;
                    self.written.replies += 1;
                    self.record(&self.text(self.n))
                })
                .collect();
            fs::write(&aside, body).unwrap();
            let doc = &mut self.docs[d];
            fs::rename(&aside, doc.dir.join(name)).unwrap();
            if name == "log.jsonl" {
                doc.log = OpenOptions::new().append(true).open(doc.dir.join(name)).unwrap();
            }
            self.written.replaced += 1;
        }
    }

    /// Stops writing: every late writer opens its fresh log, every handle is closed.
    fn finish(mut self, seconds: f64) -> Written {
        for d in 0..self.docs.len() {
            if self.docs[d].late > 0 {
                self.docs[d].late = 1;
                self.reply(d);
            }
        }
        self.written.seconds = seconds;
        std::mem::take(&mut self.written)
    }
}
