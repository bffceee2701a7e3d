//! `bracewalk rounds`: a campaign's rounds side by side, one column per round in natural
//! order, each count of the scan with its change from the round before and a line of the
//! trend; then the pages whose final answer shrank or vanished since the round before, each
//! with both replies. A table on a terminal, `--markdown` for a CI job's summary, `--json`.
//! The counting is [`crate::scan`]'s and the columns [`crate::scan::rounds`]'s: the command
//! is a scan, laid out by round.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::PathBuf;

use serde_json::{Map, Value as Json, json};

use crate::analysis::Config;
use crate::describe::{chars, plural, thousands};
use crate::logs::LoadOptions;
use crate::scan::Scan;
use crate::scan::rounds::{Fraction, Line, Loss, Rounds};
use crate::visible::visible;

use super::scan::{Output, exit_code, scan_with_progress};
use super::style::Style;

/// The exit status of `--fail-on-shrink` when a page shrank or vanished in the latest round.
pub const LOST: u8 = 4;

/// Scans `paths`, prints the rounds as `output`; the exit status is `scan`'s, or [`LOST`]
/// with `fail` when a page's final answer shrank or vanished in the latest round.
pub fn run(
    paths: &[PathBuf],
    load: &LoadOptions,
    config: Config,
    fraction: Fraction,
    output: Output,
    fail: bool,
    out: &mut dyn Write,
) -> io::Result<u8> {
    let mut scan = scan_with_progress(paths, load, config);
    scan.fraction = fraction;
    scan.settle_pages();
    let rounds = Rounds::of(&scan, fraction);
    let printed = match output {
        Output::Table => render_text(&scan, &rounds, &Style::for_stdout()),
        Output::Markdown => render_markdown(&scan, &rounds),
        Output::Json => format!("{}\n", crate::natural::Json(&render_json(&scan, &rounds))),
    };
    out.write_all(printed.as_bytes())?;
    let lost = rounds.latest().is_some_and(|r| rounds.losses_in(r).next().is_some());
    Ok(if fail && lost { LOST } else { exit_code(&scan) })
}

/// `+12`, `−3`, `=`: a change from the round before.
fn signed(n: i64) -> String {
    match n {
        0 => "=".to_owned(),
        n if n > 0 => format!("+{}", thousands(n as usize)),
        n => format!("−{}", thousands(n.unsigned_abs() as usize)),
    }
}

/// The values as a line of bars, lowest to highest: a trend read at a glance.
pub fn sparkline(values: &[u64]) -> String {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let max = values.iter().copied().max().unwrap_or(0);
    values
        .iter()
        .map(|&v| match (v, max) {
            (0, _) => ' ',
            (v, max) => BARS[((v as u128 * 7).div_ceil(max as u128) as usize).min(7)],
        })
        .collect()
}

/// A round's name, with `(open)` while a document of it is still being written.
fn round_name(rounds: &Rounds, r: usize) -> String {
    let name = visible(&rounds.names[r], false);
    if rounds.open[r] { format!("{name} (open)") } else { name }
}

/// A value as the table shows it: a count, or bytes.
fn value(line: &Line, r: usize) -> String {
    let v = line.values.get(r).copied().unwrap_or(0);
    thousands(usize::try_from(v).unwrap_or(usize::MAX))
}

/// A cell: the value and its change.
fn cell(line: &Line, r: usize) -> String {
    match line.change(r) {
        Some(c) => format!("{} {}", value(line, r), signed(c)),
        None => value(line, r),
    }
}

/// The readable table.
pub fn render_text(scan: &Scan, rounds: &Rounds, style: &Style) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{}",
        style.bold(&format!(
            "{} · {}",
            plural(rounds.names.len(), "round", "rounds"),
            crate::scan::report::headline(scan)
        ))
    );
    if rounds.names.is_empty() {
        let _ = writeln!(o, "\nno rounds here: no reply names one (a bench campaign's run logs do)");
        return o;
    }
    let label_w = rounds.lines.iter().map(|l| l.label.chars().count()).max().unwrap_or(0).clamp(12, 44);
    // Each round: its values right-aligned, then their changes, under the round's name.
    let widths: Vec<(usize, usize)> = (0..rounds.names.len())
        .map(|r| {
            let v = rounds.lines.iter().map(|l| value(l, r).chars().count()).max().unwrap_or(0);
            let c = rounds.lines.iter().filter_map(|l| l.change(r)).map(|c| signed(c).chars().count()).max();
            let c = c.map_or(0, |c| c + 1);
            let name = round_name(rounds, r).chars().count();
            (v.max(name.saturating_sub(c)), c)
        })
        .collect();
    let _ = writeln!(o);
    let mut head = format!("{:<label_w$}", "");
    for (r, (v, c)) in widths.iter().enumerate() {
        let w = v + c;
        let _ = write!(head, "  {:>w$}", round_name(rounds, r));
    }
    let _ = writeln!(o, "{}", style.dim(&format!("{head}  trend")));
    for line in &rounds.lines {
        let label: String = line.label.chars().take(label_w).collect();
        let mut s = format!("{label:<label_w$}");
        for (r, (vw, cw)) in widths.iter().enumerate() {
            let change = line.change(r).map(|c| format!(" {}", signed(c))).unwrap_or_default();
            let c = format!("{:>vw$}{change:<cw$}", value(line, r));
            let c = if line.values.get(r) == Some(&0) { style.dim(&c) } else { c };
            let _ = write!(s, "  {c}");
        }
        let _ = writeln!(o, "{s}  {}", sparkline(&line.values));
    }
    let _ = writeln!(o);
    let _ = writeln!(o, "{}", style.bold(&losses_title(rounds)));
    let mut any = false;
    for r in 1..rounds.names.len() {
        for l in rounds.losses_in(r) {
            any = true;
            let _ = writeln!(o, "  {}", style.bad(&loss_line(l)));
            let _ = writeln!(o, "      now   {}", reply_name(scan, l.reply, l.answered));
            let _ = writeln!(o, "      was   {}", reply_name(scan, l.earlier, true));
        }
    }
    if !any {
        let _ = writeln!(o, "  {}", style.dim("none"));
    }
    o
}

fn losses_title(rounds: &Rounds) -> String {
    format!(
        "pages whose final answer shrank under {} of its size, or vanished, since the round before",
        fraction_words(rounds)
    )
}

fn fraction_words(rounds: &Rounds) -> String {
    let f = rounds.fraction;
    if f == Fraction::HALF { "half".to_owned() } else { f.to_string() }
}

/// `round-5: page 17 of 3f1c…: 8,334 chars in round-4 → 3 chars (shrank)`.
fn loss_line(l: &Loss<usize>) -> String {
    let after = match (l.after, l.answered) {
        (Some(n), _) if n > 0 => chars(n),
        (_, true) => "no page".to_owned(),
        (_, false) => "no reply".to_owned(),
    };
    format!(
        "{}: page {} of {}: {} in {} → {after} ({})",
        visible(&l.round, false),
        l.page,
        visible(&l.document, false),
        chars(l.before),
        visible(&l.since, false),
        l.how()
    )
}

/// A reply's id, and where it was read where that is not its id.
fn reply_name(scan: &Scan, reply: Option<usize>, answered: bool) -> String {
    match reply.and_then(|i| scan.replies.get(i)) {
        Some(r) => match &r.reference {
            Some(at) => format!("{} ({})", visible(&r.id, false), visible(at, false)),
            None => visible(&r.id, false),
        },
        None if answered => "—".to_owned(),
        None => "no reply".to_owned(),
    }
}

/// Text for a Markdown table cell.
fn md(s: &str) -> String {
    visible(s, false).replace('\\', "\\\\").replace('|', "\\|")
}

/// The rounds in Markdown, for a CI job's summary.
pub fn render_markdown(scan: &Scan, rounds: &Rounds) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "# bracewalk rounds\n\n{}.", crate::scan::report::headline(scan));
    if rounds.names.is_empty() {
        let _ = writeln!(o, "\nNo rounds here: no reply names one.");
        return o;
    }
    let _ = write!(o, "\n| |");
    for r in 0..rounds.names.len() {
        let _ = write!(o, " {} |", md(&round_name(rounds, r)));
    }
    let _ = write!(o, " trend |\n| --- |");
    for _ in 0..rounds.names.len() {
        o.push_str(" ---: |");
    }
    o.push_str(" --- |\n");
    for line in &rounds.lines {
        let _ = write!(o, "| {} |", md(&line.label));
        for r in 0..rounds.names.len() {
            let _ = write!(o, " {} |", cell(line, r));
        }
        let _ = writeln!(o, " {} |", sparkline(&line.values));
    }
    let _ = writeln!(o, "\n## {}\n", upper_first(&losses_title(rounds)));
    let mut any = false;
    for r in 1..rounds.names.len() {
        for l in rounds.losses_in(r) {
            if !any {
                let _ = writeln!(o, "| round | page | document | before | now | what | reply | the round before's |");
                let _ = writeln!(o, "| --- | ---: | --- | ---: | ---: | --- | --- | --- |");
            }
            any = true;
            let code = |s: String| if s == "—" || s == "no reply" { s } else { format!("`{}`", s.replace('`', "'")) };
            let _ = writeln!(
                o,
                "| {} | {} | `{}` | {} in {} | {} | {} | {} | {} |",
                md(&l.round),
                l.page,
                md(&l.document),
                thousands(l.before),
                md(&l.since),
                l.after.map_or_else(|| "—".to_owned(), thousands),
                l.how(),
                md(&code(reply_name(scan, l.reply, l.answered))),
                md(&code(reply_name(scan, l.earlier, true))),
            );
        }
    }
    if !any {
        let _ = writeln!(o, "None.");
    }
    o
}

fn upper_first(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

/// Puts `value` at `key` (`decided_by.none`: within `decided_by`) of `out`.
fn put(out: &mut Map<String, Json>, key: &str, value: Json) {
    match key.split_once('.') {
        None => {
            out.insert(key.to_owned(), value);
        }
        Some((top, rest)) => {
            let inner = out.entry(top.to_owned()).or_insert_with(|| Json::Object(Map::new()));
            if let Some(m) = inner.as_object_mut() {
                m.insert(rest.to_owned(), value);
            }
        }
    }
}

/// A reply as JSON: its id, and where it was read where that is not its id.
fn reply_json(scan: &Scan, reply: Option<usize>) -> Json {
    match reply.and_then(|i| scan.replies.get(i)) {
        Some(r) => match &r.reference {
            Some(at) => json!({"id": &*r.id, "reference": &**at}),
            None => json!({"id": &*r.id}),
        },
        None => Json::Null,
    }
}

/// The whole as JSON (keys documented in docs/GUIDE.md).
pub fn render_json(scan: &Scan, rounds: &Rounds) -> Json {
    let list: Vec<Json> = (0..rounds.names.len())
        .map(|r| {
            let mut o = Map::new();
            o.insert("name".to_owned(), json!(rounds.names[r]));
            o.insert("open".to_owned(), json!(rounds.open[r]));
            for line in &rounds.lines {
                put(&mut o, &line.count.key(scan), json!(line.values.get(r).copied().unwrap_or(0)));
            }
            Json::Object(o)
        })
        .collect();
    let pages: Vec<Json> = rounds
        .history
        .losses
        .iter()
        .map(|l| {
            json!({
                "round": l.round,
                "since": l.since,
                "document": l.document,
                "page": l.page,
                "how": if l.vanished() { "vanished" } else { "shrank" },
                "before": l.before,
                "after": l.after,
                "reply": reply_json(scan, l.reply),
                "earlier": reply_json(scan, l.earlier),
            })
        })
        .collect();
    let latest = rounds.latest();
    json!({
        "rounds": list,
        "fraction": rounds.fraction.to_string().parse::<f64>().unwrap_or(0.5),
        "pages": pages,
        "latest": latest.map(|r| rounds.names[r].clone()),
        "lost_in_latest": latest.map_or(0, |r| rounds.losses_in(r).count()),
    })
}
