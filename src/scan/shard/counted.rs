//! A shard read back by its counts: what a merge that lists nothing needs of it. Its
//! differences are kept whole, with the ids and accounts a report prints; every other row is
//! a count ([`Scan::unlisted`]), so a merge holds its differences and diagnostics, not its
//! replies. The shard's ids are passed over as they are read, never held.

use std::collections::HashMap;
use std::io::Read;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Map, Value as Json};

use crate::read::trace::DecidedBy;
use crate::reading::{Class, Config};

use super::super::merge::{ShardError, at, check_config, number};
use super::super::report::{self, Kind, Row};
use super::super::scanner::{Difference, Group, ReplyName, Scan};

/// A shard as a counted merge reads it: its diagnostics out of its ids, the rest of its ids
/// passed over, everything else as JSON (counts and differences: small).
#[derive(Deserialize)]
struct Counted {
    ids: Option<Ids>,
    #[serde(flatten)]
    rest: Map<String, Json>,
}

#[derive(Deserialize)]
struct Ids {
    diagnostics: Vec<String>,
}

impl Scan {
    /// Reads back, by its counts, the scan that `scan --json --list` printed to `reader`,
    /// made under `config`: it prints as the scan that printed it, without `--list`.
    pub fn from_counts(reader: impl Read, config: Config) -> Result<Scan, ShardError> {
        let read: Counted = serde_json::from_reader(std::io::BufReader::new(reader))
            .map_err(|e| ShardError::NotAScan(format!("not JSON: {e}")))?;
        let ids = read.ids.ok_or(ShardError::NoIds)?;
        let json = Json::Object(read.rest);
        let mut scan = Scan::new(config);
        check_config(&json, &scan)?;
        scan.bytes = number(&json, "bytes")?;
        let replies = count(number(&json, "replies")?);
        scan.unlisted.calls_without_reply = count(number(&json, "calls_without_reply")?);
        let diagnostics = number(&json, "diagnostics")?;
        if diagnostics != ids.diagnostics.len() as u64 {
            return Err(ShardError::Miscounted {
                row: "diagnostics".to_owned(),
                listed: ids.diagnostics.len(),
                count: diagnostics,
            });
        }
        scan.diagnostics = ids.diagnostics;
        scan.elapsed =
            json.get("elapsed_seconds").and_then(Json::as_f64).and_then(|s| Duration::try_from_secs_f64(s).ok());
        for (top, groups) in
            [("by_agent", &mut scan.by_agent), ("by_round", &mut scan.by_round), ("by_format", &mut scan.by_format)]
        {
            let found =
                json.get(top).and_then(Json::as_object).ok_or_else(|| ShardError::NotAScan(format!("no {top}")))?;
            for (name, g) in found {
                let decided = |d: DecidedBy| g.get("decided_by").and_then(|m| m.get(d.name())).and_then(Json::as_u64);
                groups.insert(
                    name.clone(),
                    Group {
                        replies: Vec::new(),
                        bytes: g.get("bytes").and_then(Json::as_u64).unwrap_or(0),
                        decided_by: DecidedBy::ALL.map(|d| decided(d).map_or(0, count)),
                    },
                );
            }
        }

        // Each reply a difference names, once: where it was read, when its id repeats.
        let mut named: HashMap<(String, Option<String>), usize> = HashMap::new();
        for section in report::sections(&scan) {
            for row in &section.rows {
                let name = row.name(&scan.config);
                let value = at(&json, &row.json_key(&scan.config))
                    .ok_or_else(|| ShardError::NotAScan(format!("no count for {name}")))?;
                let n = value.as_u64().or_else(|| value.get("replies").and_then(Json::as_u64));
                match (section.kind, row) {
                    (Kind::Comparisons, Row::Differs(p)) => {
                        let listed = value
                            .get("replies")
                            .and_then(Json::as_array)
                            .ok_or_else(|| ShardError::NotAScan(format!("no differences for {name}")))?;
                        let mut differ = Vec::with_capacity(listed.len());
                        for d in listed {
                            let text = |k: &str| d.get(k).and_then(Json::as_str).map(str::to_owned);
                            let class = text("class").as_deref().and_then(Class::named).ok_or_else(|| {
                                ShardError::NotAScan(format!("{name}: a difference with no class: {d}"))
                            })?;
                            let key = (text("id").unwrap_or_default(), text("reference"));
                            let reply = *named.entry(key.clone()).or_insert_with(|| {
                                scan.replies.push(ReplyName { id: key.0, reference: key.1 });
                                scan.replies.len() - 1
                            });
                            differ.push(Difference { reply, class, account: text("account").unwrap_or_default() });
                        }
                        let want = value.get("differ").and_then(Json::as_u64);
                        if want != Some(differ.len() as u64) {
                            return Err(ShardError::Miscounted {
                                row: name,
                                listed: differ.len(),
                                count: want.unwrap_or(0),
                            });
                        }
                        if let Some(c) = scan.comparisons.get_mut(*p) {
                            c.differ = differ;
                        }
                        for class in Class::ALL {
                            let row = Row::Class(*p, class);
                            let (listed, want) = (row.count(&scan), value.get(class.name()).and_then(Json::as_u64));
                            if want != Some(listed as u64) {
                                let row = row.name(&scan.config);
                                return Err(ShardError::Miscounted { row, listed, count: want.unwrap_or(0) });
                            }
                        }
                    }
                    _ => {
                        let n = n.ok_or_else(|| ShardError::NotAScan(format!("no count for {name}")))?;
                        if let Row::Truncated(t) = row
                            && let Some(t) = scan.truncation.get_mut(*t)
                        {
                            t.entries = count(value.get("entries").and_then(Json::as_u64).unwrap_or(0));
                        }
                        if n > 0 {
                            scan.unlisted.rows.insert(row.clone(), count(n));
                        }
                    }
                }
            }
        }
        // The replies a difference names are listed; the rest are counted.
        scan.unlisted.replies = replies.checked_sub(scan.replies.len()).ok_or_else(|| ShardError::Miscounted {
            row: "replies".to_owned(),
            listed: scan.replies.len(),
            count: replies as u64,
        })?;
        Ok(scan)
    }
}

fn count(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}
