//! `bracewalk extract` and `bracewalk explain`: one reply read by a reader of the catalogue
//! and its answer printed, or its decision record; and `extract --jsonl`, the oracle's record
//! for every line of a corpus.

use std::io::{Read, Write};
use std::path::Path;

use anyhow::{Context, Result};

use crate::analysis::{Config, flags};
use crate::exact::walk;
use crate::logs::{self, LoadOptions, StopReason};
use crate::readers::{Catalogue, ReaderId};
use crate::scan::rounds::{Call, Fraction, Pages, page_size};

use super::explain;
use super::record::Offsets;
use super::style::Style;

/// Reads a reply from a file, a reply reference (`PATH:LINE`) or stdin. A file is read as
/// `list` reads it (one it would skip, binary or empty, is an error); invalid UTF-8 is decoded
/// lossily, and said so.
pub fn read_reply(input: &str) -> Result<String> {
    read_reply_stopped(input).map(|(text, _)| text)
}

/// [`read_reply`], and whether the reply's record says the output ceiling stopped it (a
/// file or standard input says nothing, so no).
pub fn read_reply_stopped(input: &str) -> Result<(String, bool)> {
    read_reply_found(input).map(|(text, stopped, _)| (text, stopped))
}

/// [`read_reply_stopped`], and the reply as its log has it where it was read from one.
fn read_reply_found(input: &str) -> Result<(String, bool, Option<logs::Reply>)> {
    if input != "-" {
        let found = logs::resolve(input, &LoadOptions::default())?;
        for d in &found.diagnostics {
            eprintln!("bracewalk: {d}");
        }
        let stopped = found.reply.meta.stop == StopReason::Truncated;
        let text = found.reply.text.clone();
        return Ok((text, stopped, Some(found.reply)));
    }
    let mut bytes = Vec::new();
    std::io::stdin().read_to_end(&mut bytes).context("reading standard input")?;
    match String::from_utf8(bytes) {
        Ok(s) => Ok((s, false, None)),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            eprintln!("bracewalk: {input}: invalid UTF-8 at byte {at}; read with U+FFFD in place of bad bytes");
            Ok((String::from_utf8_lossy(e.as_bytes()).into_owned(), false, None))
        }
    }
}

/// `page-shrank`, where `reply` is a page's final answer in a bench round whose page shrank
/// or vanished since an earlier round: the same document's logs in the rounds beside its own
/// (`<campaign>/<round>/<document>/log.jsonl`) are read, their calls of the same page only.
fn page_shrank(reply: &logs::Reply, catalogue: &Catalogue) -> Option<flags::Raised> {
    let (document, page) = (reply.meta.document.as_ref()?, reply.meta.page?);
    reply.meta.round.as_ref()?;
    let name = reply.source.file_name()?;
    let campaign = reply.source.parent()?.parent()?.parent()?;
    let campaign = if campaign.as_os_str().is_empty() { Path::new(".") } else { campaign };
    let mut rounds: Vec<std::path::PathBuf> = std::fs::read_dir(campaign)
        .ok()?
        .filter_map(|e| Some(e.ok()?.path().join(&**document).join(name)))
        .filter(|p| p.is_file())
        .collect();
    rounds.sort_by(|a, b| crate::natural::cmp_paths(a, b));
    let mut pages = Pages::default();
    let mut at = None;
    logs::load(&rounds, &LoadOptions::default(), &mut |item| match item {
        logs::Item::Reply(r) if r.meta.document.as_ref() == Some(document) && r.meta.page == Some(page) => {
            let html = page_size(catalogue.read(ReaderId::LAST_WINS, &r.text).as_ref());
            let same = r.line == reply.line && same_file(&r.source, &reply.source);
            if same {
                at = Some(pages.calls.len());
            }
            pages.calls.extend(Call::of(&r.meta, Some(pages.calls.len()), true, html));
        }
        logs::Item::Event(e) if e.meta.document.as_ref() == Some(document) && e.meta.page == Some(page) => {
            pages.calls.extend(Call::of(&e.meta, None, false, None));
        }
        _ => {}
    });
    let at = at?;
    pages.history(Fraction::HALF).losses.into_iter().find(|l| l.reply == Some(at)).map(|l| l.raised())
}

fn same_file(a: &Path, b: &Path) -> bool {
    a == b || std::fs::canonicalize(a).ok().zip(std::fs::canonicalize(b).ok()).is_some_and(|(a, b)| a == b)
}

/// What `extract` prints for one reply.
pub struct Extract<'a> {
    pub catalogue: &'a Catalogue,
    /// The reader, by its catalogue name.
    pub reader: &'a str,
    pub pretty: bool,
}

/// Prints what the reader holds for the reply at `input`; the exit status is 0 when it read
/// a value, 1 when it read nothing. A reader command is run on the reply, named `input`.
pub fn extract(input: &str, how: &Extract, out: &mut dyn Write) -> Result<u8> {
    how.catalogue.find(how.reader).map_err(anyhow::Error::msg)?;
    extract_named(input, &read_reply(input)?, how, out)
}

/// [`extract`] of a reply's text (named `-` to a reader command).
pub fn extract_text(text: &str, how: &Extract, out: &mut dyn Write) -> Result<u8> {
    extract_named("-", text, how, out)
}

/// [`extract_text`], the reply named `id` to a reader command.
pub fn extract_named(id: &str, text: &str, how: &Extract, out: &mut dyn Write) -> Result<u8> {
    let reader = how.catalogue.find(how.reader).map_err(anyhow::Error::msg)?;
    let value = if how.catalogue.is_command(reader) {
        super::readers::command_value(how.catalogue, reader, id, text)?
    } else {
        how.catalogue.read(reader, text)
    };
    let Some(value) = value else { return Ok(1) };
    let json = if how.pretty { value.to_json_pretty(2) } else { value.to_json() };
    writeln!(out, "{json}").context("writing the value")?;
    Ok(0)
}

/// Prints, for each JSONL record `{"id", "text", "fields"?}` of `input` (`-` for stdin),
/// exactly what the reference oracle prints; a line that is not such a record is an error
/// line, and makes the exit status 1.
pub fn extract_jsonl(input: &str, offsets: Offsets, keys: Option<&[String]>, out: &mut dyn Write) -> Result<u8> {
    super::jsonl::run(input, offsets, keys, out)
}

/// Prints the seed's decision record for the reply at `input`: text, or with `json` all of
/// it as JSON, written as it is made (the trace of a 200 MB reply is not held a second time
/// as text). With `readers`, what each of them answered beside it.
pub fn explain(input: &str, json: bool, readers: (&Catalogue, &[ReaderId]), out: &mut dyn Write) -> Result<u8> {
    let (text, stopped, found) = read_reply_found(input)?;
    let trace = walk::trace(&text);
    let (catalogue, named) = readers;
    let mut raised = flags::of_trace(&text, &trace, stopped, &Config::new(catalogue.clone()));
    // Raised over the rounds, it comes last, as in `Flag::ALL`.
    raised.extend(found.as_ref().and_then(|r| page_shrank(r, catalogue)));
    if !named.is_empty() {
        let given = super::readers::answers(catalogue, named, input, &text)?;
        if json {
            super::readers::explain_json(catalogue, &text, &trace, &raised, &given, out).and_then(|()| writeln!(out))
        } else {
            let style = Style::for_stdout();
            let shown = super::readers::explain_text(catalogue, &text, &trace, &given, &style);
            out.write_all(shown.as_bytes())
                .and_then(|()| out.write_all(explain::render_flags(&raised, &style).as_bytes()))
        }
        .context("writing the trace")?;
        return Ok(0);
    }
    if json {
        explain::write_json(&text, &trace, &raised, out).and_then(|()| writeln!(out))
    } else {
        let style = Style::for_stdout();
        writeln!(out, "{}{}", explain::render_text(&text, &trace, &style), explain::render_flags(&raised, &style))
    }
    .context("writing the trace")?;
    Ok(0)
}
