//! The user's state directory: where bracewalk keeps what outlives a run (the inspector's
//! triage marks, the logs of reader commands), never beside the logs it inspects.
//!
//! `$BRACEWALK_STATE_DIR`, else `$XDG_STATE_HOME/bracewalk`, else
//! `~/.local/state/bracewalk`, else (Windows) `%LOCALAPPDATA%\bracewalk`.

use std::path::PathBuf;

/// The state directory, if one can be named at all.
pub fn path() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(dir) = var("BRACEWALK_STATE_DIR") {
        return Some(dir);
    }
    if let Some(dir) = var("XDG_STATE_HOME") {
        return Some(dir.join("bracewalk"));
    }
    if let Some(home) = var("HOME") {
        return Some(home.join(".local").join("state").join("bracewalk"));
    }
    var("LOCALAPPDATA").map(|d| d.join("bracewalk"))
}
