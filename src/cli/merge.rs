//! `bracewalk scan --merge`: the shards of a scan (each `scan --json --list` of a part of a
//! corpus) printed as the one scan of all of it, once their manifests show that they add up
//! to it ([`crate::scan::shard`]).

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value as Json;

use crate::analysis::Config;
use crate::logs;
use crate::scan::shard::{self, Checks, FORMAT, Given, Manifest, Named, Options, Refusal};
use crate::scan::{InputDiagnostic, Scan, ShardError};

use super::accepted;
use super::scan::{Output, exit_code, print};

/// What a merge does with the scan it put together.
#[derive(Debug, Clone)]
pub enum Then {
    /// Prints it (`--json`, `--markdown`, the table; `--list`).
    Print { output: Output, list: bool },
    /// Writes its differences as accepted (`--accept FILE`).
    Accept(PathBuf),
    /// Prints what is not accepted in FILE (`--accepted FILE`, `--json`).
    Check { file: PathBuf, json: bool },
}

/// A merge: the shards as given, the config and options it was given, and its checks.
pub struct Merge<'a> {
    pub shards: &'a [PathBuf],
    pub config: Config,
    pub own: Options,
    /// A list of files every one of which some shard must have read.
    pub expect: Option<&'a Path>,
    pub partial: bool,
    pub then: Then,
}

/// Reads every shard's manifest, refuses shards that do not add up to one scan (naming them),
/// appends them in the corpus's order, and does `then` with the whole. The exit status is what
/// a scan of all the inputs gives, and 2 where a shard read nothing it was given.
pub fn run(merge: Merge, out: &mut dyn Write) -> Result<u8> {
    let mut given = Vec::with_capacity(merge.shards.len());
    for path in merge.shards {
        given.push(Given { name: path.display().to_string(), manifest: read_manifest(path)? });
    }
    let expect = match merge.expect {
        Some(list) => Some((list.display().to_string(), expected(list, given.first().map(|g| &g.manifest))?)),
        None => None,
    };
    let checks = Checks {
        own: merge.own.clone(),
        expect: expect.as_ref().map(|(name, files)| (name.as_str(), files.clone())),
        partial: merge.partial,
    };
    let order = shard::check(&given, &checks).map_err(anyhow::Error::from)?;

    let accepted = match &merge.then {
        Then::Check { file, .. } => Some(accepted::read_accepted(file)?),
        _ => None,
    };
    // Ids are held only where a listing asks for them; otherwise each shard is read by its
    // counts (naming the replies a check of accepted differences asks about).
    let listed = matches!(merge.then, Then::Print { list: true, .. });
    let keep: Option<HashSet<Named>> =
        accepted.as_ref().map(|a| a.iter().map(|e| (e.id.clone(), e.reference.clone())).collect());
    let mut merged = Scan::new(merge.config.clone());
    let mut ledgers = HashSet::new();
    let (mut first, mut last, mut longest) = (f64::INFINITY, f64::NEG_INFINITY, Duration::ZERO);
    for &i in &order {
        let path = &merge.shards[i];
        let shard = if listed {
            let file = File::open(path).with_context(|| format!("reading {}", path.display()))?;
            let json: Json = serde_json::from_reader(BufReader::new(file))
                .with_context(|| format!("{}: not JSON", path.display()))?;
            Scan::from_json(&json, merge.config.clone())
        } else {
            let file = File::open(path).with_context(|| format!("reading {}", path.display()))?;
            match &keep {
                Some(keep) => Scan::from_counts_keeping(file, merge.config.clone(), keep),
                None => Scan::from_counts(file, merge.config.clone()),
            }
        }
        .with_context(|| path.display().to_string())?;
        let mut shard = shard;
        // A campaign's ledger is read by every shard with a run of it, as context, and its
        // problems said by each: one scan says them once, where the first run asked for it.
        shard.unread.retain(|d| {
            let InputDiagnostic::Loaded(loaded) = d;
            !logs::is_ledger(&loaded.source) || ledgers.insert(d.clone())
        });
        let started = given[i].manifest.started;
        let took = shard.elapsed.unwrap_or_default();
        (first, last, longest) = (first.min(started), last.max(started + took.as_secs_f64()), longest.max(took));
        merged.append_unsettled(shard);
    }
    merged.settle_pages();
    // The shards ran side by side: the merge took from the first start to the last end (as
    // their clocks tell), and no less than the longest.
    merged.elapsed = Some(Duration::try_from_secs_f64(last - first).unwrap_or_default().max(longest));

    let empty: Vec<&str> =
        order.iter().filter(|&&i| given[i].manifest.status == 2).map(|&i| given[i].name.as_str()).collect();
    if !empty.is_empty() {
        eprintln!("bracewalk: {} read nothing it was given (its exit status was 2)", empty.join(", "));
    }
    let status = if empty.is_empty() { exit_code(&merged) } else { 2 };
    let manifest = shard::merged(&given, &order, status);
    match merge.then {
        Then::Print { output, list } => {
            print(&merged, output, list, manifest.as_ref(), out)
                .and_then(|_| out.flush())
                .context("writing the scan")?;
            // After the report, so that on a terminal they are the last thing said.
            let _ = super::scan::tell_diagnostics(&merged, list, &mut std::io::stderr().lock());
            Ok(status)
        }
        Then::Accept(file) => {
            accepted::write_accepted(&merged, &file, out)?;
            Ok(status)
        }
        Then::Check { file, json } => {
            accepted::print_check(&merged, accepted.as_deref().unwrap_or_default(), &file, json, status, out)
        }
    }
}

/// The head of a shard: its manifest, and whether it is a scan with its ids; the rest is
/// passed over as it is read.
#[derive(Deserialize)]
struct Head {
    manifest: Option<Json>,
    ids: Option<IgnoredAny>,
    replies: Option<IgnoredAny>,
}

fn read_manifest(path: &Path) -> Result<Manifest> {
    let file = File::open(path).with_context(|| format!("reading {}", path.display()))?;
    let head: Head =
        serde_json::from_reader(BufReader::new(file)).with_context(|| format!("{}: not JSON", path.display()))?;
    let name = path.display();
    if head.replies.is_none() {
        bail!("{name}: {}", ShardError::NotAScan("no count of replies".to_owned()));
    }
    if head.ids.is_none() {
        bail!("{name}: {}", ShardError::NoIds);
    }
    let Some(manifest) = head.manifest else {
        bail!(
            "{name}: no manifest (made by a bracewalk that wrote none): scan it again with this version, with --json --list"
        );
    };
    let format = manifest.get("format").and_then(Json::as_u64).unwrap_or(0);
    if format != u64::from(FORMAT) {
        let found = u32::try_from(format).unwrap_or(u32::MAX);
        return Err(Refusal::OtherFormat { shard: name.to_string(), found }.into());
    }
    serde_json::from_value(manifest).with_context(|| format!("{name}: a manifest that does not read"))
}

/// The files of `list` (one a line, `-` for the standard input), named as the shards name
/// them: relative to their root where they are (a line that starts with the root as given,
/// or where it is, has it taken off).
fn expected(list: &Path, manifest: Option<&Manifest>) -> Result<Vec<String>> {
    let text = if list == Path::new("-") {
        std::io::read_to_string(std::io::stdin()).context("reading the standard input")?
    } else {
        std::fs::read_to_string(list).with_context(|| format!("reading {}", list.display()))?
    };
    let strip = |line: &str| -> String {
        let line = line.strip_prefix("./").unwrap_or(line);
        if let Some(m) = manifest
            && let Some(root) = &m.root
        {
            for prefix in [m.root_path.as_str(), root.as_str()] {
                let prefix = prefix.trim_end_matches('/');
                if let Some(rest) = line.strip_prefix(prefix).and_then(|r| r.strip_prefix('/')) {
                    return rest.to_owned();
                }
            }
        }
        line.to_owned()
    };
    Ok(text.lines().map(str::trim_end).filter(|l| !l.is_empty()).map(strip).collect())
}
