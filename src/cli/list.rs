//! `bracewalk list`: the replies found under some paths, one line each, then what could
//! not be read. Or, with `--json`, one JSON object per reply, event and diagnostic.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::describe::{plural, thousands};
use crate::query::{Known, Query, Subject};
use rayon::prelude::*;

use crate::analysis::{Config, Facts};
use crate::logs::{Diagnostic, Event, Item, Listed, Listing, LoadOptions, Loader, Meta, Reply, discover};
use crate::scan::rounds::{Call, Fraction, Pages};
use crate::scan::{in_batches, sizes};
use crate::visible::visible;

use super::style::Style;

/// What a listing found.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    pub replies: usize,
    pub events: usize,
    pub diagnostics: usize,
}

impl Tally {
    /// 0 when everything loaded, 1 when some inputs had diagnostics (the rest listed), 2
    /// when nothing could be read.
    pub fn exit_code(&self) -> u8 {
        match (self.diagnostics, self.replies + self.events) {
            (0, _) => 0,
            (_, 0) => 2,
            _ => 1,
        }
    }
}

/// Lists `paths` to `out`. Replies are printed as they load; in text, the diagnostics are
/// gathered and printed after them. An error is a failed write (a closed pipe).
pub fn list(
    paths: &[PathBuf],
    opts: &LoadOptions,
    json: bool,
    style: &Style,
    out: &mut dyn Write,
) -> io::Result<Tally> {
    list_only(paths, opts, None, json, style, out)
}

/// [`list`], only the replies and calls `only` selects (`--filter`); the diagnostics all. A
/// query on what the readers make of a reply reads it as `scan` does, and as `scan` does, on
/// every core, a batch of replies at a time, printed in the order they were loaded.
pub fn list_only(
    paths: &[PathBuf],
    opts: &LoadOptions,
    only: Option<&Query>,
    json: bool,
    style: &Style,
    out: &mut dyn Write,
) -> io::Result<Tally> {
    let mut p = Printer { out, json, style, tally: Tally::default(), diagnostics: Vec::new(), failed: None };
    match only {
        // A plain listing only measures a text.
        None => {
            let loader = Loader::new(opts.clone());
            loader.list(paths, &mut |listing| {
                match listing {
                    Listing::Listed(l) => p.listed(&l),
                    Listing::Item(item) => p.item(&item),
                }
                // Nowhere left to print (`| head`): nothing more is read.
                if p.failed.is_some() {
                    loader.stop();
                }
            });
        }
        Some(q) if q.reads_flags() => flagged(paths, opts, q, &mut p),
        Some(q) => {
            let config = q.reads_facts().then(Config::default);
            let mut found = Vec::new();
            discover(paths, &mut |f| found.push(f));
            in_batches(&found, &sizes(&found), opts, &mut |batch| {
                let selected: Vec<bool> = batch
                    .items
                    .par_iter()
                    .map(|item| match item {
                        Item::Diagnostic(_) => true,
                        Item::Reply(r) => q.matches_reply(r, config.as_ref().map(|c| Facts::of(r, c, &[])).as_ref()),
                        Item::Event(e) => q.matches_event(e),
                    })
                    .collect();
                for (item, _) in batch.items.iter().zip(selected).filter(|(_, s)| *s) {
                    p.item(item);
                }
                p.failed.is_none()
            });
        }
    }
    let Printer { out, tally, diagnostics, failed, .. } = p;
    if let Some(e) = failed {
        return Err(e);
    }
    if !json {
        writeln!(out)?;
        writeln!(out, "{}", summary(&tally))?;
        if !diagnostics.is_empty() {
            writeln!(out)?;
            writeln!(
                out,
                "{}",
                style.bad(&format!("{} (everything else loaded):", plural(diagnostics.len(), "problem", "problems")))
            )?;
            for d in &diagnostics {
                writeln!(out, "  {}", visible(&d.to_string(), false))?;
            }
        }
    }
    Ok(tally)
}

/// [`list_only`] for a query on the risk flags: `page-shrank` is raised over every round,
/// so each reply is read (as `scan` reads it) and kept without its text, what the query's
/// text terms make of it noted, and the query is decided once every round is in.
fn flagged(paths: &[PathBuf], opts: &LoadOptions, q: &Query, p: &mut Printer) {
    let config = Config::default();
    let mut found = Vec::new();
    discover(paths, &mut |f| found.push(f));
    // Each reply listed, its facts, its page's size, whether the text terms hold of it.
    type Held = (Listed, Facts, Option<usize>, bool);
    let mut held: Vec<Result<Held, Event>> = Vec::new();
    in_batches(&found, &sizes(&found), opts, &mut |batch| {
        let read: Vec<Option<(Facts, Option<usize>, bool)>> = batch
            .items
            .par_iter()
            .map(|item| match item {
                Item::Reply(r) => {
                    let (facts, html) = crate::scan::read(r, &config, &[]);
                    Some((facts, html, q.text(Some(&r.text)).holds))
                }
                _ => None,
            })
            .collect();
        for (item, read) in batch.items.into_iter().zip(read) {
            match (item, read) {
                (Item::Reply(r), Some((facts, html, text))) => held.push(Ok((Listed::of(&r), facts, html, text))),
                (Item::Event(e), _) => held.push(Err(e)),
                // Every diagnostic, whatever the query.
                (item @ Item::Diagnostic(_), _) => p.item(&item),
                _ => {}
            }
        }
        p.failed.is_none()
    });
    let mut pages = Pages::default();
    for (i, h) in held.iter().enumerate() {
        match h {
            Ok((l, _, html, _)) => pages.calls.extend(Call::of(&l.meta, Some(i), true, *html)),
            Err(e) => pages.calls.extend(Call::of(&e.meta, None, false, None)),
        }
    }
    for loss in pages.history(Fraction::HALF).losses {
        if let Some(Some(Ok((_, facts, _, _)))) = loss.reply.map(|i| held.get_mut(i)) {
            facts.flags.push(loss.raised());
        }
    }
    for h in held {
        match h {
            Ok((l, facts, _, text)) => {
                let reference = match l.line {
                    Some(n) => format!("{}:{n}", l.source.display()),
                    None => l.source.display().to_string(),
                };
                let s = Subject {
                    id: &l.id,
                    reference: &reference,
                    meta: Some(&l.meta),
                    size: Some(l.len),
                    facts: Known::Yes(&facts),
                };
                if text && q.fields(&s) == Some(true) {
                    p.listed(&l);
                }
            }
            Err(e) if q.matches_event(&e) => p.item(&Item::Event(e)),
            Err(_) => {}
        }
    }
}

/// Prints a listing's lines as they come (in text, the diagnostics are kept for the end),
/// counting what it printed; after a failed write (a closed pipe) it prints nothing more.
struct Printer<'o> {
    out: &'o mut dyn Write,
    json: bool,
    style: &'o Style,
    tally: Tally,
    diagnostics: Vec<Diagnostic>,
    failed: Option<io::Error>,
}

impl Printer<'_> {
    fn line(&mut self, line: &str) {
        if self.failed.is_none()
            && let Err(e) = writeln!(self.out, "{line}")
        {
            self.failed = Some(e);
        }
    }

    fn listed(&mut self, l: &Listed) {
        self.tally.replies += 1;
        let line = if self.json { listed_json_line(l) } else { listed_text_line(l, self.style) };
        self.line(&line);
    }

    fn item(&mut self, item: &Item) {
        match item {
            Item::Reply(_) => self.tally.replies += 1,
            Item::Event(_) => self.tally.events += 1,
            Item::Diagnostic(d) => {
                self.tally.diagnostics += 1;
                if !self.json {
                    self.diagnostics.push(d.clone());
                    return;
                }
            }
        }
        let line = if self.json { json_line(item) } else { text_line(item, self.style) };
        self.line(&line);
    }
}

fn summary(t: &Tally) -> String {
    let mut s = plural(t.replies, "reply", "replies");
    if t.events > 0 {
        s.push_str(&format!(", {} with no reply", plural(t.events, "call", "calls")));
    }
    s.push_str(&format!(", {}", plural(t.diagnostics, "diagnostic", "diagnostics")));
    s
}

/// `id  agent  page  round  size  stop`, for a person.
pub fn text_line(item: &Item, style: &Style) -> String {
    let (id, meta, size, note) = match item {
        Item::Reply(r) => (&r.id, &r.meta, format!("{} B", thousands(r.text.len())), String::new()),
        Item::Event(e) => {
            (&e.id, &e.meta, "—".to_owned(), format!("  no reply: {}", crate::visible::clip(&e.message, 90)))
        }
        Item::Diagnostic(d) => return visible(&d.to_string(), false),
    };
    row(id, meta, &size, &note, style)
}

/// [`text_line`] of a reply listed without its text.
pub fn listed_text_line(l: &Listed, style: &Style) -> String {
    row(&l.id, &l.meta, &format!("{} B", thousands(l.len)), "", style)
}

fn row(id: &str, meta: &Meta, size: &str, note: &str, style: &Style) -> String {
    let page = meta.page.map_or_else(|| "—".to_owned(), |p| format!("p{p}"));
    let mut round = meta.round.as_deref().unwrap_or_default().to_owned();
    if let Some(it) = meta.iteration {
        if !round.is_empty() {
            round.push(' ');
        }
        round.push_str(&format!("it{it}"));
    }
    if round.is_empty() {
        round.push('—');
    }
    let stop = meta.stop.name();
    let stop = match meta.stop {
        crate::logs::StopReason::Finished => style.good(stop),
        crate::logs::StopReason::Truncated => style.bad(stop),
        _ => style.dim(stop),
    };
    format!(
        "{:<46} {:<12} {:>5}  {:<16} {:>11}  {stop}{}",
        visible(id, false),
        visible(meta.agent.as_deref().unwrap_or("—"), false),
        page,
        visible(&round, false),
        size,
        visible(note, false),
    )
}

#[derive(Serialize)]
struct MetaJson<'a> {
    format: &'static str,
    agent: Option<&'a str>,
    phase: Option<&'a str>,
    page: Option<u32>,
    image: Option<&'a str>,
    round: Option<&'a str>,
    document: Option<&'a str>,
    iteration: Option<u32>,
    model: Option<&'a str>,
    provider: Option<&'a str>,
    stop_reason: &'static str,
    stop_detail: Option<&'a str>,
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cache_read_tokens: Option<u64>,
    cache_write_tokens: Option<u64>,
    duration_ms: Option<u64>,
    ts: Option<&'a str>,
    document_outcome: Option<&'a str>,
    run_outcome: Option<&'a str>,
    page_verified: Option<bool>,
    inferred: Vec<&'static str>,
    extra: serde_json::Map<String, serde_json::Value>,
}

impl<'a> MetaJson<'a> {
    fn of(m: &'a Meta) -> MetaJson<'a> {
        MetaJson {
            format: m.format.name(),
            agent: m.agent.as_deref(),
            phase: m.phase.as_deref(),
            page: m.page,
            image: m.image.as_deref(),
            round: m.round.as_deref(),
            document: m.document.as_deref(),
            iteration: m.iteration,
            model: m.model.as_deref(),
            provider: m.provider.as_deref(),
            stop_reason: m.stop.name(),
            stop_detail: m.stop_detail.as_deref(),
            input_tokens: m.tokens.input,
            output_tokens: m.tokens.output,
            cache_read_tokens: m.tokens.cache_read,
            cache_write_tokens: m.tokens.cache_write,
            duration_ms: m.duration_ms,
            ts: m.ts.as_deref(),
            document_outcome: m.document_outcome.as_deref(),
            run_outcome: m.run_outcome.as_deref(),
            page_verified: m.page_verified,
            inferred: m.inferred.names().collect(),
            extra: m.extra.iter().map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone()))).collect(),
        }
    }
}

#[derive(Serialize)]
struct ReplyJson<'a> {
    id: &'a str,
    source: String,
    line: Option<usize>,
    offset: u64,
    bytes: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    event: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
    #[serde(flatten)]
    meta: MetaJson<'a>,
}

#[derive(Serialize)]
struct DiagnosticJson {
    diagnostic: String,
    kind: &'static str,
    source: String,
    line: Option<usize>,
    offset: Option<u64>,
}

fn source(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn reply_json(r: &Reply) -> ReplyJson<'_> {
    ReplyJson { bytes: Some(r.text.len()), ..located_json(&r.id, &r.source, r.line, r.offset, &r.meta) }
}

fn listed_json(l: &Listed) -> ReplyJson<'_> {
    ReplyJson { bytes: Some(l.len), ..located_json(&l.id, &l.source, l.line, l.offset, &l.meta) }
}

/// What every line of `--json` for a reply or a call says.
fn located_json<'a>(id: &'a str, at: &Path, line: Option<usize>, offset: u64, meta: &'a Meta) -> ReplyJson<'a> {
    ReplyJson {
        id,
        source: source(at),
        line,
        offset,
        bytes: None,
        event: None,
        message: None,
        meta: MetaJson::of(meta),
    }
}

fn event_json(e: &Event) -> ReplyJson<'_> {
    ReplyJson {
        event: Some(e.kind.name()),
        message: Some(&e.message),
        ..located_json(&e.id, &e.source, e.line, e.offset, &e.meta)
    }
}

fn diagnostic_json(d: &Diagnostic) -> DiagnosticJson {
    DiagnosticJson {
        diagnostic: d.message(),
        kind: d.problem.kind(),
        source: source(&d.source),
        line: d.line,
        offset: d.offset,
    }
}

/// One JSON object on one line.
pub fn json_line(item: &Item) -> String {
    let json = match item {
        Item::Reply(r) => serde_json::to_string(&reply_json(r)),
        Item::Event(e) => serde_json::to_string(&event_json(e)),
        Item::Diagnostic(d) => serde_json::to_string(&diagnostic_json(d)),
    };
    json.unwrap_or_else(|e| format!("{{\"diagnostic\":\"could not print: {e}\"}}"))
}

/// [`json_line`] of a reply listed without its text.
pub fn listed_json_line(l: &Listed) -> String {
    serde_json::to_string(&listed_json(l)).unwrap_or_else(|e| format!("{{\"diagnostic\":\"could not print: {e}\"}}"))
}
