//! Readers on the command line: the catalogue with the user's reader commands in it
//! (`--reader NAME=COMMAND`), one reply read by any reader of it, and what `explain
//! --reader` sets beside the seed's decision.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Result, bail};
use serde_json::{Map, Value as Json, json};

use crate::analysis::{Class, Pair, Raised, difference};
use crate::exact::trace::Trace;
use crate::exact::value::Value;
use crate::readers::own::{self, RunOptions, Spec};
use crate::readers::supervisor::{self, Commands};
use crate::readers::{Answers, Catalogue, Given, Outcome, ReaderError, ReaderId, resolve};
use crate::scan::Scan;

use super::explain;
use super::style::Style;

/// The `--reader` arguments: a reader's name, or `NAME=COMMAND` for a reader of one's own.
#[derive(Debug, Clone, Default)]
pub struct ReaderArgs {
    pub readers: Vec<String>,
    pub timeout: Duration,
}

impl ReaderArgs {
    /// The built-in catalogue with every `NAME=DEFINITION` added, and each reader that runs
    /// through an adapter started, so that one that cannot run is an error now, before any
    /// reply is read; `inspected` are the paths the command reads, never where a reader's
    /// stderr log goes. `names`: whether a reader's name alone may be given (it names a reader
    /// to run; `scan` and the inspector take names in `--compare` and `w` instead).
    pub fn catalogue(&self, inspected: &[PathBuf], names: bool) -> Result<Catalogue> {
        let mut catalogue = Catalogue::builtin();
        let state = crate::state_dir::path();
        let mut defined: Vec<(String, Spec)> = Vec::new();
        for r in &self.readers {
            if !r.contains('=') {
                if !names {
                    bail!(
                        "--reader {r:?}: give NAME=COMMAND, NAME=js:FILE or NAME=py:TARGET (a reader of the catalogue is named by --compare)"
                    );
                }
                if !defined.iter().any(|(n, _)| n == r.trim()) {
                    catalogue.find(r).map_err(|e| anyhow::anyhow!("--reader {r:?}: {e}"))?;
                }
                continue;
            }
            let (name, definition) = own::parse_definition(r).map_err(|e| anyhow::anyhow!("--reader: {e}"))?;
            let spec = Spec::parse(&name, &definition)?;
            let taken = defined.iter().any(|(n, _)| *n == name);
            let free = if taken { Err(ReaderError::Taken { name: name.clone() }) } else { catalogue.check_free(&name) };
            free.map_err(|e| anyhow::anyhow!("--reader {name}: {e}"))?;
            defined.push((name, spec));
        }
        for (name, spec) in defined {
            let run = RunOptions { timeout: self.timeout, log: own::log_path(state.as_deref(), &name, inspected) };
            let outside = resolve(&name, spec, run)?;
            catalogue.add_command(&name, outside).map_err(|e| anyhow::anyhow!("--reader {name}: {e}"))?;
        }
        Ok(catalogue)
    }

    /// The readers named, each once, in the order given (`NAME=COMMAND` names `NAME`).
    pub fn named(&self, catalogue: &Catalogue) -> Vec<ReaderId> {
        let mut out = Vec::new();
        for r in &self.readers {
            let name = r.split_once('=').map_or(r.as_str(), |(n, _)| n);
            if let Ok(id) = catalogue.find(name)
                && !out.contains(&id)
            {
                out.push(id);
            }
        }
        out
    }

    /// `pairs` (what `--compare` asked for) with every reader given as `NAME=…` that no pair
    /// names compared with the seed: a reader one defines is a reader one wants to see.
    pub fn with_defined(&self, catalogue: &Catalogue, mut pairs: Vec<Pair>) -> Vec<Pair> {
        for id in self.named(catalogue).into_iter().filter(|&id| catalogue.is_command(id)) {
            if !pairs.iter().any(|p| p.from == id || p.to == id) {
                pairs.push(Pair { from: id, to: ReaderId::LAST_WINS });
            }
        }
        pairs
    }
}

/// Says on stderr where each reader command's stderr went, if it wrote any.
pub fn tell_logs(catalogue: &Catalogue) {
    for (id, spec) in catalogue.commands() {
        if let Some(log) = &spec.run.log
            && std::fs::metadata(log).is_ok_and(|m| m.len() > 0)
        {
            eprintln!("bracewalk: reader {}'s stderr is in {}", catalogue.name(id), log.display());
        }
    }
}

/// What each of `readers` answers for one reply: built-in readers read it, commands are run
/// on it (each once, the reply named `id`). A command that fails is an error.
pub fn answers(catalogue: &Catalogue, readers: &[ReaderId], id: &str, text: &str) -> Result<Vec<(ReaderId, Given)>> {
    let commands: Vec<ReaderId> = readers.iter().copied().filter(|&r| catalogue.is_command(r)).collect();
    let mut out: Vec<(ReaderId, Given)> = Vec::new();
    if !commands.is_empty() {
        let mut running = Commands::start(&catalogue.outside(&commands));
        running.send(&[(id, text)]);
        running.close();
        running.ready(1);
        let given = running.take();
        let problems = running.finish();
        if let Some((r, Given::Failed(why))) = given.iter().find(|(_, g)| matches!(g, Given::Failed(_))) {
            if problems.is_empty() {
                bail!("reader {}: {why}", catalogue.name(*r));
            }
            let mut said = problems.iter().map(ToString::to_string);
            bail!("{}", said.by_ref().reduce(|all, p| format!("{all}; {p}")).unwrap_or_default());
        }
        for p in problems {
            eprintln!("bracewalk: {p}");
        }
        out.extend(given);
    }
    for &r in readers {
        if !catalogue.is_command(r) {
            out.push((r, Given::from_value(catalogue.read(r, text))));
        }
    }
    out.sort_by_key(|(r, _)| readers.iter().position(|x| x == r));
    Ok(out)
}

/// What one reader answered, and how the seed's answer differs from it (as a scan
/// accounts for it: from the reader's answer to the seed's), for `explain --reader`.
struct Beside {
    name: String,
    value: Option<Value>,
    /// How it read nothing, where that says more than `null` (it threw, …).
    outcome: Outcome,
    note: Option<String>,
    /// How the seed's answer differs from it: which way, and the account.
    differs: Option<(Class, String)>,
}

fn beside(catalogue: &Catalogue, text: &str, given: &[(ReaderId, Given)]) -> Vec<Beside> {
    // The seed's answer from a walk of its own: the trace shown keeps its value.
    let mut answers = Answers::with_seed(catalogue, text).0.given(given);
    given
        .iter()
        .map(|(r, g)| {
            let differs = answers.pair(*r, ReaderId::LAST_WINS).and_then(|(a, b)| difference(a, b));
            let (value, outcome, note) = (g.value().cloned(), g.outcome(), g.note());
            Beside { name: catalogue.name(*r).to_owned(), value, outcome, note, differs }
        })
        .collect()
}

/// `explain --reader`: the decision record, then each reader's answer beside the seed's.
pub fn explain_text(
    catalogue: &Catalogue,
    text: &str,
    trace: &Trace,
    given: &[(ReaderId, Given)],
    style: &Style,
) -> String {
    let mut out = explain::render_text(text, trace, style);
    let _ = writeln!(out);
    for b in beside(catalogue, text, given) {
        let mut value = b.value.as_ref().map_or_else(|| "null".to_owned(), crate::describe::sketch);
        if let Some(note) = &b.note {
            value = format!("{value} ({})", crate::visible::visible(note, false));
        }
        let _ = writeln!(out, "{} {value}", style.bold(&b.name));
        let verdict = match &b.differs {
            None => style.good("the same answer as last-wins"),
            Some((c, a)) => style.warn(&format!("→ last-wins: {} ({})", crate::visible::visible(a, false), c.name())),
        };
        let _ = writeln!(out, "{}{verdict}", " ".repeat(b.name.chars().count() + 1));
    }
    out
}

/// `explain --json --reader`: the trace's JSON with `readers` added, `{NAME: {value, outcome,
/// note, class, account}}` (`outcome` one of [`Outcome::name`]'s, `note` what a throw said or
/// the text that is not JSON, `class` and `account` null when the answers are the same),
/// written as it is made.
pub fn explain_json(
    catalogue: &Catalogue,
    text: &str,
    trace: &Trace,
    raised: &[Raised],
    given: &[(ReaderId, Given)],
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut readers = Map::new();
    for b in beside(catalogue, text, given) {
        let value = b.value.as_ref().map_or(Json::Null, |v| {
            serde_json::value::RawValue::from_string(v.to_json()).map_or(Json::Null, |raw| json!(raw))
        });
        let outcome = b.outcome.name();
        let (class, account) = b.differs.map_or((None, None), |(c, a)| (Some(c.name()), Some(a)));
        readers.insert(
            b.name,
            json!({"value": value, "outcome": outcome, "note": b.note, "class": class, "account": account}),
        );
    }
    // The trace's object, its closing brace held back for one more key.
    let mut held = HoldLast { out, last: None };
    explain::write_json(text, trace, raised, &mut held)?;
    let HoldLast { out, last } = held;
    if last != Some(b'}') {
        return Err(io::Error::other("the trace did not end as an object"));
    }
    write!(out, ",\"readers\":{}}}", Json::Object(readers))
}

/// A writer that passes everything on but its last byte.
struct HoldLast<'a> {
    out: &'a mut dyn Write,
    last: Option<u8>,
}

impl Write for HoldLast<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let Some((&end, body)) = buf.split_last() else { return Ok(0) };
        if let Some(b) = self.last.take() {
            self.out.write_all(&[b])?;
        }
        self.out.write_all(body)?;
        self.last = Some(end);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The paths a reply argument reads (for where a reader's log may not go).
pub fn inspected(input: &str) -> Vec<PathBuf> {
    if input == "-" {
        return Vec::new();
    }
    let path = match input.rsplit_once(':') {
        Some((p, line)) if line.bytes().all(|b| b.is_ascii_digit()) && !line.is_empty() => p,
        _ => input,
    };
    vec![Path::new(path).to_path_buf()]
}

/// The `extract` of a reader that runs outside: its answer's value; what it threw, or the
/// text it returned that is not JSON, said on stderr; context for a failure.
pub fn command_value(catalogue: &Catalogue, reader: ReaderId, id: &str, text: &str) -> Result<Option<Value>> {
    let given = answers(catalogue, &[reader], id, text)?;
    Ok(given.into_iter().find_map(|(r, g)| {
        if let Some(note) = g.note() {
            eprintln!("bracewalk: reader {} {}", catalogue.name(r), crate::visible::visible(&note, false));
        }
        g.into_value()
    }))
}

/// Diagnostics of one reader shown without `--list`, the rest counted.
const SHOWN_PROBLEMS: usize = 5;
/// Lines of a reader's stderr shown under its diagnostics.
const SHOWN_TAIL: usize = 5;

/// What a scan's table says of the readers that had problems: each one's diagnostics (the
/// first few, or all with `all`), then the last lines of its stderr, where its log has any.
pub fn problems_text(scan: &Scan, all: bool, style: &Style) -> String {
    let catalogue = &scan.config.catalogue;
    let mut out = String::new();
    for (id, spec) in catalogue.commands() {
        let mine = scan.notes(id).map_or(&[][..], |n| n.problems.as_slice());
        if mine.is_empty() {
            continue;
        }
        let _ = writeln!(out);
        let _ = writeln!(out, "{}", style.bold(&format!("reader {}", catalogue.name(id))));
        let shown = if all { mine.len() } else { mine.len().min(SHOWN_PROBLEMS) };
        for d in &mine[..shown] {
            let _ = writeln!(out, "  {}", style.warn(&crate::visible::visible(&d.to_string(), false)));
        }
        if shown < mine.len() {
            let more = format!("… and {} more (--list shows all)", mine.len() - shown);
            let _ = writeln!(out, "  {}", style.dim(&more));
        }
        let tail = spec.run.log.as_deref().map(|l| supervisor::stderr::tail(l, SHOWN_TAIL)).unwrap_or_default();
        if !tail.is_empty() {
            let _ = writeln!(out, "  {}", style.dim("its stderr ends:"));
            for line in tail {
                let _ = writeln!(out, "    {}", style.dim(&line));
            }
        }
    }
    out
}
