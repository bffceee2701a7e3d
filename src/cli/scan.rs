//! `bracewalk scan`: the corpus's counts as a table, a Markdown report or JSON, with a
//! progress bar on a terminal. The counting is [`crate::scan`]'s; this only prints.

use std::fmt::Write as _;
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::{Map, Value as Json, json};

use crate::describe::thousands;
use crate::read::trace::{DecidedBy, WholeReply};
use crate::runlog::LoadOptions;
use crate::scan::{Comparison, Config, Group, Progress, Scan, scan_paths};
use crate::visible::visible;

use super::style::Style;

/// Differing replies shown per comparison without `--list`.
const SHOWN: usize = 10;

/// How the result is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    Table,
    Markdown,
    Json,
}

/// Scans `paths` and prints the result to `out`; the exit status is `list`'s: 0 when
/// everything loaded, 1 when some inputs had diagnostics, 2 when nothing could be read. An
/// error is a failed write.
pub fn run(
    paths: &[PathBuf],
    load: &LoadOptions,
    config: Config,
    output: Output,
    list: bool,
    out: &mut dyn Write,
) -> io::Result<u8> {
    let bar = progress_bar();
    let scan = scan_paths(paths, load, config, &mut |p: &Progress| {
        bar.set_length(p.bytes_total);
        bar.set_position(p.bytes_done);
        bar.set_message(format!("{} replies", thousands(p.replies)));
    });
    bar.finish_and_clear();
    let printed = match output {
        Output::Table => render_text(&scan, list, &Style::for_stdout()),
        Output::Markdown => render_markdown(&scan, list),
        Output::Json => format!("{}\n", render_json(&scan, list)),
    };
    out.write_all(printed.as_bytes())?;
    Ok(exit_code(&scan))
}

/// A bar on stderr when it is a terminal; hidden otherwise.
fn progress_bar() -> ProgressBar {
    if !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("{spinner} {wide_bar} {bytes}/{total_bytes} {msg} ({elapsed}, eta {eta})")
    {
        bar.set_style(style);
    }
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

/// 0 when everything loaded, 1 when some inputs had diagnostics, 2 when nothing could be
/// read (as `list`).
pub fn exit_code(scan: &Scan) -> u8 {
    match (scan.diagnostics.len(), scan.replies.len() + scan.calls_without_reply.len()) {
        (0, _) => 0,
        (_, 0) => 2,
        _ => 1,
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 { format!("1 {one}") } else { format!("{} {many}", thousands(n)) }
}

fn percent(n: usize, of: usize) -> String {
    if of == 0 { String::new() } else { format!("{:.1}%", n as f64 * 100.0 / of as f64) }
}

/// `1.2 MB`, `456 kB`, `12 B`.
fn size(bytes: f64) -> String {
    if bytes >= 1e9 {
        format!("{:.1} GB", bytes / 1e9)
    } else if bytes >= 1e6 {
        format!("{:.1} MB", bytes / 1e6)
    } else if bytes >= 1e3 {
        format!("{:.0} kB", bytes / 1e3)
    } else {
        format!("{bytes:.0} B")
    }
}

fn per_second(n: f64, elapsed: Duration) -> f64 {
    let s = elapsed.as_secs_f64();
    if s > 0.0 { n / s } else { 0.0 }
}

/// The opening line: what was read.
fn headline(scan: &Scan) -> String {
    let mut s = format!(
        "{}, {} bytes",
        plural(scan.replies.len(), "reply", "replies"),
        thousands(usize::try_from(scan.bytes).unwrap_or(usize::MAX))
    );
    if !scan.calls_without_reply.is_empty() {
        let _ = write!(s, ", {} with no reply", plural(scan.calls_without_reply.len(), "call", "calls"));
    }
    let _ = write!(s, ", {}", plural(scan.diagnostics.len(), "diagnostic", "diagnostics"));
    s
}

/// The closing line: how long it took.
fn timing(scan: &Scan) -> Option<String> {
    let e = scan.elapsed?;
    Some(format!(
        "scanned in {:.2} s: {} replies/s, {}/s",
        e.as_secs_f64(),
        thousands(per_second(scan.replies.len() as f64, e).round() as usize),
        size(per_second(scan.bytes as f64, e))
    ))
}

/// A row of the table: a label, a count, and the replies behind it.
struct Row<'a> {
    label: String,
    count: usize,
    note: String,
    replies: Vec<&'a str>,
}

/// The sections of counts, in the order they are shown: (title, rows).
fn sections(scan: &Scan) -> Vec<(&'static str, Vec<Row<'_>>)> {
    let n = scan.replies.len();
    let ids = |v: &[usize]| v.iter().map(|&i| scan.id(i)).collect::<Vec<_>>();
    let row =
        |label: &str, v: &[usize], note: String| Row { label: label.to_owned(), count: v.len(), note, replies: ids(v) };
    let decided =
        DecidedBy::ALL.iter().map(|&d| row(d.name(), scan.decided(d), percent(scan.decided(d).len(), n))).collect();
    let verdicts = WholeReply::NAMES
        .iter()
        .map(|&name| row(name, scan.verdict(name), percent(scan.verdict(name).len(), n)))
        .collect();
    let r = &scan.repair;
    let repair = vec![
        row("strict-only reads nothing", &r.strict_unreadable, percent(r.strict_unreadable.len(), n)),
        row("  of which the repair reads", &r.rescued, percent(r.rescued.len(), r.strict_unreadable.len())),
        row("repair changes a strict reading", &r.changed, percent(r.changed.len(), n)),
    ];
    let truncation = scan
        .truncation
        .iter()
        .map(|t| Row {
            label: format!("\"{}\": [ never closed", visible(&t.field, false)),
            count: t.replies.len(),
            note: format!("{} recovered", plural(t.entries, "entry", "entries")),
            replies: t.replies.iter().map(|&(i, _)| scan.id(i)).collect(),
        })
        .collect();
    vec![
        ("how last-wins decided", decided),
        ("the whole-reply attempt", verdicts),
        ("repair", repair),
        ("truncation", truncation),
    ]
}

/// The groups: (title, groups).
fn groupings(scan: &Scan) -> [(&'static str, &std::collections::BTreeMap<String, Group>); 3] {
    [("by agent", &scan.by_agent), ("by round", &scan.by_round), ("by format", &scan.by_format)]
}

/// The readable table.
pub fn render_text(scan: &Scan, list: bool, style: &Style) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{}", style.bold(&headline(scan)));
    let count_style = |n: usize, s: &str| if n == 0 { style.dim(s) } else { s.to_owned() };

    // The groups, with how the seed decided in each.
    let width = groupings(scan)
        .iter()
        .flat_map(|(_, g)| g.keys())
        .map(|k| visible(k, false).chars().count() + 2)
        .chain([20])
        .max()
        .unwrap_or(20)
        .min(48);
    let _ = writeln!(o);
    let mut header = format!("{:<width$} {:>8} {:>12}", "", "replies", "bytes");
    for d in DecidedBy::ALL {
        let _ = write!(header, " {:>11}", d.name());
    }
    let _ = writeln!(o, "{}", style.dim(&header));
    for (title, groups) in groupings(scan) {
        let _ = writeln!(o, "{}", style.bold(title));
        for (name, g) in groups {
            let mut line = format!(
                "  {:<w$} {:>8} {:>12}",
                visible(name, false),
                thousands(g.replies.len()),
                thousands(usize::try_from(g.bytes).unwrap_or(usize::MAX)),
                w = width - 2
            );
            for n in g.decided_by {
                let _ = write!(line, " {}", count_style(n, &format!("{:>11}", thousands(n))));
            }
            let _ = writeln!(o, "{line}");
            if list {
                for &i in &g.replies {
                    let _ = writeln!(o, "      {}", visible(scan.id(i), false));
                }
            }
        }
    }

    for (title, rows) in sections(scan) {
        let _ = writeln!(o);
        let _ = writeln!(o, "{}", style.bold(title));
        if rows.is_empty() {
            let _ = writeln!(o, "  {}", style.dim("(no fields asked about)"));
        }
        for r in rows {
            let count = count_style(r.count, &format!("{:>8}", thousands(r.count)));
            let _ = writeln!(o, "  {:<34} {count}  {}", r.label, style.dim(&r.note));
            if list {
                for id in r.replies {
                    let _ = writeln!(o, "      {}", visible(id, false));
                }
            }
        }
    }

    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "{}",
        style.bold("reader comparison (an account reads from the first reader's answer to the second's)")
    );
    for c in &scan.comparisons {
        let n = c.differ.len();
        let label = format!("{} → {}", c.pair.from.name(), c.pair.to.name());
        let count = if n == 0 { style.dim(&format!("{:>8}", 0)) } else { style.warn(&format!("{:>8}", thousands(n))) };
        let _ = writeln!(o, "  {label:<44} {count} differ  {}", style.dim(c.pair.from.description()));
        let shown = if list { n } else { n.min(SHOWN) };
        let id_width =
            c.differ.iter().take(shown).map(|d| visible(scan.id(d.reply), false).chars().count()).max().unwrap_or(0);
        for d in c.differ.iter().take(shown) {
            let _ = writeln!(o, "    {:<id_width$}  {}", visible(scan.id(d.reply), false), visible(&d.account, false));
        }
        if shown < n {
            let _ =
                writeln!(o, "    {}", style.dim(&format!("… and {} more (--list shows all)", thousands(n - shown))));
        }
    }

    if list && !scan.calls_without_reply.is_empty() {
        let _ = writeln!(o);
        let _ = writeln!(o, "{}", style.bold("calls with no reply"));
        for id in &scan.calls_without_reply {
            let _ = writeln!(o, "      {}", visible(id, false));
        }
    }
    if list && !scan.diagnostics.is_empty() {
        let _ = writeln!(o);
        let _ = writeln!(o, "{}", style.bold("diagnostics"));
        for d in &scan.diagnostics {
            let _ = writeln!(o, "  {}", visible(d, false));
        }
    }
    if let Some(t) = timing(scan) {
        let _ = writeln!(o);
        let _ = writeln!(o, "{}", style.dim(&t));
    }
    o
}

/// Text for a Markdown table cell.
fn cell(s: &str) -> String {
    visible(s, false).replace('\\', "\\\\").replace('|', "\\|")
}

/// An id as Markdown code.
fn code(s: &str) -> String {
    let v = visible(s, false);
    if v.contains('`') { format!("`` {} ``", v.replace('|', "\\|")) } else { format!("`{}`", v.replace('|', "\\|")) }
}

/// A report in Markdown.
pub fn render_markdown(scan: &Scan, list: bool) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "# bracewalk scan\n\n{}.", headline(scan));
    if let Some(t) = timing(scan) {
        let _ = writeln!(o, "\n{}.", upper_first(&t));
    }
    let mut header = "| | replies | bytes |".to_owned();
    let mut rule = "| --- | ---: | ---: |".to_owned();
    for d in DecidedBy::ALL {
        let _ = write!(header, " {} |", d.name());
        rule.push_str(" ---: |");
    }
    for (title, groups) in groupings(scan) {
        let _ = writeln!(o, "\n## Replies {title}\n\n{header}\n{rule}");
        for (name, g) in groups {
            let mut line = format!(
                "| {} | {} | {} |",
                cell(name),
                thousands(g.replies.len()),
                thousands(usize::try_from(g.bytes).unwrap_or(usize::MAX))
            );
            for n in g.decided_by {
                let _ = write!(line, " {} |", thousands(n));
            }
            let _ = writeln!(o, "{line}");
        }
    }
    for (title, rows) in sections(scan) {
        let _ = writeln!(o, "\n## {}\n\n| | replies | |\n| --- | ---: | --- |", upper_first(title));
        for r in &rows {
            let _ = writeln!(o, "| {} | {} | {} |", cell(r.label.trim()), thousands(r.count), cell(&r.note));
        }
        if list {
            for r in rows.iter().filter(|r| !r.replies.is_empty()) {
                let _ = writeln!(o, "\n{}:\n", cell(r.label.trim()));
                for id in &r.replies {
                    let _ = writeln!(o, "- {}", code(id));
                }
            }
        }
    }
    let _ =
        writeln!(o, "\n## Reader comparison\n\n| from | to | differ | the first reader |\n| --- | --- | ---: | --- |");
    for c in &scan.comparisons {
        let _ = writeln!(
            o,
            "| `{}` | `{}` | {} | {} |",
            c.pair.from.name(),
            c.pair.to.name(),
            thousands(c.differ.len()),
            cell(c.pair.from.description())
        );
    }
    for c in scan.comparisons.iter().filter(|c| !c.differ.is_empty()) {
        markdown_comparison(&mut o, scan, c, list);
    }
    o
}

fn markdown_comparison(o: &mut String, scan: &Scan, c: &Comparison, list: bool) {
    let n = c.differ.len();
    let _ = writeln!(
        o,
        "\n### `{}` → `{}`: {}\n\n| reply | difference |\n| --- | --- |",
        c.pair.from.name(),
        c.pair.to.name(),
        plural(n, "reply differs", "replies differ")
    );
    let shown = if list { n } else { n.min(SHOWN) };
    for d in c.differ.iter().take(shown) {
        let _ = writeln!(o, "| {} | {} |", code(scan.id(d.reply)), cell(&d.account));
    }
    if shown < n {
        let _ = writeln!(o, "\nAnd {} more (`--list` shows all).", thousands(n - shown));
    }
}

fn upper_first(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

/// The whole result as JSON; the keys are documented in [`crate::scan`].
pub fn render_json(scan: &Scan, list: bool) -> Json {
    let decided_counts = |counts: [usize; 4]| -> Map<String, Json> {
        DecidedBy::ALL.iter().zip(counts).map(|(d, n)| (d.name().to_owned(), json!(n))).collect()
    };
    let groups = |g: &std::collections::BTreeMap<String, Group>| -> Map<String, Json> {
        g.iter()
            .map(|(k, g)| {
                (
                    k.clone(),
                    json!({"replies": g.replies.len(), "bytes": g.bytes, "decided_by": decided_counts(g.decided_by)}),
                )
            })
            .collect()
    };
    let comparisons: Map<String, Json> = scan
        .comparisons
        .iter()
        .map(|c| {
            let replies: Vec<Json> = c
                .differ
                .iter()
                .map(|d| match scan.replies.get(d.reply).and_then(|r| r.reference.as_ref()) {
                    Some(r) => json!({"id": scan.id(d.reply), "reference": r, "account": d.account}),
                    None => json!({"id": scan.id(d.reply), "account": d.account}),
                })
                .collect();
            (
                c.pair.key(),
                json!({"from": c.pair.from.name(), "to": c.pair.to.name(), "differ": c.differ.len(), "replies": replies}),
            )
        })
        .collect();
    let truncation: Map<String, Json> = scan
        .truncation
        .iter()
        .map(|t| (t.field.clone(), json!({"replies": t.replies.len(), "entries": t.entries})))
        .collect();
    let decided: Map<String, Json> =
        DecidedBy::ALL.iter().map(|&d| (d.name().to_owned(), json!(scan.decided(d).len()))).collect();
    let verdicts: Map<String, Json> =
        WholeReply::NAMES.iter().map(|&v| (v.to_owned(), json!(scan.verdict(v).len()))).collect();
    let elapsed = scan.elapsed.unwrap_or_default();
    let mut out = json!({
        "replies": scan.replies.len(),
        "bytes": scan.bytes,
        "calls_without_reply": scan.calls_without_reply.len(),
        "diagnostics": scan.diagnostics.len(),
        "by_agent": groups(&scan.by_agent),
        "by_round": groups(&scan.by_round),
        "by_format": groups(&scan.by_format),
        "decided_by": decided,
        "whole_reply": verdicts,
        "repair": {
            "strict_unreadable": scan.repair.strict_unreadable.len(),
            "rescued": scan.repair.rescued.len(),
            "changed": scan.repair.changed.len(),
        },
        "truncation": truncation,
        "comparisons": comparisons,
        "elapsed_seconds": elapsed.as_secs_f64(),
        "replies_per_second": per_second(scan.replies.len() as f64, elapsed),
        "bytes_per_second": per_second(scan.bytes as f64, elapsed),
    });
    if list && let Some(o) = out.as_object_mut() {
        o.insert("ids".to_owned(), json_ids(scan));
    }
    out
}

/// The ids behind every count, under the count's own key.
fn json_ids(scan: &Scan) -> Json {
    let ids = |v: &[usize]| Json::from(v.iter().map(|&i| scan.id(i)).collect::<Vec<_>>());
    let groups = |g: &std::collections::BTreeMap<String, Group>| -> Map<String, Json> {
        g.iter().map(|(k, g)| (k.clone(), ids(&g.replies))).collect()
    };
    let decided: Map<String, Json> =
        DecidedBy::ALL.iter().map(|&d| (d.name().to_owned(), ids(scan.decided(d)))).collect();
    let verdicts: Map<String, Json> = WholeReply::NAMES.iter().map(|&v| (v.to_owned(), ids(scan.verdict(v)))).collect();
    let truncation: Map<String, Json> = scan
        .truncation
        .iter()
        .map(|t| {
            let replies: Vec<Json> = t.replies.iter().map(|&(i, n)| json!({"id": scan.id(i), "entries": n})).collect();
            (t.field.clone(), Json::from(replies))
        })
        .collect();
    json!({
        "replies": ids(&(0..scan.replies.len()).collect::<Vec<_>>()),
        "calls_without_reply": scan.calls_without_reply,
        "diagnostics": scan.diagnostics,
        "by_agent": groups(&scan.by_agent),
        "by_round": groups(&scan.by_round),
        "by_format": groups(&scan.by_format),
        "decided_by": decided,
        "whole_reply": verdicts,
        "repair": {
            "strict_unreadable": ids(&scan.repair.strict_unreadable),
            "rescued": ids(&scan.repair.rescued),
            "changed": ids(&scan.repair.changed),
        },
        "truncation": truncation,
    })
}
