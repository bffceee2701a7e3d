//! The follower under the faults a watched directory meets: the directory deleted and
//! recreated, a log truncated and rewritten, a log replaced by an atomic rename, 10,000 files
//! at once, a line written in small pieces, native watching unavailable. Each test runs the
//! real follower on threads over a temporary directory ([`Follower`]), one watching by
//! native events and one polling, side by side on the same files, and applies everything
//! each sends to its own real [`State`] through `update`: what is checked is what the user
//! sees, the replies listed against the replies on disk, as multisets of (file, line, text):
//! none lost, none twice. Waits poll for a condition with a generous deadline; nothing
//! asserts on how long anything took.

use crate::support::follower::{DEADLINE, Follower};
use crate::support::tui_fixture as fixture;

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bracewalk::tui::State;
use bracewalk::tui::message::WatchState;
use bracewalk::tui::watch::WatchMode;
use serde_json::json;

/// A reply as the user sees it: file, line, text.
/// A reply as listed: where it is, and its text's size and hash (the list keeps no text).
type Shown = (PathBuf, Option<usize>, usize, u64);

fn shown_text(path: &Path, line: Option<usize>, text: &str) -> Shown {
    (path.to_path_buf(), line, text.len(), bracewalk::tui::entry::hash(text))
}

/// One JSONL record holding an assistant's reply, with its newline.
fn record(text: &str) -> String {
    format!("{}\n", json!({"type": "message", "role": "assistant", "content": [{"type": "text", "text": text}]}))
}

fn records(texts: &[String]) -> String {
    texts.iter().map(|t| record(t)).collect()
}

fn texts(prefix: &str, n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("{prefix} #{i}")).collect()
}

fn write(path: &Path, body: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, body).unwrap();
}

fn append(path: &Path, body: &str) {
    let mut f = OpenOptions::new().create(true).append(true).open(path).unwrap();
    f.write_all(body.as_bytes()).unwrap();
}

/// The replies on disk under `root`, read independently of bracewalk: every whole line, and
/// a last line without its newline when it is already a whole record (as the loader reads
/// it). Hidden names are passed over, as the walk does.
fn on_disk(root: &Path) -> Vec<Shown> {
    let mut out = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    if root.is_file() {
        dirs.clear();
        read_log(root, &mut out);
    }
    while let Some(dir) = dirs.pop() {
        let Ok(list) = fs::read_dir(&dir) else { continue };
        for entry in list.flatten() {
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                read_log(&path, &mut out);
            }
        }
    }
    out.sort();
    out
}

fn read_log(path: &Path, out: &mut Vec<Shown>) {
    let Ok(bytes) = fs::read(path) else { return };
    let body = String::from_utf8(bytes).unwrap();
    let lines: Vec<&str> = body.split_inclusive('\n').collect();
    for (i, line) in lines.iter().enumerate() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line.trim_end()) else {
            assert!(
                i + 1 == lines.len() && !line.ends_with('\n'),
                "{}:{}: not a record: {line:?}",
                path.display(),
                i + 1
            );
            continue;
        };
        let text = v["content"][0]["text"].as_str().unwrap();
        out.push(shown_text(path, Some(i + 1), text));
    }
}

impl Follower {
    /// Waits until the replies listed are the replies on disk.
    fn agrees(&mut self, when: &str) {
        let want = on_disk(&self.root);
        let start = Instant::now();
        loop {
            self.pump();
            // Counting first spares building and sorting 10,000 tuples every turn.
            let count = self.state.list.reply_count();
            if count == want.len() && shown(&self.state) == want {
                assert_eq!(
                    self.state.loading.diagnostics, 0,
                    "{:?}, {when}: {:?}",
                    self.mode, self.state.loading.last_diagnostic
                );
                return;
            }
            if start.elapsed() > DEADLINE {
                let got = shown(&self.state);
                panic!(
                    "{:?}, {when}: after {DEADLINE:?} the list is not what is on disk\n{}",
                    self.mode,
                    diff(&want, &got)
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Checks that every reply listed is on disk (as often as listed), and no problem was.
    fn only_what_is_on_disk(&mut self, when: &str) {
        self.pump();
        let disk = on_disk(&self.root);
        let got = shown(&self.state);
        let mut left = disk.clone();
        for g in &got {
            let Some(i) = left.iter().position(|d| d == g) else {
                panic!("{:?}, {when}: listed but not (so often) on disk: {g:?}\n{}", self.mode, diff(&disk, &got));
            };
            left.remove(i);
        }
        assert_eq!(
            self.state.loading.diagnostics, 0,
            "{:?}, {when}: {:?}",
            self.mode, self.state.loading.last_diagnostic
        );
    }
}

/// A native follower and a polling one, on the same root.
struct Both {
    root: PathBuf,
    followers: [Follower; 2],
    barriers: usize,
}

impl Both {
    fn start(root: &Path) -> Both {
        let followers = [Follower::start(root, WatchMode::Native), Follower::start(root, WatchMode::Poll)];
        Both { root: root.to_path_buf(), followers, barriers: 0 }
    }

    /// Waits until both list what is on disk. A reply read twice after that is caught by
    /// the next step's check, which compares everything again.
    fn agree(&mut self, when: &str) {
        for f in &mut self.followers {
            f.agrees(when);
        }
    }

    /// The last step's check: waits until both list what is on disk, then writes one more
    /// reply and waits for it too, so a reply read twice late, before that one was, is
    /// caught.
    fn agree_for_good(&mut self, when: &str) {
        self.agree(when);
        self.barriers += 1;
        let barrier = record(&format!("barrier {}", self.barriers));
        if self.root.is_dir() {
            write(&self.root.join(format!("zz-barrier-{}.jsonl", self.barriers)), &barrier);
        } else {
            // A log opened by name: the barrier is its next line.
            append(&self.root, &barrier);
        }
        self.agree(&format!("{when}, then a barrier"));
    }
}

/// The replies listed: a deleted file's are not, as `bracewalk list` does not list them.
fn shown(s: &State) -> Vec<Shown> {
    let mut out: Vec<Shown> = s
        .list
        .entries()
        .iter()
        .filter(|e| e.is_reply())
        .map(|e| {
            let t = e.text().unwrap();
            (e.source.to_path_buf(), e.line, t.len, t.hash)
        })
        .collect();
    out.sort();
    out
}

/// What one multiset has that the other lacks, both ways.
fn diff(want: &[Shown], got: &[Shown]) -> String {
    let mut missing = want.to_vec();
    let mut extra = Vec::new();
    for g in got {
        match missing.iter().position(|w| w == g) {
            Some(i) => {
                missing.remove(i);
            }
            None => extra.push(g.clone()),
        }
    }
    let show = |v: &[Shown]| v.iter().take(12).map(|s| format!("  {s:?}")).collect::<Vec<_>>().join("\n");
    format!(
        "on disk {}, listed {}\nlost ({}):\n{}\nextra or twice ({}):\n{}",
        want.len(),
        got.len(),
        missing.len(),
        show(&missing),
        extra.len(),
        show(&extra)
    )
}

/// A directory of logs in a fresh temporary directory.
fn logs() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("logs");
    fs::create_dir(&root).unwrap();
    (dir, root)
}

#[test]
fn the_watched_directory_deleted_and_recreated() {
    let (_dir, root) = logs();
    write(&root.join("a.jsonl"), &records(&texts("a", 3)));
    write(&root.join("run/b.jsonl"), &records(&texts("b", 2)));
    let mut both = Both::start(&root);
    both.agree("the first load");

    fs::remove_dir_all(&root).unwrap();
    both.agree("the directory deleted");
    // Back, with other content: a log of the same name, shorter, and a new one.
    write(&root.join("a.jsonl"), &records(&texts("second a", 1)));
    write(&root.join("c.jsonl"), &records(&texts("c", 2)));
    both.agree("the directory recreated");
    // Regression: the native watch had died with the directory, and this went unseen.
    append(&root.join("a.jsonl"), &records(&texts("second a, more", 2)));
    write(&root.join("run/d.jsonl"), &records(&texts("d", 1)));
    both.agree("writes into the recreated directory");

    // Deleted and recreated at once, before the followers can look: the log comes back
    // longer than what had been read of it (and ext4 may give it the old inode number).
    fs::remove_dir_all(&root).unwrap();
    write(&root.join("a.jsonl"), &records(&texts("third a", 6)));
    write(&root.join("run/d.jsonl"), &records(&texts("third d", 2)));
    both.agree("the directory deleted and recreated at once");
    append(&root.join("run/d.jsonl"), &records(&texts("third d, more", 1)));
    both.agree_for_good("writes after the second recreation");
}

#[test]
fn a_log_truncated_and_rewritten() {
    let (_dir, root) = logs();
    let a = root.join("a.jsonl");
    write(&a, &records(&texts("a", 3)));
    write(&root.join("b.jsonl"), &records(&texts("b", 1)));
    let mut both = Both::start(&root);
    both.agree("the first load");

    // Regression: truncated, then written again longer than before, before the followers
    // look. The size alone does not tell; the old replies stayed and the new were lost.
    let file = OpenOptions::new().write(true).open(&a).unwrap();
    file.set_len(0).unwrap();
    drop(file);
    append(&a, &records(&texts("rewritten a", 5)));
    both.agree("a log truncated and rewritten longer");

    // Rewritten shorter (opened with truncation, written).
    fs::write(&a, records(&texts("shorter a", 2))).unwrap();
    both.agree("a log rewritten shorter");

    // Truncated and left empty for a while, then written.
    OpenOptions::new().write(true).truncate(true).open(&a).unwrap();
    both.agree("a log truncated to nothing");
    append(&a, &records(&texts("refilled a", 2)));
    both.agree_for_good("a truncated log written again");
}

#[test]
fn a_log_replaced_by_an_atomic_rename() {
    let (_dir, root) = logs();
    let a = root.join("a.jsonl");
    write(&a, &records(&texts("a", 2)));
    let mut both = Both::start(&root);
    both.agree("the first load");

    // Written aside under a hidden name, renamed over: longer than before.
    let aside = root.join(".a.jsonl.tmp");
    write(&aside, &records(&texts("renamed a", 4)));
    fs::rename(&aside, &a).unwrap();
    both.agree("a log replaced by a rename");

    // Written aside under a name the walk lists, renamed over.
    let listed = root.join("a.jsonl.new");
    write(&listed, &records(&texts("renamed again a", 3)));
    fs::rename(&listed, &a).unwrap();
    both.agree("a log replaced by a rename from a listed name");

    // Regression: twice in a row, before the followers look. The second file is given the
    // inode number the first replacement freed, the one last read.
    write(&aside, &records(&texts("first of two", 5)));
    fs::rename(&aside, &a).unwrap();
    write(&aside, &records(&texts("second of two", 5)));
    fs::rename(&aside, &a).unwrap();
    both.agree("a log replaced twice at once");

    // The file renamed in is followed as it grows.
    append(&a, &records(&texts("appended to the renamed a", 2)));
    both.agree_for_good("a renamed-in log appended to");
}

#[test]
fn a_log_opened_by_name_replaced_by_an_atomic_rename() {
    // Opened as a file, not a directory: the directory holding it is watched, so the
    // rename is seen.
    let (_dir, root) = logs();
    let a = root.join("a.jsonl");
    write(&a, &records(&texts("a", 2)));
    let mut both = Both::start(&a);
    both.agree("the first load");
    let aside = root.join(".a.jsonl.tmp");
    write(&aside, &records(&texts("renamed a", 3)));
    fs::rename(&aside, &a).unwrap();
    both.agree("the log opened replaced by a rename");
    append(&a, &records(&texts("appended", 1)));
    both.agree_for_good("the renamed-in log appended to");
}

#[test]
fn ten_thousand_files_at_once() {
    let (_dir, root) = logs();
    write(&root.join("a.jsonl"), &records(&texts("a", 1)));
    let mut both = Both::start(&root);

    // Half beside the first log, half in a new directory: a native watcher's queue may
    // overflow, and the new directory's watch may start after its files are written.
    for i in 0..5_000 {
        write(&root.join(format!("f{i:05}.jsonl")), &record(&format!("file {i}")));
        write(&root.join(format!("burst/g{i:05}.jsonl")), &record(&format!("burst file {i}")));
    }
    both.agree("10,000 files added at once");
    for f in &both.followers {
        assert_eq!(shown(&f.state).len(), 10_001, "{:?}", f.mode);
    }
    // Both places are still followed.
    append(&root.join("f00042.jsonl"), &record("file 42, later"));
    append(&root.join("burst/g04999.jsonl"), &record("burst file 4999, later"));
    both.agree_for_good("files among the 10,000 appended to");
}

#[test]
fn a_line_written_in_small_pieces() {
    let (_dir, root) = logs();
    let a = root.join("a.jsonl");
    write(&a, &records(&texts("a", 1)));
    let mut both = Both::start(&root);
    both.agree("the first load");

    for n in 1..=2 {
        let line = record(&format!("written in pieces #{n}"));
        let body = line.trim_end();
        // Cut mid-key, mid-text, and just before the newline (a whole record, unterminated),
        // then only before the newline.
        let cuts = if n == 1 { vec![7, body.len() - 12, body.len()] } else { vec![body.len()] };
        let mut from = 0;
        for to in cuts {
            append(&a, &line[from..to]);
            from = to;
            let when = format!("line {n} written up to byte {to}");
            for f in &mut both.followers {
                // A poll may be under way when the piece lands: the second look began after.
                f.looked(if f.mode == WatchMode::Native { 1 } else { 2 });
                if to == body.len() {
                    // A whole record is read before its newline comes (and not again after).
                    f.agrees(&when);
                } else {
                    f.only_what_is_on_disk(&when);
                }
            }
        }
        append(&a, &line[from..]);
    }
    both.agree("two lines written in pieces");

    // A writer streaming a line a few bytes at a time.
    let line = record("streamed a few bytes at a time");
    for piece in line.as_bytes().chunks(5) {
        append(&a, std::str::from_utf8(piece).unwrap());
        std::thread::sleep(Duration::from_millis(15));
        for f in &mut both.followers {
            f.only_what_is_on_disk("a line streamed");
        }
    }
    both.agree_for_good("a line streamed");
}

#[test]
fn polling_takes_over_when_native_watching_is_unavailable() {
    let (_dir, root) = logs();
    write(&root.join("a.jsonl"), &records(&texts("a", 2)));
    let mut f = Follower::start(&root, WatchMode::NativeExhausted);
    let WatchState::Polling(why) = &f.state.loading.watch else { panic!("not polling: {:?}", f.state.loading.watch) };
    assert!(why.contains("limit on file watches"), "{why}");
    let screen = fixture::screen(&f.state);
    let status = screen.lines().rev().find(|l| l.contains("polling")).unwrap_or_else(|| panic!("{screen}"));
    assert!(status.contains("polling every 0.5 s (cannot watch "), "{status}");
    assert!(status.contains("limit on file watches"), "{status}");
    f.agrees("the first load");
    // And polling follows.
    append(&root.join("a.jsonl"), &records(&texts("a, more", 2)));
    write(&root.join("run/b.jsonl"), &records(&texts("b", 1)));
    f.agrees("writes while polling");
}

#[test]
fn an_idle_native_follower_stays_idle() {
    // Regression: inotify reports every open, the follower's own reads included, and it
    // answered each by reading again: every file, several times a second, for ever.
    let (_dir, root) = logs();
    write(&root.join("a.jsonl"), &records(&texts("a", 2)));
    write(&root.join("run/b.jsonl"), &records(&texts("b", 2)));
    let mut f = Follower::start(&root, WatchMode::Native);
    f.agrees("the first load");
    append(&root.join("a.jsonl"), &records(&texts("a, more", 1)));
    f.agrees("an append");
    // Once the append's own events are answered, the follower falls quiet; with the bug it
    // looked every 150 ms or so and never did.
    let quiet = Duration::from_millis(1500);
    let start = Instant::now();
    let (mut looks, mut since) = (f.looks, Instant::now());
    while since.elapsed() < quiet {
        assert!(start.elapsed() < DEADLINE, "the follower kept looking with nothing written");
        std::thread::sleep(Duration::from_millis(50));
        f.pump();
        if f.looks != looks {
            (looks, since) = (f.looks, Instant::now());
        }
    }
}

#[test]
fn a_log_rotated_by_rename_and_written_late_is_listed_once() {
    // Regression: a log renamed while its logger wrote on through the old handle was listed
    // twice, its replies kept (as gone) at the old name and read again at the new one: the
    // inspector counted 3,203 replies where `bracewalk list` counted 2,731.
    let (_dir, root) = logs();
    let log = root.join("run/log.jsonl");
    write(&log, &records(&texts("a", 3)));
    let mut both = Both::start(&root);
    both.agree("the first load");
    let mut handle = OpenOptions::new().append(true).open(&log).unwrap();
    fs::rename(&log, root.join("run/log.1.jsonl")).unwrap();
    both.agree("a log renamed");
    handle.write_all(records(&texts("written late", 2)).as_bytes()).unwrap();
    both.agree("written late through the old handle");
    drop(handle);
    append(&log, &records(&texts("a fresh log", 1)));
    // Rotated again, the renamed one on: a chain.
    fs::rename(root.join("run/log.1.jsonl"), root.join("run/log.2.jsonl")).unwrap();
    fs::rename(&log, root.join("run/log.1.jsonl")).unwrap();
    append(&log, &records(&texts("the freshest log", 1)));
    both.agree_for_good("a chain rotated");
}

#[test]
fn a_deleted_log_leaves_the_list() {
    // Regression: a deleted file's replies stayed listed (struck through), where `bracewalk
    // list` lists none of them.
    let (_dir, root) = logs();
    write(&root.join("a.jsonl"), &records(&texts("a", 3)));
    write(&root.join("run/b.jsonl"), &records(&texts("b", 2)));
    let mut both = Both::start(&root);
    both.agree("the first load");
    fs::remove_file(root.join("a.jsonl")).unwrap();
    both.agree("a log deleted");
    for f in &both.followers {
        let said = f.state.flash.as_deref().unwrap_or_default();
        assert!(said.contains("a.jsonl, 3 replies left the list"), "{:?}: {said}", f.mode);
    }
    fs::remove_dir_all(root.join("run")).unwrap();
    both.agree_for_good("a directory of logs deleted");
}

#[test]
fn a_log_copied_then_truncated_is_listed_as_both_files() {
    // logrotate's copytruncate: the copy is a new file with the old replies, and the log,
    // emptied in place, grows again.
    let (_dir, root) = logs();
    let log = root.join("log.jsonl");
    write(&log, &records(&texts("a", 3)));
    let mut both = Both::start(&root);
    both.agree("the first load");
    let mut handle = OpenOptions::new().append(true).open(&log).unwrap();
    fs::copy(&log, root.join("log.1.jsonl")).unwrap();
    handle.set_len(0).unwrap();
    both.agree("a log copied, then truncated");
    handle.write_all(records(&texts("after the truncation", 4)).as_bytes()).unwrap();
    both.agree_for_good("the truncated log written again, past where it was read");
}
