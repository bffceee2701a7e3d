//! Loading a few paths and sorting what came back, for the format tests.

use std::fs;
use std::path::{Path, PathBuf};

use bracewalk::logs::{self, Diagnostic, Event, EventKind, Item, LoadOptions, Reply, StopReason};

#[derive(Default, Debug)]
pub struct Loaded {
    pub replies: Vec<Reply>,
    pub events: Vec<Event>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Loaded {
    /// `(text, stop, provider's word)` of each reply.
    pub fn texts(&self) -> Vec<(&str, StopReason, Option<&str>)> {
        self.replies.iter().map(|r| (r.text.as_str(), r.meta.stop, r.meta.stop_detail.as_deref())).collect()
    }

    /// `(kind, message)` of each call without a reply.
    pub fn kinds(&self) -> Vec<(EventKind, &str)> {
        self.events.iter().map(|e| (e.kind, e.message.as_str())).collect()
    }

    pub fn clean(self) -> Loaded {
        assert!(self.diagnostics.is_empty(), "{:#?}", self.diagnostics);
        self
    }
}

pub fn load_with(paths: &[&Path], opts: &LoadOptions) -> Loaded {
    let paths: Vec<PathBuf> = paths.iter().map(|p| p.to_path_buf()).collect();
    let mut got = Loaded::default();
    logs::load(&paths, opts, &mut |item| match item {
        Item::Reply(r) => got.replies.push(r),
        Item::Event(e) => got.events.push(e),
        Item::Diagnostic(d) => got.diagnostics.push(d),
    });
    got
}

pub fn load(paths: &[&Path]) -> Loaded {
    load_with(paths, &LoadOptions::default())
}

pub fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

pub fn jsonl(values: &[serde_json::Value]) -> String {
    values.iter().map(|v| format!("{v}\n")).collect()
}

/// One file of `text` named `name` in a new directory, loaded.
pub fn one(name: &str, text: &str) -> (tempfile::TempDir, Loaded) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    write(&path, text);
    let got = load(&[&path]);
    (dir, got)
}
