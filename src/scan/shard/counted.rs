//! A shard read back by its counts: what a merge that lists nothing needs of it. Its
//! differences are kept whole, with the ids and accounts a report prints; every other row is
//! a count ([`Scan::unlisted`]), so a merge holds its differences and diagnostics, not its
//! replies. The shard's ids are passed over as they are read, never held.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Read;
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Map, Value as Json};

use crate::analysis::{Class, Config, Flag};
use crate::exact::trace::DecidedBy;
use crate::logs::Name;
use crate::readers::Outcome;

use crate::scan::merge::{ShardError, Unread, at, check_config, number, read_problems};
use crate::scan::report::{self, Kind, Row};
use crate::scan::rounds::{Call, PAGE_AGENT};
use crate::scan::scanner::{Difference, Group, NOTED, ReplyName, Scan};

/// A shard as a counted merge reads it: its diagnostics out of its ids (and, for `KEEP`, which
/// replies it read and which a reader failed on), the rest of its ids passed over, each
/// comparison's differences as they are listed, everything else as JSON (counts: small). It
/// is read key by key, so nothing of it is held twice (serde's `flatten` would hold all the
/// rest as it was read, and again as JSON).
struct Counted<I> {
    ids: Option<I>,
    /// Each comparison's differences, by its key.
    differences: HashMap<String, Vec<Listed>>,
    rest: Map<String, Json>,
}

/// A comparison as a shard prints it: its differences, and its counts.
#[derive(Deserialize)]
struct Compared {
    replies: Option<Vec<Listed>>,
    #[serde(flatten)]
    counts: Map<String, Json>,
}

/// A difference as a shard lists it.
#[derive(Deserialize)]
struct Listed {
    #[serde(default)]
    id: String,
    reference: Option<String>,
    class: Option<String>,
    #[serde(default)]
    account: String,
}

impl<'de, I: Deserialize<'de>> Deserialize<'de> for Counted<I> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<I>(std::marker::PhantomData<I>);
        impl<'de, I: Deserialize<'de>> serde::de::Visitor<'de> for Visit<I> {
            type Value = Counted<I>;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("the object `scan --json --list` prints")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Counted<I>, A::Error> {
                let mut read = Counted { ids: None, differences: HashMap::new(), rest: Map::new() };
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "ids" => read.ids = Some(map.next_value()?),
                        "comparisons" => {
                            let compared: BTreeMap<String, Compared> = map.next_value()?;
                            let mut counts = Map::new();
                            for (pair, c) in compared {
                                if let Some(listed) = c.replies {
                                    read.differences.insert(pair.clone(), listed);
                                }
                                counts.insert(pair, Json::Object(c.counts));
                            }
                            read.rest.insert(key, Json::Object(counts));
                        }
                        _ => {
                            let value = map.next_value()?;
                            read.rest.insert(key, value);
                        }
                    }
                }
                Ok(read)
            }
        }
        deserializer.deserialize_map(Visit(std::marker::PhantomData))
    }
}

#[derive(Deserialize)]
struct Ids {
    unread: Vec<Unread>,
    #[serde(default)]
    pages: Vec<PageCall>,
}

#[derive(Deserialize)]
struct Keep {
    unread: Vec<Unread>,
    #[serde(default)]
    pages: Vec<PageCall>,
    replies: Vec<String>,
    references: Vec<Option<String>>,
    #[serde(default)]
    reader_failed: BTreeMap<String, Vec<Json>>,
}

/// A call of a bench document's page as a shard lists it (`ids.pages`): what `page-shrank` is
/// raised from once every round is in.
#[derive(Deserialize)]
struct PageCall {
    id: String,
    reference: Option<String>,
    round: String,
    document: String,
    page: Option<u32>,
    agent: Option<String>,
    ts: Option<String>,
    html: Option<usize>,
    #[serde(default = "yes")]
    ended: bool,
}

fn yes() -> bool {
    true
}

/// Of a shard's page calls, the ones a page's history can take as its final answer in a
/// round, whichever shard holds the rest of the run: for each page of each document's run,
/// the page agent's last call (by time, then order), or where it has none the last call; and
/// for each run one call that says whether it ended. A merge that lists nothing holds these,
/// not every call.
fn finals(calls: Vec<PageCall>) -> Vec<PageCall> {
    type Run = (String, String);
    let mut ended: HashMap<Run, bool> = HashMap::new();
    let mut by_page: HashMap<(Run, u32), Vec<usize>> = HashMap::new();
    let mut first_of_run: HashMap<Run, usize> = HashMap::new();
    for (n, c) in calls.iter().enumerate() {
        let run = (c.round.clone(), c.document.clone());
        *ended.entry(run.clone()).or_default() |= c.ended;
        first_of_run.entry(run.clone()).or_insert(n);
        if let Some(p) = c.page {
            by_page.entry((run, p)).or_default().push(n);
        }
    }
    let mut kept = vec![false; calls.len()];
    for mut at in by_page.into_values() {
        at.sort_by(|&a, &b| calls[a].ts.cmp(&calls[b].ts).then(a.cmp(&b)));
        let page_agent = at.iter().rev().find(|&&n| calls[n].agent.as_deref() == Some(PAGE_AGENT));
        if let Some(&n) = page_agent.or(at.last()) {
            kept[n] = true;
        }
    }
    for &n in first_of_run.values() {
        kept[n] = true;
    }
    calls
        .into_iter()
        .zip(kept)
        .filter(|(_, k)| *k)
        .map(|(mut c, _)| {
            c.ended = ended.get(&(c.round.clone(), c.document.clone())).copied().unwrap_or(c.ended);
            c
        })
        .collect()
}

/// A reply by its id and where it was read (where that is not its id).
pub type Named = (String, Option<String>);

impl Scan {
    /// Reads back, by its counts, the scan that `scan --json --list` printed to `reader`,
    /// made under `config`: it prints as the scan that printed it, without `--list`.
    pub fn from_counts(reader: impl Read, config: Config) -> Result<Scan, ShardError> {
        let read: Counted<Ids> = serde_json::from_reader(std::io::BufReader::new(reader))
            .map_err(|e| ShardError::NotAScan(format!("not JSON: {e}")))?;
        let ids = read.ids.ok_or(ShardError::NoIds)?;
        Scan::counted(Json::Object(read.rest), read.differences, (ids.unread, ids.pages), config, |_| Ok(()))
    }

    /// [`Scan::from_counts`], naming besides the replies of `keep` that the shard read, with
    /// the readers that failed on them: what a check of accepted differences needs to tell one
    /// gone from one it could not check. The shard's ids are held while it is read.
    pub fn from_counts_keeping(reader: impl Read, config: Config, keep: &HashSet<Named>) -> Result<Scan, ShardError> {
        let read: Counted<Keep> = serde_json::from_reader(std::io::BufReader::new(reader))
            .map_err(|e| ShardError::NotAScan(format!("not JSON: {e}")))?;
        let ids = read.ids.ok_or(ShardError::NoIds)?;
        let Keep { unread, pages, replies, references, reader_failed } = ids;
        if references.len() != replies.len() {
            return Err(ShardError::NotAScan("ids.references is not one per reply".to_owned()));
        }
        Scan::counted(Json::Object(read.rest), read.differences, (unread, pages), config, |scan| {
            let mut named: HashMap<usize, usize> = HashMap::new();
            for (i, key) in replies.iter().cloned().zip(references.iter().cloned()).enumerate() {
                if keep.contains(&key) {
                    named.insert(i, scan.replies.len());
                    scan.replies.push(ReplyName { id: key.0.into(), reference: key.1.map(Name::from) });
                }
            }
            let mut by_id: HashMap<&str, Vec<usize>> = HashMap::new();
            for (i, id) in replies.iter().enumerate() {
                by_id.entry(id.as_str()).or_default().push(i);
            }
            let failed = NOTED.iter().position(|&o| o == Outcome::Failed).unwrap_or(2);
            for (reader, listed) in &reader_failed {
                let Ok(reader) = scan.config.catalogue.find(reader) else { continue };
                // Each listed reply is the first of its id after the one listed before it.
                let mut next = 0;
                for item in listed {
                    let id = item.get("id").and_then(Json::as_str).unwrap_or_default();
                    let at = by_id.get(id).and_then(|places| places.iter().copied().find(|&p| p >= next));
                    let Some(at) = at else {
                        return Err(ShardError::UnknownId {
                            row: format!("reader {reader:?} failed"),
                            id: id.to_owned(),
                        });
                    };
                    next = at + 1;
                    if let (Some(&reply), Some(notes)) =
                        (named.get(&at), scan.noted.iter_mut().find(|n| n.reader == reader))
                    {
                        let why = item.get("why").and_then(Json::as_str).unwrap_or_default();
                        notes.replies[failed].push((reply, Arc::from(why)));
                    }
                }
            }
            Ok(())
        })
    }

    /// A scan of the counts in `json` and the comparisons' `differences`, with the inputs'
    /// diagnostics and the page calls of `listed`, and what `name` names of it first.
    fn counted(
        json: Json,
        mut differences: HashMap<String, Vec<Listed>>,
        (unread, pages): (Vec<Unread>, Vec<PageCall>),
        config: Config,
        name: impl FnOnce(&mut Scan) -> Result<(), ShardError>,
    ) -> Result<Scan, ShardError> {
        let mut scan = Scan::new(config);
        check_config(&json, &scan)?;
        scan.bytes = number(&json, "bytes")?;
        let replies = count(number(&json, "replies")?);
        scan.unlisted.calls_without_reply = count(number(&json, "calls_without_reply")?);
        scan.unread = read_problems(&json, &mut scan, unread)?;
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

        name(&mut scan)?;
        // Each reply a difference names, once: where it was read, when its id repeats.
        let mut named: HashMap<Named, usize> = scan
            .replies
            .iter()
            .enumerate()
            .map(|(i, r)| ((r.id.to_string(), r.reference.as_deref().map(str::to_owned)), i))
            .collect();
        let mut name_of = |scan: &mut Scan, key: Named| match named.get(&key) {
            Some(&reply) => reply,
            None => {
                named.insert(key.clone(), scan.replies.len());
                scan.replies.push(ReplyName { id: key.0.into(), reference: key.1.map(Name::from) });
                scan.replies.len() - 1
            }
        };
        for c in finals(pages) {
            let reply = name_of(&mut scan, (c.id, c.reference));
            scan.pages.push(Call {
                reply: Some(reply),
                answered: true,
                round: c.round.into(),
                document: c.document.into(),
                page: c.page,
                agent: c.agent.map(Name::from),
                ts: c.ts.map(Name::from),
                html: c.html,
                ended: c.ended,
            });
        }
        for section in report::sections(&scan) {
            for row in &section.rows {
                let name = row.name(&scan.config);
                let value = at(&json, &row.json_key(&scan.config))
                    .ok_or_else(|| ShardError::NotAScan(format!("no count for {name}")))?;
                let n = value.as_u64().or_else(|| value.get("replies").and_then(Json::as_u64));
                match (section.kind, row) {
                    (Kind::Comparisons, Row::Differs(p)) => {
                        let key = row.json_key(&scan.config).1.unwrap_or_default();
                        let listed = differences
                            .remove(&key)
                            .ok_or_else(|| ShardError::NotAScan(format!("no differences for {name}")))?;
                        let mut differ = Vec::with_capacity(listed.len());
                        for Listed { id, reference, class, account } in listed {
                            let class = class.as_deref().and_then(Class::named).ok_or_else(|| {
                                ShardError::NotAScan(format!("{name}: a difference of {id:?} with no class"))
                            })?;
                            let reply = name_of(&mut scan, (id, reference));
                            differ.push(Difference { reply, class, account: account.into() });
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
                        // Beyond what the row lists (a reader's failures on replies named).
                        // `page-shrank` is raised anew from the page calls once every round is in.
                        let n = if *row == Row::Flag(Flag::PageShrank) {
                            0
                        } else {
                            count(n).saturating_sub(row.count(&scan))
                        };
                        if n > 0 {
                            scan.unlisted.rows.insert(row.clone(), n);
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
