//! `bracewalk scan --accept FILE` and `--accepted FILE`: record a scan's differences as
//! reviewed, and later report only those that are new or read another way, with an exit
//! status CI can test. What a difference is and when it is the same one is
//! [`crate::scan::accepted`]'s.

use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{Value as Json, json};

use crate::analysis::{Class, Config};
use crate::describe::plural;
use crate::logs::LoadOptions;
use crate::query::Query;
use crate::scan::Scan;
use crate::scan::accepted::{self, Check, Entry};
use crate::scan::report::headline;
use crate::scan::shard::Plan;
use crate::visible::visible;

use super::scan::scan_only_with_progress;

use super::style::Style;

/// The exit status of a scan that found differences not accepted (new, or with another
/// account): apart from 1 (some inputs had diagnostics) and 2 (an error), whatever else
/// happened.
pub const NOT_ACCEPTED: u8 = 3;

/// Scans what `plan` reads and writes every difference found to `file`, accepted; says how
/// many. The exit status is the scan's (0, or 1 when some inputs had diagnostics).
pub fn accept(
    plan: &Plan,
    load: &LoadOptions,
    config: Config,
    only: Option<Query>,
    file: &Path,
    out: &mut dyn Write,
) -> Result<u8> {
    let scan = scan_only_with_progress(plan, load, config, only);
    write_accepted(&scan, file, out)?;
    Ok(super::scan::plan_exit_code(&scan, plan))
}

/// Writes every difference `scan` found to `file`, accepted, and says how many.
pub fn write_accepted(scan: &Scan, file: &Path, out: &mut dyn Write) -> Result<()> {
    let found = accepted::differences(scan);
    std::fs::write(file, accepted::to_jsonl(&found)).with_context(|| format!("writing {}", file.display()))?;
    let comparisons = scan.comparisons.len();
    let classes: Vec<String> = Class::ALL
        .iter()
        .map(|&c| format!("{} {}", found.iter().filter(|e| e.class == Some(c)).count(), c.name()))
        .collect();
    writeln!(
        out,
        "{}; accepted {} ({}) of {} into {}",
        headline(scan),
        plural(found.len(), "difference", "differences"),
        classes.join(", "),
        plural(comparisons, "comparison", "comparisons"),
        file.display()
    )?;
    for d in scan.diagnostics() {
        writeln!(out, "  {}", visible(&d.to_string(), false))?;
    }
    Ok(())
}

/// The accepted differences in `file`.
pub fn read_accepted(file: &Path) -> Result<Vec<Entry>> {
    let text = std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    accepted::parse(&text).with_context(|| format!("{}", file.display()))
}

/// Scans what `plan` reads against the accepted differences in `file` and prints only what
/// is new or changed (JSON with `json`). The exit status is [`NOT_ACCEPTED`] when there is
/// any, else the scan's.
pub fn check(
    plan: &Plan,
    load: &LoadOptions,
    (config, only): (Config, Option<Query>),
    file: &Path,
    json: bool,
    out: &mut dyn Write,
) -> Result<u8> {
    let accepted = read_accepted(file)?;
    let scan = scan_only_with_progress(plan, load, config, only);
    let code = super::scan::plan_exit_code(&scan, plan);
    print_check(&scan, &accepted, file, json, code, out)
}

/// Prints `scan` against the `accepted` differences of `file`; the exit status is
/// [`NOT_ACCEPTED`] when a difference is not accepted, else `code`, the scan's.
pub fn print_check(
    scan: &Scan,
    accepted: &[Entry],
    file: &Path,
    json: bool,
    code: u8,
    out: &mut dyn Write,
) -> Result<u8> {
    let check = accepted::check(accepted, scan);
    let printed = if json {
        format!("{}\n", render_json(scan, &check, file))
    } else {
        render_text(scan, &check, file, &Style::for_stdout())
    };
    out.write_all(printed.as_bytes())?;
    Ok(if check.fails() { NOT_ACCEPTED } else { code })
}

/// The check for a person: what fails it, then what is merely worth knowing.
pub fn render_text(scan: &Scan, check: &Check, file: &Path, style: &Style) -> String {
    let mut o = String::new();
    let failing = check.new.len() + check.changed.len();
    let _ = writeln!(o, "{}", style.bold(&headline(scan)));
    let verdict = if failing == 0 {
        style.good(&format!("nothing new: every difference is accepted in {}", file.display()))
    } else {
        style.warn(&format!(
            "{} not accepted in {} ({} new, {} read another way)",
            plural(failing, "difference", "differences"),
            file.display(),
            check.new.len(),
            check.changed.len()
        ))
    };
    let _ = writeln!(o, "{verdict}");
    let mut rows: Vec<(&Entry, Option<&Entry>)> = check.new.iter().map(|e| (e, None)).collect();
    rows.extend(check.changed.iter().map(|(e, was)| (e, Some(was))));
    // By comparison, in the scan's order of comparisons.
    let order = |key: &str| scan.comparisons.iter().position(|c| scan.config.key(&c.pair) == key);
    rows.sort_by_key(|(e, _)| order(&e.comparison));
    let mut last = None;
    for (e, was) in rows {
        if last != Some(&e.comparison) {
            let _ = writeln!(o, "\n{}", style.bold(&comparison_label(scan, &e.comparison)));
            last = Some(&e.comparison);
        }
        let class = e.class.map_or("", Class::name);
        let _ = writeln!(o, "  {class:<7}  {}  {}", visible(&e.id, false), visible(&e.account, false));
        match was {
            None => {
                let _ = writeln!(o, "           {}", style.dim("new"));
            }
            Some(was) => {
                let mut said = format!("accepted as: {}", visible(&was.account, false));
                if let Some(c) = was.class.filter(|c| Some(*c) != e.class) {
                    said.push_str(&format!(" ({})", c.name()));
                }
                let _ = writeln!(o, "           {}", style.dim(&said));
            }
        }
    }
    let mut notes = vec![format!("{} still as accepted", check.still)];
    if !check.gone.is_empty() {
        notes.push(format!("{} no longer found (the readers agree now)", check.gone.len()));
    }
    if !check.unchecked.is_empty() {
        notes.push(format!("{} not checked (reply, comparison or reader's answer missing)", check.unchecked.len()));
    }
    let _ = writeln!(o, "\n{}", style.dim(&format!("accepted differences: {}", notes.join(", "))));
    for d in scan.diagnostics() {
        let _ = writeln!(o, "{}", style.warn(&format!("diagnostic: {}", visible(&d.to_string(), false))));
    }
    o
}

/// `first-wins → last-wins` for a comparison's key.
fn comparison_label(scan: &Scan, key: &str) -> String {
    match scan.comparison(key) {
        Some(c) => format!("{} → {}", scan.config.catalogue.name(c.pair.from), scan.config.catalogue.name(c.pair.to)),
        None => key.to_owned(),
    }
}

/// The check as JSON: `{accepted_file, new, changed, gone, unchecked, still, diagnostics}`;
/// every list holds `{comparison, id, reference?, class, account}`, `changed` adds `accepted`
/// (the account accepted) and `accepted_class` (where the file has it).
pub fn render_json(scan: &Scan, check: &Check, file: &Path) -> Json {
    let entry = |e: &Entry| serde_json::to_value(e).unwrap_or(Json::Null);
    let changed: Vec<Json> = check
        .changed
        .iter()
        .map(|(e, was)| {
            let mut v = entry(e);
            if let Some(m) = v.as_object_mut() {
                m.insert("accepted".to_owned(), json!(was.account));
                if let Some(c) = was.class {
                    m.insert("accepted_class".to_owned(), json!(c.name()));
                }
            }
            v
        })
        .collect();
    json!({
        "accepted_file": file.display().to_string(),
        "new": check.new.iter().map(entry).collect::<Vec<_>>(),
        "changed": changed,
        "gone": check.gone.iter().map(entry).collect::<Vec<_>>(),
        "unchecked": check.unchecked.iter().map(entry).collect::<Vec<_>>(),
        "still": check.still,
        "replies": scan.reply_count(),
        "diagnostics": scan.diagnostics().map(|d| d.to_string()).collect::<Vec<_>>(),
    })
}
