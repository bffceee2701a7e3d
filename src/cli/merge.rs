//! `bracewalk scan --merge`: the shards of a scan (each `scan --json --list` of a part of a
//! corpus, in the corpus's order) printed as the one scan of all of it.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::reading::Config;
use crate::scan::Scan;

use super::scan::{Output, print};

/// Reads every shard, appends them in order, and prints the whole as `output`; the exit
/// status is what a scan of all the inputs gives.
pub fn run(shards: &[PathBuf], config: Config, output: Output, list: bool, out: &mut dyn Write) -> Result<u8> {
    let mut merged = Scan::new(config.clone());
    for path in shards {
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        let json: serde_json::Value =
            serde_json::from_slice(&bytes).with_context(|| format!("{}: not JSON", path.display()))?;
        let shard = Scan::from_json(&json, config.clone()).with_context(|| format!("{}", path.display()))?;
        merged.append(shard);
    }
    let code = print(&merged, output, list, out).and_then(|code| out.flush().map(|()| code));
    let code = code.context("writing the scan")?;
    let _ = super::scan::tell_diagnostics(&merged, list, &mut std::io::stderr().lock());
    Ok(code)
}
