//! Scans that shard: the JSON of `scan --json --list` read back into a [`Scan`], and scans
//! appended one to another in order, so that the scans of the parts of a corpus, merged,
//! are the scan of the whole (`bracewalk scan --merge`).
//!
//! A scan's numbers are lists of replies, and its views print which replies (the table and
//! Markdown with `--list`, the comparisons always), so a shard is read back with the ids
//! behind every count: it must have been made with `--list`. A counts-only JSON says how
//! many but not which, and is refused rather than merged into counts that could not be
//! listed.
//!
//! Reading back goes through the report's rows, as the JSON was written: for each row of
//! [`report::sections`] its listing is found at its [`Row::json_key`] and put back where
//! [`Row::replies`] reads it ([`put`]), and its count is checked against the JSON's. A row
//! added to the report is merged once it is put back here, and the match below does not
//! compile until it is. Appending shifts the second scan's replies past the first's; every
//! list stays in load order, so shards given in the order of the corpus's inputs merge to
//! the scan of all of them.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value as Json;

use crate::analysis::{Class, Config};
use crate::exact::trace::DecidedBy;
use crate::logs::{Diagnostic, Name, Problem};
use crate::readers::{Fault, ReaderProblem};

use super::pages::{Call, Pages};
use super::report::{self, Kind, Row};
use super::scanner::{
    Comparison, Difference, Group, InputDiagnostic, NOTED, Raising, ReaderNotes, Repair, ReplyName, Scan, Truncation,
    Unlisted,
};

/// Why a shard's JSON could not be read back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    #[error("not the JSON `scan --json` prints: {0}")]
    NotAScan(String),
    #[error("made without --list: a merge needs the ids behind every count (scan the shard with --json --list)")]
    NoIds,
    #[error(
        "scanned with other {what} ({found}); give --merge the --compare and --field options the shards were made with (it has {expected})"
    )]
    OtherConfig { what: &'static str, found: String, expected: String },
    #[error("{row}: {id:?} is not among the replies, after the ones listed before it")]
    UnknownId { row: String, id: String },
    #[error("{row}: {listed} replies listed for a count of {count}")]
    Miscounted { row: String, listed: usize, count: u64 },
}

/// What a row says of each reply behind it, besides which reply it is.
enum Held {
    Plain,
    /// The complete entries recovered from a cut array.
    Entries(usize),
    /// A difference: which way, and its account.
    Difference(Class, String),
    /// Why: what raised a flag, what a reader command threw or returned, why it gave no
    /// answer.
    Why(String),
}

impl Scan {
    /// Reads back the scan that `scan --json --list` printed as `json`, made under `config`.
    /// Timing aside (`elapsed` is the shard's), it prints as the scan that printed it.
    pub fn from_json(json: &Json, config: Config) -> Result<Scan, ShardError> {
        let ids = json.get("ids").ok_or(ShardError::NoIds)?;
        let mut scan = Scan::new(config);
        check_config(json, &scan)?;
        let strings = |v: Option<&Json>, what: &str| -> Result<Vec<String>, ShardError> {
            v.and_then(Json::as_array)
                .ok_or_else(|| ShardError::NotAScan(format!("no list of {what}")))?
                .iter()
                .map(|s| s.as_str().map(str::to_owned).ok_or_else(|| ShardError::NotAScan(format!("{what}: {s}"))))
                .collect()
        };
        let names = strings(ids.get("replies"), "ids.replies")?;
        let references: Vec<Option<String>> = match ids.get("references").and_then(Json::as_array) {
            Some(r) if r.len() == names.len() => r.iter().map(|r| r.as_str().map(str::to_owned)).collect(),
            _ => return Err(ShardError::NotAScan("ids.references is not one per reply".to_owned())),
        };
        scan.replies = names
            .into_iter()
            .zip(references)
            .map(|(id, reference)| ReplyName { id: id.into(), reference: reference.map(Name::from) })
            .collect();
        scan.bytes = number(json, "bytes")?;
        scan.calls_without_reply = strings(ids.get("calls_without_reply"), "ids.calls_without_reply")?;
        let unread = ids.get("unread").ok_or_else(|| ShardError::NotAScan("no list of ids.unread".to_owned()))?;
        let unread =
            Vec::<Unread>::deserialize(unread).map_err(|e| ShardError::NotAScan(format!("ids.unread: {e}")))?;
        scan.unread = read_problems(json, &mut scan, unread)?;
        scan.elapsed =
            json.get("elapsed_seconds").and_then(Json::as_f64).and_then(|s| Duration::try_from_secs_f64(s).ok());
        // The groups there are, so that the report has their rows.
        for (top, groups) in
            [("by_agent", &mut scan.by_agent), ("by_round", &mut scan.by_round), ("by_format", &mut scan.by_format)]
        {
            let found =
                json.get(top).and_then(Json::as_object).ok_or_else(|| ShardError::NotAScan(format!("no {top}")))?;
            for name in found.keys() {
                groups.insert(name.clone(), Group::default());
            }
        }

        // Held apart while the rows are put back, which needs only the config and the groups.
        let replies = std::mem::take(&mut scan.replies);
        let places = Places::of(&replies);
        for section in report::sections(&scan) {
            for row in &section.rows {
                let name = row.name(&scan.config);
                let key = row.json_key(&scan.config);
                let count = at(json, &key).ok_or_else(|| ShardError::NotAScan(format!("no count for {name}")))?;
                let listed = match section.kind {
                    Kind::Comparisons => count.get("replies"),
                    _ => at(ids, &key),
                };
                let listed = listed
                    .and_then(Json::as_array)
                    .ok_or_else(|| ShardError::NotAScan(format!("no ids for {name}")))?;
                let held = places.place(listed, &name)?;
                let want = count.as_u64().or_else(|| ["replies", "differ"].iter().find_map(|k| count.get(k)?.as_u64()));
                if want != Some(held.len() as u64) {
                    return Err(ShardError::Miscounted { row: name, listed: held.len(), count: want.unwrap_or(0) });
                }
                put(row, &mut scan, held, count);
                // A comparison's classes are counted beside its listing: they must agree.
                if let Row::Differs(p) = row {
                    for class in Class::ALL {
                        let row = Row::Class(*p, class);
                        let listed = row.count(&scan);
                        let want = count.get(class.name()).and_then(Json::as_u64);
                        if want != Some(listed as u64) {
                            let row = row.name(&scan.config);
                            return Err(ShardError::Miscounted { row, listed, count: want.unwrap_or(0) });
                        }
                    }
                }
            }
        }
        scan.pages = pages(ids, &places)?;
        scan.replies = replies;
        Ok(scan)
    }

    /// Appends `other`, a scan of the inputs that come after this one's under the same
    /// config: the result is the scan of both, in that order. Its time is the longer of the
    /// two: scans of shards run side by side (a merge sets the span they ran in, where their
    /// manifests say when each started).
    pub fn append(&mut self, other: Scan) {
        self.append_unsettled(other);
        self.settle_pages();
    }

    /// [`Scan::append`] without raising `page-shrank` again: a merge of many shards appends
    /// them all, then settles the pages' history once ([`Scan::settle_pages`]), where settling
    /// after each shard would walk the whole history as many times as there are shards.
    pub(crate) fn append_unsettled(&mut self, other: Scan) {
        let Scan {
            config: _,
            replies,
            bytes,
            calls_without_reply,
            unread,
            by_agent,
            by_round,
            by_format,
            decided_by,
            whole_reply,
            repair,
            cut_off,
            truncation,
            comparisons,
            noted,
            flags,
            pages,
            fraction: _,
            elapsed,
            unlisted,
            readers_answering,
            whole: _,
        } = other;
        let base = self.replies.len();
        let shifted = |v: Vec<usize>| v.into_iter().map(move |i| i + base);
        self.replies.extend(replies);
        self.bytes += bytes;
        self.calls_without_reply.extend(calls_without_reply);
        self.unread.extend(unread);
        for (into, from) in
            [(&mut self.by_agent, by_agent), (&mut self.by_round, by_round), (&mut self.by_format, by_format)]
        {
            for (name, Group { replies, bytes, decided_by }) in from {
                let g = into.entry(name).or_default();
                g.replies.extend(shifted(replies));
                g.bytes += bytes;
                for (n, m) in g.decided_by.iter_mut().zip(decided_by) {
                    *n += m;
                }
            }
        }
        for (into, from) in self.decided_by.iter_mut().zip(decided_by) {
            into.extend(shifted(from));
        }
        for (into, from) in self.whole_reply.iter_mut().zip(whole_reply) {
            into.extend(shifted(from));
        }
        let Repair { strict_unreadable, rescued, changed } = repair;
        self.repair.strict_unreadable.extend(shifted(strict_unreadable));
        self.repair.rescued.extend(shifted(rescued));
        self.repair.changed.extend(shifted(changed));
        self.cut_off.extend(shifted(cut_off));
        for (into, Truncation { field: _, replies, entries }) in self.truncation.iter_mut().zip(truncation) {
            into.replies.extend(replies.into_iter().map(|(i, n)| (i + base, n)));
            into.entries += entries;
        }
        for (into, Comparison { pair: _, differ }) in self.comparisons.iter_mut().zip(comparisons) {
            into.differ.extend(differ.into_iter().map(|d| Difference { reply: d.reply + base, ..d }));
        }
        for (into, ReaderNotes { reader: _, replies, problems }) in self.noted.iter_mut().zip(noted) {
            for (into, from) in into.replies.iter_mut().zip(replies) {
                into.extend(from.into_iter().map(|(i, why)| (i + base, why)));
            }
            into.problems.extend(problems);
        }
        for (into, from) in self.flags.iter_mut().zip(flags) {
            into.extend(from.into_iter().map(|(i, why)| (i + base, why)));
        }
        // A page lost between rounds read in two shards is found once both are in.
        self.pages.append(pages, base);
        self.elapsed = match (self.elapsed, elapsed) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        self.readers_answering += readers_answering;
        // Scans of several commands have no one command's whole time.
        self.whole = None;
        let Unlisted { replies, calls_without_reply, rows } = unlisted;
        self.unlisted.replies += replies;
        self.unlisted.calls_without_reply += calls_without_reply;
        for (row, n) in rows {
            *self.unlisted.rows.entry(row).or_default() += n;
        }
    }
}

/// The page calls `ids.pages` lists (a shard made before there were any lists none).
fn pages(ids: &Json, places: &Places) -> Result<Pages<usize>, ShardError> {
    let Some(listed) = ids.get("pages").and_then(Json::as_array) else { return Ok(Pages::default()) };
    let replies = places.place(listed, "ids.pages")?;
    let mut out = Pages::default();
    for ((reply, _), item) in replies.into_iter().zip(listed) {
        let text = |k: &str| item.get(k).and_then(Json::as_str).map(Name::from);
        let (Some(round), Some(document)) = (text("round"), text("document")) else {
            return Err(ShardError::NotAScan(format!("ids.pages: a call with no round or document: {item}")));
        };
        out.push(Call {
            reply: Some(reply),
            answered: true,
            round,
            document,
            page: item.get("page").and_then(Json::as_u64).and_then(|p| u32::try_from(p).ok()),
            agent: text("agent"),
            ts: text("ts"),
            html: item.get("html").and_then(Json::as_u64).map(|n| n as usize),
            ended: item.get("ended").and_then(Json::as_bool).unwrap_or(true),
        });
    }
    Ok(out)
}

/// An input's diagnostic as `scan --json --list` writes it whole (`ids.unread`).
#[derive(Deserialize)]
pub(super) struct Unread {
    source: String,
    line: Option<usize>,
    offset: Option<u64>,
    problem: Problem,
}

/// Puts each reader's problems back with its notes, from `readers.NAME.problems`, and gives
/// back the inputs' diagnostics, `unread`: as many in all as the shard counts.
pub(super) fn read_problems(
    json: &Json,
    scan: &mut Scan,
    unread: Vec<Unread>,
) -> Result<Vec<InputDiagnostic>, ShardError> {
    let readers = json.get("readers").and_then(Json::as_object);
    for (name, reader) in readers.into_iter().flatten() {
        let catalogue = &scan.config.catalogue;
        let notes = catalogue.find(name).ok().and_then(|id| scan.noted.iter_mut().find(|n| n.reader == id));
        let Some(notes) = notes else {
            return Err(ShardError::NotAScan(format!("readers.{name}: not a reader of one's own this merge runs")));
        };
        let problems = reader.get("problems").and_then(Json::as_array).map_or(&[][..], Vec::as_slice);
        for p in problems {
            let fault = Fault::deserialize(p)
                .map_err(|e| ShardError::NotAScan(format!("readers.{name}.problems: {e}: {p}")))?;
            notes.problems.push(ReaderProblem::new(notes.reader, name, fault));
        }
    }
    let listed = unread.len() + scan.noted.iter().map(|n| n.problems.len()).sum::<usize>();
    let count = number(json, "diagnostics")?;
    if count != listed as u64 {
        return Err(ShardError::Miscounted { row: "diagnostics".to_owned(), listed, count });
    }
    let diagnostic = |Unread { source, line, offset, problem }| {
        InputDiagnostic::Loaded(Diagnostic { source: PathBuf::from(source), line, offset, problem })
    };
    Ok(unread.into_iter().map(diagnostic).collect())
}

/// Puts a row's replies back where [`Row::replies`] reads them; `count` is the row's value
/// in the JSON, which for a group also holds its bytes and decisions.
fn put(row: &Row, scan: &mut Scan, held: Vec<(usize, Held)>, count: &Json) {
    let plain = |held: Vec<(usize, Held)>| held.into_iter().map(|(i, _)| i).collect::<Vec<_>>();
    let group = |groups: &mut BTreeMap<String, Group>, name: &str, held| {
        let decided = |d: DecidedBy| count.get("decided_by").and_then(|m| m.get(d.name())).and_then(Json::as_u64);
        groups.insert(
            name.to_owned(),
            Group {
                replies: plain(held),
                bytes: count.get("bytes").and_then(Json::as_u64).unwrap_or(0),
                decided_by: DecidedBy::ALL.map(|d| decided(d).map_or(0, |n| n as usize)),
            },
        );
    };
    match row {
        Row::Decided(d) => scan.decided_by[d.index()] = plain(held),
        Row::Verdict(v) => scan.whole_reply[v.index()] = plain(held),
        Row::StrictUnreadable => scan.repair.strict_unreadable = plain(held),
        Row::Rescued => scan.repair.rescued = plain(held),
        Row::RepairChanged => scan.repair.changed = plain(held),
        Row::CutOff => scan.cut_off = plain(held),
        Row::Truncated(t) => {
            if let Some(t) = scan.truncation.get_mut(*t) {
                t.replies = held.into_iter().map(|(i, h)| (i, if let Held::Entries(n) = h { n } else { 0 })).collect();
                t.entries = t.replies.iter().map(|&(_, n)| n).sum();
            }
        }
        Row::Differs(p) => {
            if let Some(c) = scan.comparisons.get_mut(*p) {
                c.differ = held
                    .into_iter()
                    .filter_map(|(reply, h)| match h {
                        Held::Difference(class, account) => Some(Difference { reply, class, account: account.into() }),
                        _ => None,
                    })
                    .collect();
            }
        }
        // Within its comparison's listing, put back with it.
        Row::Class(..) => {}
        Row::Reader(r, o) => {
            let at = NOTED.iter().position(|n| n == o);
            if let (Some(n), Some(at)) = (scan.noted.iter_mut().find(|n| n.reader == *r), at) {
                n.replies[at] = held
                    .into_iter()
                    .map(|(reply, h)| (reply, Arc::from(if let Held::Why(w) = h { w } else { String::new() })))
                    .collect();
            }
        }
        Row::Flag(f) => {
            if let Some(list) = scan.flags.get_mut(f.index()) {
                *list = held
                    .into_iter()
                    .map(|(i, h)| (i, Raising::Said(if let Held::Why(w) = h { w.into() } else { "".into() })))
                    .collect();
            }
        }
        Row::Agent(name) => group(&mut scan.by_agent, name, held),
        Row::Round(name) => group(&mut scan.by_round, name, held),
        Row::Format(name) => group(&mut scan.by_format, name, held),
    }
}

/// The JSON at a row's key: `json[top]`, or `json[top][key]`.
pub(super) fn at<'a>(json: &'a Json, (top, key): &(&'static str, Option<String>)) -> Option<&'a Json> {
    let v = json.get(*top)?;
    match key {
        None => Some(v),
        Some(k) => v.get(k),
    }
}

pub(super) fn number(json: &Json, key: &str) -> Result<u64, ShardError> {
    json.get(key).and_then(Json::as_u64).ok_or_else(|| ShardError::NotAScan(format!("no {key}")))
}

/// The shard was made with the comparisons and fields of `scan`'s config.
pub(super) fn check_config(json: &Json, scan: &Scan) -> Result<(), ShardError> {
    let keys = |top: &str| -> Vec<String> {
        let mut k: Vec<String> =
            json.get(top).and_then(Json::as_object).map(|m| m.keys().cloned().collect()).unwrap_or_default();
        k.sort();
        k
    };
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    let config = &scan.config;
    for (what, found, expected) in [
        ("comparisons", keys("comparisons"), sorted(config.pairs.iter().map(|p| config.key(p)).collect())),
        ("fields", keys("truncation"), sorted(config.fields.clone())),
    ] {
        if found != expected {
            return Err(ShardError::OtherConfig { what, found: found.join(", "), expected: expected.join(", ") });
        }
    }
    Ok(())
}

/// Where each reply of a shard is, by id and where it was read: a row lists its replies in
/// load order, so each is the first of that name after the one listed before it.
struct Places<'a> {
    replies: &'a [ReplyName],
    by_id: HashMap<&'a str, Vec<usize>>,
}

impl<'a> Places<'a> {
    fn of(replies: &'a [ReplyName]) -> Places<'a> {
        let mut by_id: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, r) in replies.iter().enumerate() {
            by_id.entry(&*r.id).or_default().push(i);
        }
        Places { replies, by_id }
    }

    /// The replies a row lists: ids, or objects with an `id` (and a `reference` where it
    /// was read, an `account` or `entries`).
    fn place(&self, listed: &[Json], row: &str) -> Result<Vec<(usize, Held)>, ShardError> {
        let mut next = 0;
        listed
            .iter()
            .map(|item| {
                let (id, reference, held) = match item {
                    Json::String(id) => (id.as_str(), None, Held::Plain),
                    Json::Object(o) => {
                        let text = |v: &Json| v.as_str().unwrap_or_default().to_owned();
                        let held = match (o.get("account"), o.get("entries"), o.get("why")) {
                            (Some(a), _, _) => {
                                let class = o.get("class").and_then(Json::as_str);
                                let class = class.and_then(Class::named).ok_or_else(|| {
                                    ShardError::NotAScan(format!("{row}: a difference with no class: {item}"))
                                })?;
                                Held::Difference(class, text(a))
                            }
                            (_, Some(n), _) => Held::Entries(n.as_u64().unwrap_or(0) as usize),
                            (_, _, Some(w)) => Held::Why(text(w)),
                            _ => Held::Plain,
                        };
                        let id = o.get("id").and_then(Json::as_str).unwrap_or_default();
                        // A difference names where its reply was read, where that is not its id.
                        let reference =
                            matches!(held, Held::Difference(..)).then(|| o.get("reference").and_then(Json::as_str));
                        (id, reference, held)
                    }
                    other => return Err(ShardError::NotAScan(format!("{row}: {other}"))),
                };
                let unknown = || ShardError::UnknownId { row: row.to_owned(), id: id.to_owned() };
                let places = self.by_id.get(id).ok_or_else(unknown)?;
                let from = places.partition_point(|&p| p < next);
                // Where the listing says where the reply was read, it is the reply read there.
                let found = places[from..]
                    .iter()
                    .copied()
                    .find(|&p| reference.is_none_or(|r| self.replies[p].reference.as_deref() == r))
                    .ok_or_else(unknown)?;
                next = found + 1;
                Ok((found, held))
            })
            .collect()
    }
}
