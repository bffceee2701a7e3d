//! Where a run log sits in a bench campaign, and what the campaign says about it.
//!
//! The bench harness writes `<out>/ledger.jsonl`, one line per document, and `<out>/<id>/`
//! per run. So a run log's directory names the document, the directory above it names the
//! round (several campaign directories side by side are several rounds), and the ledger
//! there holds the document's outcome. The ledger is read once per campaign and shared.

use std::collections::HashMap;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;

use crate::logs::Name;
use crate::logs::bytes::json::json_error;
use crate::logs::bytes::lines::{Ending, Lines};
use crate::logs::formats::fields::string;
use crate::logs::formats::is_beside;
use crate::logs::model::diagnostic::{Diagnostic, Problem, io_diagnostic};

pub(crate) const LEDGER: &str = "ledger.jsonl";
pub(crate) const RUN_LOG: &str = "log.jsonl";

/// The files of a run directory that describe the run rather than hold replies:
/// `output.html` is the delivered document, the rest are the harness's own records.
pub(crate) const RUN_CONTEXT_FILES: [&str; 4] = ["meta.json", "status.json", "diagnostics.json", "output.html"];

/// Whether `path` is a campaign's ledger, which is read as context by every run beside it
/// (its problems come with the first run that asks for it).
pub fn is_ledger(path: &Path) -> bool {
    path.file_name().is_some_and(|name| name == LEDGER)
}

/// One campaign directory's ledger.
#[derive(Debug, Default)]
pub(crate) struct Campaign {
    pub round: String,
    outcomes: HashMap<String, String>,
}

/// What the directories around a run log say about its replies.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FileContext {
    pub round: Option<Name>,
    pub document: Option<Name>,
    pub document_outcome: Option<Name>,
}

/// Ledgers already read, shared by every file of a load (and by parallel loaders).
#[derive(Debug, Default)]
pub(crate) struct Campaigns {
    cache: Mutex<HashMap<PathBuf, Ledger>>,
}

/// A ledger read: its campaign, and its problems until they are first given.
#[derive(Debug)]
struct Ledger {
    campaign: Option<Arc<Campaign>>,
    problems: Vec<Diagnostic>,
}

impl Campaigns {
    /// The campaign in `dir`, if `dir` holds a ledger. Problems with the ledger are pushed
    /// to `problems` the first time it is asked for, and never again.
    pub fn get(&self, dir: &Path, max_line: usize, problems: &mut dyn FnMut(Diagnostic)) -> Option<Arc<Campaign>> {
        let (campaign, found) = {
            let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
            let ledger = cache.entry(dir.to_path_buf()).or_insert_with(|| read(dir, max_line));
            (ledger.campaign.clone(), std::mem::take(&mut ledger.problems))
        };
        for d in found {
            problems(d);
        }
        campaign
    }

    /// Whether asking for the campaign in `dir` would push problems: read now if it was not
    /// yet, and its problems kept for whoever asks first. Files whose reading may ask for such
    /// a ledger are read in order, so that its problems come where they always came.
    pub fn has_problems(&self, dir: &Path, max_line: usize) -> bool {
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        !cache.entry(dir.to_path_buf()).or_insert_with(|| read(dir, max_line)).problems.is_empty()
    }

    /// The context of the run log at `log`.
    pub fn context_for(&self, log: &Path, max_line: usize, problems: &mut dyn FnMut(Diagnostic)) -> FileContext {
        let mut ctx = FileContext::default();
        let Some(run_dir) = log.parent() else { return ctx };
        ctx.document = dir_name(run_dir).map(Name::from);
        let campaign = run_dir.parent().and_then(|c| self.get(c, max_line, problems));
        if let Some(c) = &campaign {
            ctx.round = Some(c.round.as_str().into());
            ctx.document_outcome = ctx.document.as_deref().and_then(|d| c.outcomes.get(d)).map(|o| o.as_str().into());
        }
        if ctx.document_outcome.is_none() {
            ctx.document_outcome = meta_outcome(run_dir).map(Name::from);
        }
        if campaign.is_none() {
            ctx.document = ctx.document.filter(|_| run_dir.join("meta.json").is_file());
        }
        ctx
    }
}

fn dir_name(dir: &Path) -> Option<String> {
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
    name.or_else(|| std::fs::canonicalize(dir).ok()?.file_name().map(|n| n.to_string_lossy().into_owned()))
}

fn read(dir: &Path, max_line: usize) -> Ledger {
    let mut problems = Vec::new();
    let campaign = read_ledger(dir, max_line, &mut problems).map(Arc::new);
    Ledger { campaign, problems }
}

fn read_ledger(dir: &Path, max_line: usize, problems: &mut Vec<Diagnostic>) -> Option<Campaign> {
    let dir_for_fs = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    let path = dir_for_fs.join(LEDGER);
    let file = match File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            problems.push(io_diagnostic(&path, &e, true));
            return None;
        }
    };
    let path = dir.join(LEDGER);
    let mut campaign = Campaign { round: dir_name(dir).unwrap_or_default(), outcomes: HashMap::new() };
    let mut lines = Lines::new(BufReader::new(file), 0, 0, max_line);
    let mut buf = Vec::new();
    loop {
        let at = match lines.next_line(&mut buf) {
            Ok(Some(at)) => at,
            Ok(None) => break,
            Err(e) => {
                problems.push(Diagnostic::new(&path, Problem::Io(e.to_string())));
                break;
            }
        };
        if buf.iter().all(u8::is_ascii_whitespace) && !at.too_long {
            continue;
        }
        let entry: Value = match serde_json::from_slice(&buf) {
            Ok(v) => v,
            // A ledger line being appended right now.
            Err(_) if at.ending == Ending::Eof => break,
            Err(e) => {
                let problem = Problem::MalformedJson(json_error(&e));
                problems.push(Diagnostic::new(&path, problem).at_line(at.number, at.offset));
                continue;
            }
        };
        match (string(&entry, "id"), string(&entry, "outcome")) {
            // A document run again (`--redo`) has a later line; the later one wins.
            (Some(id), Some(outcome)) => {
                campaign.outcomes.insert(id, outcome);
            }
            _ => {
                let problem = Problem::BadRecord("a ledger line without an id and an outcome".to_owned());
                problems.push(Diagnostic::new(&path, problem).at_line(at.number, at.offset));
            }
        }
    }
    Some(campaign)
}

/// The outcome `meta.json` records, for a run directory with no ledger beside it.
fn meta_outcome(run_dir: &Path) -> Option<String> {
    let dir = if run_dir.as_os_str().is_empty() { Path::new(".") } else { run_dir };
    let bytes = std::fs::read(dir.join("meta.json")).ok()?;
    if bytes.len() > 1 << 20 {
        return None;
    }
    let meta: Value = serde_json::from_slice(&bytes).ok()?;
    string(&meta, "outcome")
}

/// Whether `path` is one of a run directory's context files: named so, beside a run log.
pub(crate) fn is_run_context_file(path: &Path) -> bool {
    is_beside(path, &RUN_CONTEXT_FILES, RUN_LOG)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ledger_is_known_by_its_file_name() {
        assert!(is_ledger(Path::new("round-1/ledger.jsonl")));
        assert!(!is_ledger(Path::new("round-1/ledger.jsonl.bak")));
        assert!(!is_ledger(Path::new("ledger.jsonl/log.jsonl")));
    }
}
