//! Triage marks: a reply id, a note and a time, kept across restarts.
//!
//! Marks live in the user's [state directory](crate::state_dir), never beside the logs:
//! bracewalk does not write into the directories it inspects. The file is JSONL, one mark a
//! line, and is replaced whole through a temporary file and a rename, so a crash mid-write
//! leaves the old marks, never half of the new ones.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// The marks file's name inside the state directory.
pub const FILE: &str = "marks.jsonl";

/// One reply marked for triage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    /// The reply's id (`path:line`, or the record's own id).
    pub id: String,
    pub note: String,
    /// When it was marked, UTC, `2026-01-31T12:00:00Z`.
    pub time: String,
    /// Where the reply is, `path:line`, when that differs from its id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
}

/// The marks file, if a state directory can be named.
pub fn default_path() -> Option<PathBuf> {
    crate::state_dir::path().map(|d| d.join(FILE))
}

/// The marks in `path`, by id; a missing file is no marks. Lines that do not read are
/// skipped (and counted), so one bad line costs one mark, not all of them.
pub fn load(path: &Path) -> io::Result<(BTreeMap<String, Mark>, usize)> {
    let text = match fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((BTreeMap::new(), 0)),
        Err(e) => return Err(e),
    };
    let mut marks = BTreeMap::new();
    let mut bad = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<Mark>(line) {
            Ok(m) => {
                marks.insert(m.id.clone(), m);
            }
            Err(_) => bad += 1,
        }
    }
    Ok((marks, bad))
}

/// Replaces the marks in `path` with `marks`, atomically.
pub fn save(path: &Path, marks: &[Mark]) -> io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(".{FILE}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(to_jsonl(marks).as_bytes())?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// One JSON object a line.
pub fn to_jsonl(marks: &[Mark]) -> String {
    let mut out = String::new();
    for m in marks {
        if let Ok(line) = serde_json::to_string(m) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// A Markdown checklist, for a bug report.
pub fn to_markdown(marks: &[Mark]) -> String {
    let mut out = String::new();
    for m in marks {
        let note = m.note.replace('\n', " ");
        let note = if note.trim().is_empty() { String::new() } else { format!(" — {}", note.trim()) };
        let at = m.reference.as_deref().map(|r| format!(" (`{r}`)")).unwrap_or_default();
        out.push_str(&format!("- [ ] `{}`{at}{note} _({})_\n", m.id, m.time));
    }
    out
}

/// Now, as `2026-01-31T12:00:00Z`.
pub fn now() -> String {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    utc(secs)
}

/// Seconds since the epoch as an ISO-8601 UTC time.
pub fn utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// Howard Hinnant's `civil_from_days`: the proleptic Gregorian date of a day number.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_utc_iso_8601() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc(1_767_225_599), "2025-12-31T23:59:59Z");
    }

    #[test]
    fn marks_round_trip_through_an_atomic_write() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state").join(FILE);
        let marks = vec![
            Mark { id: "a.jsonl:3".into(), note: "html: 3 chars".into(), time: utc(0), reference: None },
            Mark { id: "msg_1".into(), note: String::new(), time: utc(60), reference: Some("b.jsonl:9".into()) },
        ];
        save(&path, &marks).unwrap();
        let (loaded, bad) = load(&path).unwrap();
        assert_eq!(bad, 0);
        assert_eq!(loaded.into_values().collect::<Vec<_>>(), marks);
        let names: Vec<_> = fs::read_dir(path.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from(FILE)], "no temporary file is left behind");
        assert_eq!(
            to_markdown(&marks),
            "- [ ] `a.jsonl:3` — html: 3 chars _(1970-01-01T00:00:00Z)_\n- [ ] `msg_1` (`b.jsonl:9`) _(1970-01-01T00:01:00Z)_\n"
        );
    }

    #[test]
    fn a_missing_file_is_no_marks_and_a_bad_line_costs_one() {
        let dir = tempfile::tempdir().unwrap();
        assert!(load(&dir.path().join("none")).unwrap().0.is_empty());
        let p = dir.path().join(FILE);
        fs::write(&p, "{\"id\":\"x\",\"note\":\"n\",\"time\":\"t\"}\nnot json\n").unwrap();
        let (m, bad) = load(&p).unwrap();
        assert_eq!((m.len(), bad), (1, 1));
    }
}
