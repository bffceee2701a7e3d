//! `bracewalk scan`: the corpus's counts as a table, a Markdown report or JSON, with a
//! progress bar on a terminal. The counting is [`crate::scan`]'s, and the sections, their rows
//! and labels are its [`report`]'s; this only lays them out.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::{Map, Value as Json, json};

use crate::analysis::{Class, Config};
use crate::describe::plural;
use crate::describe::thousands;
use crate::exact::trace::DecidedBy;
use crate::logs::LoadOptions;
use crate::natural::Json as Natural;
use crate::query::Query;
use crate::scan::report::{self, Kind, Row, headline};
use crate::scan::shard::{Manifest, Options, Plan};
use crate::scan::{Comparison, Difference, Group, InputDiagnostic, Progress, Scan, Whole, scan_found, scan_paths_only};
use crate::visible::visible;

use super::style::Style;

/// Lines of differing replies shown per comparison without `--list`.
const SHOWN: usize = 10;

/// Diagnostics told on stderr without `--list`; the rest are counted.
const TOLD: usize = 20;

/// How the result is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    Table,
    Markdown,
    Json,
}

/// One scan a command runs: what it reads and with what, and when the command began.
pub struct Job<'a> {
    pub plan: &'a Plan,
    pub load: &'a LoadOptions,
    pub config: Config,
    /// The replies counted, where `--filter` narrows them.
    pub only: Option<Query>,
    /// When the command started, and how long starting its readers of one's own took before
    /// the scan: the report gives the whole time, and their share.
    pub began: Instant,
    pub readers_starting: Duration,
}

/// How a scan's result is printed: its form, whether every difference and diagnostic is
/// listed, and the options its manifest records (`--json --list`).
pub struct Printed {
    pub output: Output,
    pub list: bool,
    pub options: Options,
}

/// Runs `job` and prints the result to `out`; the exit status is `list`'s: 0 when everything
/// loaded, 1 when some inputs had diagnostics, 2 when nothing could be read. An error is a
/// failed write.
pub fn run(job: Job<'_>, printed: Printed, out: &mut dyn Write) -> io::Result<u8> {
    let started = now();
    let mut scan = scan_only_with_progress(job.plan, job.load, job.config, job.only);
    scan.whole = Some(Whole { wall: job.began.elapsed(), readers_starting: job.readers_starting });
    let status = plan_exit_code(&scan, job.plan);
    let manifest = Manifest::of(job.plan, printed.options, status, started);
    print(&scan, printed.output, printed.list, Some(&manifest), out)?;
    // After the report, so that on a terminal they are the last thing said.
    out.flush()?;
    let _ = tell_diagnostics(&scan, printed.list, &mut io::stderr().lock());
    Ok(status)
}

/// Seconds since the Unix epoch, now.
pub fn now() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
}

/// What could not be read of the inputs, on `err` as a command-line tool says its errors: a
/// line each, after the program's name, whatever the output format; every one with `list`,
/// else the first `TOLD` and how many more. What went wrong with a reader of one's own is
/// the report's to say, in its readers' section.
pub fn tell_diagnostics(scan: &Scan, list: bool, err: &mut dyn Write) -> io::Result<()> {
    let inputs = &scan.unread;
    let told = if list { inputs.len() } else { inputs.len().min(TOLD) };
    for d in &inputs[..told] {
        writeln!(err, "bracewalk: {}", visible(&d.to_string(), false))?;
    }
    if told < inputs.len() {
        let more = inputs.len() - told;
        let more = format!("{} more {}", thousands(more), if more == 1 { "diagnostic" } else { "diagnostics" });
        writeln!(err, "bracewalk: … and {more} (--list prints every one)")?;
    }
    Ok(())
}

/// Prints a scan made by any means (read, or merged from shards) as `output`, with its
/// manifest where it is printed as JSON with `list`; the exit status is [`exit_code`]'s.
pub fn print(
    scan: &Scan,
    output: Output,
    list: bool,
    manifest: Option<&Manifest>,
    out: &mut dyn Write,
) -> io::Result<u8> {
    match output {
        Output::Table => out.write_all(render_text(scan, list, &Style::for_stdout()).as_bytes())?,
        Output::Markdown => out.write_all(render_markdown(scan, list).as_bytes())?,
        Output::Json => write_json(scan, list, manifest, out)?,
    }
    Ok(exit_code(scan))
}

/// Puts `manifest` in a scan's JSON, at `manifest`.
pub fn with_manifest(json: &mut Json, manifest: Option<&Manifest>) {
    if let (Some(o), Some(m)) = (json.as_object_mut(), manifest) {
        o.insert("manifest".to_owned(), serde_json::to_value(m).unwrap_or(Json::Null));
    }
}

/// Scans `paths`, with a progress bar on a terminal.
pub fn scan_with_progress(paths: &[PathBuf], load: &LoadOptions, config: Config) -> Scan {
    let bar = progress_bar();
    let scan = scan_paths_only(paths, load, config, None, &mut |p: &Progress| {
        bar.set_length(p.bytes_total);
        bar.set_position(p.bytes_done);
        bar.set_message(format!("{} replies", thousands(p.replies)));
    });
    bar.finish_and_clear();
    scan
}

/// Scans what `plan` reads, with a progress bar on a terminal, counting only what `only`
/// selects (`--filter`).
pub fn scan_only_with_progress(plan: &Plan, load: &LoadOptions, config: Config, only: Option<Query>) -> Scan {
    let bar = progress_bar();
    let scan =
        scan_found(&plan.found, &plan.sizes, &|item| plan.rename(item), load, config, only, &mut |p: &Progress| {
            bar.set_length(p.bytes_total);
            bar.set_position(p.bytes_done);
            bar.set_message(format!("{} replies", thousands(p.replies)));
        });
    bar.finish_and_clear();
    scan
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

/// The exit status of a scan of what `plan` reads: [`exit_code`]'s, except that a part of a
/// cut read nothing where the whole corpus has no file and its walk met a problem (an input
/// not there), whatever its part holds; a part that holds only files that read nothing, or
/// nothing, has not failed.
pub fn plan_exit_code(scan: &Scan, plan: &Plan) -> u8 {
    if plan.part.of == 1 {
        return exit_code(scan);
    }
    match exit_code(scan) {
        _ if plan.corpus.files == 0 && plan.problems > 0 => 2,
        2 => 1,
        code => code,
    }
}

/// 0 when everything loaded, 1 when some inputs had diagnostics, 2 when nothing could be
/// read (as `list`).
pub fn exit_code(scan: &Scan) -> u8 {
    match (scan.diagnostic_count(), scan.reply_count() + scan.calls_without_reply_count()) {
        (0, _) => 0,
        (_, 0) => 2,
        _ => 1,
    }
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

/// The closing line: how long it took, the whole command where it was timed (the readers of
/// one's own's share apart: starting them, and waiting on their answers).
fn timing(scan: &Scan) -> Option<String> {
    let e = scan.elapsed?;
    let wall = scan.whole.map_or(e, |w| w.wall.max(e));
    let readers = scan.whole.map_or(Duration::ZERO, |w| w.readers_starting) + scan.readers_answering;
    let share = if scan.noted.is_empty() {
        String::new()
    } else {
        format!(
            ", {:.2} s of it readers of your own ({:.2} s starting, {:.2} s answering)",
            readers.as_secs_f64(),
            scan.whole.map_or(Duration::ZERO, |w| w.readers_starting).as_secs_f64(),
            scan.readers_answering.as_secs_f64()
        )
    };
    Some(format!(
        "scanned in {:.2} s{share}: {} replies/s, {}/s",
        wall.as_secs_f64(),
        thousands(per_second(scan.reply_count() as f64, wall).round() as usize),
        size(per_second(scan.bytes as f64, wall))
    ))
}

fn bytes(g: &Group) -> String {
    thousands(usize::try_from(g.bytes).unwrap_or(usize::MAX))
}

/// The readable table.
pub fn render_text(scan: &Scan, list: bool, style: &Style) -> String {
    let config = &scan.config;
    let mut o = String::new();
    let _ = writeln!(o, "{}", style.bold(&headline(scan)));
    let count_style = |n: usize, s: &str| if n == 0 { style.dim(s) } else { s.to_owned() };
    let ids = |o: &mut String, row: &Row, indent: &str| {
        for (i, note) in row.replies(scan) {
            match row {
                // A flag says what raised it, a reader what it threw, returned or failed on.
                Row::Flag(_) | Row::Reader(..) => {
                    let _ =
                        writeln!(o, "{indent}{}  {}", visible(scan.id(i), false), style.dim(&visible(&note, false)));
                }
                _ => {
                    let _ = writeln!(o, "{indent}{}", visible(scan.id(i), false));
                }
            }
        }
    };
    let sections = report::sections(scan);

    // The groups, in one table, with how the seed decided in each.
    let groups: Vec<_> = sections.iter().filter(|s| s.kind == Kind::Groups).collect();
    let width = groups
        .iter()
        .flat_map(|s| &s.rows)
        .map(|r| r.label(config).chars().count() + 2)
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
    for section in &groups {
        let _ = writeln!(o, "{}", style.bold(section.title));
        for row in &section.rows {
            let Some(g) = row.group(scan) else { continue };
            let mut line = format!(
                "  {:<w$} {:>8} {:>12}",
                row.label(config),
                thousands(row.count(scan)),
                bytes(g),
                w = width - 2
            );
            for n in g.decided_by {
                let _ = write!(line, " {}", count_style(n, &format!("{:>11}", thousands(n))));
            }
            let _ = writeln!(o, "{line}");
            if list {
                ids(&mut o, row, "      ");
            }
        }
    }

    // One width for every section of counts, so that they line up.
    let label_w = sections
        .iter()
        .filter(|s| s.kind == Kind::Counts)
        .flat_map(|s| &s.rows)
        .map(|r| r.label(config).chars().count())
        .chain([34])
        .max()
        .unwrap_or(34);
    for section in sections.iter().filter(|s| s.kind == Kind::Counts) {
        let _ = writeln!(o);
        let _ = writeln!(o, "{}", style.bold(section.title));
        if section.title == report::READERS {
            for r in report::own_readers(scan) {
                let calls = report::calls(scan, r).unwrap_or_default();
                let _ = writeln!(o, "  {} calls {}", config.catalogue.name(r), visible(&calls, false));
            }
        }
        for row in &section.rows {
            let n = row.count(scan);
            let count = count_style(n, &format!("{:>8}", thousands(n)));
            let _ = writeln!(o, "  {:<label_w$} {count}  {}", row.label(config), style.dim(&row.note(scan)));
            if list {
                ids(&mut o, row, "      ");
            }
        }
    }

    for section in sections.iter().filter(|s| s.kind == Kind::Comparisons) {
        let _ = writeln!(o);
        let _ = writeln!(o, "{}", style.bold(section.title));
        let compared: Vec<(&Row, &Comparison)> = section
            .rows
            .iter()
            .filter_map(|row| match row {
                Row::Differs(p) => Some((row, scan.comparisons.get(*p)?)),
                _ => None,
            })
            .collect();
        // Each comparison is one sentence, its numbers aligned with the others'.
        let widest =
            |f: &dyn Fn(&Comparison) -> usize| compared.iter().map(|(_, c)| thousands(f(c)).len()).max().unwrap_or(1);
        let label_w = compared.iter().map(|(r, _)| r.label(config).chars().count() + 1).max().unwrap_or(0);
        let differ_w = widest(&|c| c.differ.len());
        let class_w = Class::ALL.map(|k| widest(&|c| c.count(k)));
        for (row, c) in compared {
            let n = c.differ.len();
            let count = format!("{:>differ_w$}", thousands(n));
            let count = if n == 0 { style.dim(&count) } else { style.warn(&count) };
            let classes: Vec<String> = Class::ALL
                .iter()
                .zip(class_w)
                .map(|(&k, w)| {
                    let said =
                        format!("{:>w$} {}{}", thousands(c.count(k)), k.name(), report::sides(scan, c, k, c.count(k)));
                    count_style(c.count(k), &said)
                })
                .collect();
            let mut line = format!(
                "  {:<label_w$} {count} read differently: {}",
                format!("{}:", row.label(config)),
                classes.join(", ")
            );
            let said = report::readers_said(scan, c.pair);
            if said.is_empty() {
                let _ = write!(line, "  {}", style.dim(&row.note(scan)));
            } else {
                let _ = write!(line, "; {}", said.join("; "));
            }
            let _ = writeln!(o, "{line}");
            let shown = shown_by_class(c, list);
            let id_width = shown
                .iter()
                .flat_map(|s| &s.lines)
                .map(|(d, _)| visible(scan.id(d.reply), false).chars().count())
                .max()
                .unwrap_or(0);
            for s in shown {
                for (d, n) in &s.lines {
                    let id = visible(scan.id(d.reply), false);
                    let account = visible(&d.account, false);
                    let _ =
                        writeln!(o, "    {:<7}  {id:<id_width$}  {account}{}", s.class.name(), style.dim(&alike(*n)));
                }
                if s.more > 0 {
                    let more = format!("… and {} more {} (--list shows all)", thousands(s.more), s.class.name());
                    let _ = writeln!(o, "    {:<7}  {}", "", style.dim(&more));
                }
            }
        }
    }

    // What went wrong with a reader of one's own is shown whatever the options.
    o.push_str(&super::readers::problems_text(scan, list, style));

    if list && !scan.calls_without_reply.is_empty() {
        let _ = writeln!(o);
        let _ = writeln!(o, "{}", style.bold("calls with no reply"));
        for id in &scan.calls_without_reply {
            let _ = writeln!(o, "      {}", visible(id, false));
        }
    }
    if list && !scan.unread.is_empty() {
        let _ = writeln!(o);
        let _ = writeln!(o, "{}", style.bold("diagnostics"));
        for d in &scan.unread {
            let _ = writeln!(o, "  {}", visible(&d.to_string(), false));
        }
    }
    if let Some(t) = timing(scan) {
        let _ = writeln!(o);
        let _ = writeln!(o, "{}", style.dim(&t));
    }
    o
}

/// The differences of one class of a comparison as shown: each line a reply, with how many
/// more replies read alike, and how many of the class are not shown.
struct ClassShown<'a> {
    class: Class,
    lines: Vec<(&'a Difference, usize)>,
    more: usize,
}

/// The differences of a comparison to show, by class (gained, lost, changed), each in scan
/// order. With `list`, every one. Without, [`SHOWN`] lines shared among the classes in turn,
/// each line the first reply of an account, with the count of the others read alike (a
/// corpus repeats itself: 150 replies gained as `null → value {html, log}` are one line),
/// so that every class is seen, and every kind of difference before any is repeated.
fn shown_by_class(c: &Comparison, list: bool) -> Vec<ClassShown<'_>> {
    let mut classes: Vec<(Class, Vec<(&Difference, usize)>)> = Class::ALL
        .iter()
        .map(|&class| {
            let mut lines: Vec<(&Difference, usize)> = Vec::new();
            if list {
                lines.extend(c.of(class).map(|d| (d, 0)));
            } else {
                let mut at: HashMap<&str, usize> = HashMap::new();
                for d in c.of(class) {
                    match at.get(&*d.account) {
                        Some(&i) => lines[i].1 += 1,
                        None => {
                            at.insert(&d.account, lines.len());
                            lines.push((d, 0));
                        }
                    }
                }
            }
            (class, lines)
        })
        .collect();
    let mut taken = [0usize; 3];
    if !list {
        // One line to each class in turn, while lines are left to give.
        let mut left = SHOWN;
        while left > 0 {
            let before = left;
            for (k, (_, lines)) in classes.iter().enumerate() {
                if left > 0 && taken[k] < lines.len() {
                    taken[k] += 1;
                    left -= 1;
                }
            }
            if left == before {
                break;
            }
        }
    }
    classes
        .iter_mut()
        .zip(taken)
        .filter(|((_, lines), _)| !lines.is_empty())
        .map(|((class, lines), n)| {
            if !list {
                lines.truncate(n);
            }
            let covered: usize = lines.iter().map(|(_, alike)| alike + 1).sum();
            ClassShown { class: *class, lines: std::mem::take(lines), more: c.count(*class) - covered }
        })
        .collect()
}

/// `  (+3 alike)`: how many more replies a shown one stands for.
fn alike(n: usize) -> String {
    if n == 0 { String::new() } else { format!("  (+{} alike)", thousands(n)) }
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
    let config = &scan.config;
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
    let sections = report::sections(scan);
    for section in sections.iter().filter(|s| s.kind == Kind::Groups) {
        let _ = writeln!(o, "\n## Replies {}\n\n{header}\n{rule}", section.title);
        for row in &section.rows {
            let Some(g) = row.group(scan) else { continue };
            let mut line = format!("| {} | {} | {} |", cell(&row.label(config)), thousands(row.count(scan)), bytes(g));
            for n in g.decided_by {
                let _ = write!(line, " {} |", thousands(n));
            }
            let _ = writeln!(o, "{line}");
        }
    }
    for section in sections.iter().filter(|s| s.kind == Kind::Counts) {
        let _ = writeln!(o, "\n## {}\n", upper_first(section.title));
        if section.title == report::READERS {
            for r in report::own_readers(scan) {
                let calls = report::calls(scan, r).unwrap_or_default();
                let _ = writeln!(o, "- {} calls {}", code(config.catalogue.name(r)), cell(&calls));
            }
            let _ = writeln!(o);
        }
        let _ = writeln!(o, "| | replies | |\n| --- | ---: | --- |");
        for row in &section.rows {
            let label = row.label(config);
            let _ =
                writeln!(o, "| {} | {} | {} |", cell(label.trim()), thousands(row.count(scan)), cell(&row.note(scan)));
        }
        if list {
            for row in &section.rows {
                let replies = row.replies(scan);
                if replies.is_empty() {
                    continue;
                }
                let _ = writeln!(o, "\n{}:\n", cell(row.label(config).trim()));
                for (i, note) in replies {
                    match row {
                        Row::Flag(_) | Row::Reader(..) => {
                            let _ = writeln!(o, "- {}: {}", code(scan.id(i)), visible(&note, false));
                        }
                        _ => {
                            let _ = writeln!(o, "- {}", code(scan.id(i)));
                        }
                    }
                }
            }
        }
    }
    let _ = writeln!(
        o,
        "\n## Reader comparison\n\nFrom the first reader to the second: gained, the second reads what the first does not; lost, the first reads what the second does not; changed, both read, otherwise.\n\n| from | to | differ | gained | lost | changed | the first reader |\n| --- | --- | ---: | ---: | ---: | ---: | --- |"
    );
    for c in &scan.comparisons {
        let _ = writeln!(
            o,
            "| `{}` | `{}` | {} | {} | {} | {} | {} |",
            config.catalogue.name(c.pair.from),
            config.catalogue.name(c.pair.to),
            thousands(c.differ.len()),
            thousands(c.count(Class::Gained)),
            thousands(c.count(Class::Lost)),
            thousands(c.count(Class::Changed)),
            cell(config.catalogue.description(c.pair.from))
        );
    }
    for (p, c) in scan.comparisons.iter().enumerate() {
        if !c.differ.is_empty() || !report::readers_said(scan, c.pair).is_empty() {
            markdown_comparison(&mut o, scan, p, c, list);
        }
    }
    o
}

fn markdown_comparison(o: &mut String, scan: &Scan, p: usize, c: &Comparison, list: bool) {
    let n = c.differ.len();
    let _ = writeln!(
        o,
        "\n### `{}` → `{}`: {}\n\n{}.",
        scan.config.catalogue.name(c.pair.from),
        scan.config.catalogue.name(c.pair.to),
        plural(n, "reply differs", "replies differ"),
        cell(&report::sentence(scan, p))
    );
    if n == 0 {
        return;
    }
    let _ = writeln!(o, "\n| reply | class | difference |\n| --- | --- | --- |");
    let mut more = Vec::new();
    for s in shown_by_class(c, list) {
        for (d, n) in &s.lines {
            let _ =
                writeln!(o, "| {} | {} | {}{} |", code(scan.id(d.reply)), s.class.name(), cell(&d.account), alike(*n));
        }
        if s.more > 0 {
            more.push(format!("{} more {}", thousands(s.more), s.class.name()));
        }
    }
    if !more.is_empty() {
        let _ = writeln!(o, "\nAnd {} (`--list` shows all).", more.join(", "));
    }
}

fn upper_first(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

/// Puts `value` at the row's place in `out`: `out[top]` for a row of its own, else
/// `out[top][key]`.
fn place(out: &mut Map<String, Json>, (top, key): (&'static str, Option<String>), value: Json) {
    match key {
        None => {
            out.insert(top.to_owned(), value);
        }
        Some(key) => {
            let section = out.entry(top.to_owned()).or_insert_with(|| Json::Object(Map::new()));
            if let Some(m) = section.as_object_mut() {
                m.insert(key, value);
            }
        }
    }
}

/// The whole result as JSON; the keys are documented in the README (*`bracewalk scan
/// --json`*, held to this by a test). Every count is a row of the report, at its
/// [`Row::json_key`].
pub fn render_json(scan: &Scan, list: bool) -> Json {
    render_json_of(scan, list, true)
}

/// One difference as `scan --json` lists it: `{id, reference?, class, account}`.
fn difference_json(scan: &Scan, d: &Difference) -> Json {
    let (id, class, account) = (scan.id(d.reply), d.class.name(), &d.account);
    match scan.replies.get(d.reply).and_then(|r| r.reference.as_ref()) {
        Some(r) => json!({"id": id, "reference": &**r, "class": class, "account": &**account}),
        None => json!({"id": id, "class": class, "account": &**account}),
    }
}

/// One JSON value written compactly, as `Display` writes it.
fn put(out: &mut dyn Write, value: &impl serde::Serialize) -> io::Result<()> {
    serde_json::to_writer(out, value).map_err(io::Error::other)
}

/// Writes the scan's JSON (with its manifest where `list`), as `render_json` makes it, to
/// `out`, each comparison's differences made one at a time as they are written: a merge of a
/// million replies holds its differences once, not again as JSON.
fn write_json(scan: &Scan, list: bool, manifest: Option<&Manifest>, out: &mut dyn Write) -> io::Result<()> {
    let mut json = render_json_of(scan, list, false);
    if list {
        with_manifest(&mut json, manifest);
    }
    // Every object's keys in natural order (rounds, and any name with a number).
    let Json::Object(top) = &json else { return put(out, &Natural(&json)) };
    out.write_all(b"{")?;
    for (n, (key, value)) in naturally(top).into_iter().enumerate() {
        out.write_all(if n > 0 { b"," } else { b"" })?;
        put(out, key)?;
        out.write_all(b":")?;
        let (true, Json::Object(comparisons)) = (key == "comparisons", value) else {
            put(out, &Natural(value))?;
            continue;
        };
        out.write_all(b"{")?;
        for (i, (name, fields)) in naturally(comparisons).into_iter().enumerate() {
            out.write_all(if i > 0 { b"," } else { b"" })?;
            put(out, name)?;
            out.write_all(b":")?;
            let (Json::Object(fields), Some(comparison)) = (fields, scan.comparison(name)) else {
                put(out, &Natural(fields))?;
                continue;
            };
            out.write_all(b"{")?;
            for (j, (field, v)) in naturally(fields).into_iter().enumerate() {
                out.write_all(if j > 0 { b"," } else { b"" })?;
                put(out, field)?;
                out.write_all(b":")?;
                if field != "replies" {
                    put(out, &Natural(v))?;
                    continue;
                }
                out.write_all(b"[")?;
                for (k, d) in comparison.differ.iter().enumerate() {
                    out.write_all(if k > 0 { b"," } else { b"" })?;
                    put(out, &Natural(&difference_json(scan, d)))?;
                }
                out.write_all(b"]")?;
            }
            out.write_all(b"}")?;
        }
        out.write_all(b"}")?;
    }
    out.write_all(b"}\n")
}

/// The entries of `map` with their keys in natural order.
fn naturally(map: &Map<String, Json>) -> Vec<(&String, &Json)> {
    let mut entries: Vec<(&String, &Json)> = map.iter().collect();
    entries.sort_by(|a, b| crate::natural::cmp(a.0, b.0));
    entries
}

/// [`render_json`], each comparison's `replies` left empty unless `differences`.
fn render_json_of(scan: &Scan, list: bool, differences: bool) -> Json {
    let config = &scan.config;
    let decided_counts = |counts: [usize; 4]| -> Map<String, Json> {
        DecidedBy::ALL.iter().zip(counts).map(|(d, n)| (d.name().to_owned(), json!(n))).collect()
    };
    let elapsed = scan.elapsed.unwrap_or_default();
    let mut out = Map::new();
    out.insert("replies".to_owned(), json!(scan.reply_count()));
    out.insert("bytes".to_owned(), json!(scan.bytes));
    out.insert("calls_without_reply".to_owned(), json!(scan.calls_without_reply_count()));
    out.insert("diagnostics".to_owned(), json!(scan.diagnostic_count()));
    out.insert("readers".to_owned(), readers_json(scan));
    // Sections with no rows are still there, empty.
    for top in [
        "by_agent",
        "by_round",
        "by_format",
        "truncation",
        "comparisons",
        "reader_threw",
        "reader_not_json",
        "reader_failed",
        "flags",
    ] {
        out.insert(top.to_owned(), Json::Object(Map::new()));
    }
    let mut ids = Map::new();
    for section in report::sections(scan) {
        for row in &section.rows {
            let key = row.json_key(config);
            let value = match (section.kind, row) {
                (Kind::Groups, _) => match row.group(scan) {
                    Some(g) => {
                        json!({"replies": row.count(scan), "bytes": g.bytes, "decided_by": decided_counts(g.decided_by)})
                    }
                    None => continue,
                },
                (Kind::Comparisons, _) => {
                    let (Some(pair), Row::Differs(p)) = (row.pair(config), row) else { continue };
                    let Some(c) = scan.comparisons.get(*p) else { continue };
                    let replies: Vec<Json> = if differences {
                        c.differ.iter().map(|d| difference_json(scan, d)).collect()
                    } else {
                        Vec::new()
                    };
                    let mut o = Map::new();
                    o.insert("from".to_owned(), json!(config.catalogue.name(pair.from)));
                    o.insert("to".to_owned(), json!(config.catalogue.name(pair.to)));
                    o.insert("differ".to_owned(), json!(c.differ.len()));
                    for class in Class::ALL {
                        o.insert(class.name().to_owned(), json!(c.count(class)));
                    }
                    o.insert("replies".to_owned(), Json::from(replies));
                    Json::Object(o)
                }
                (_, Row::Truncated(i)) => {
                    json!({"replies": row.count(scan), "entries": scan.truncation.get(*i).map_or(0, |t| t.entries)})
                }
                _ => json!(row.count(scan)),
            };
            place(&mut out, key.clone(), value);
            if list && section.kind != Kind::Comparisons {
                let listed: Vec<Json> = match row {
                    Row::Truncated(t) => scan
                        .truncation
                        .get(*t)
                        .map(|t| t.replies.iter().map(|&(i, n)| json!({"id": scan.id(i), "entries": n})).collect())
                        .unwrap_or_default(),
                    Row::Reader(..) | Row::Flag(_) => {
                        row.replies(scan).into_iter().map(|(i, why)| json!({"id": scan.id(i), "why": why})).collect()
                    }
                    _ => row.reply_numbers(scan).into_iter().map(|i| json!(scan.id(i))).collect(),
                };
                place(&mut ids, key, Json::from(listed));
            }
        }
    }
    out.insert("elapsed_seconds".to_owned(), json!(elapsed.as_secs_f64()));
    if let Some(w) = scan.whole {
        out.insert("wall_seconds".to_owned(), json!(w.wall.max(elapsed).as_secs_f64()));
        let readers = json!({
            "starting": w.readers_starting.as_secs_f64(),
            "answering": scan.readers_answering.as_secs_f64(),
        });
        out.insert("readers_seconds".to_owned(), readers);
    }
    out.insert("replies_per_second".to_owned(), json!(per_second(scan.reply_count() as f64, elapsed)));
    out.insert("bytes_per_second".to_owned(), json!(per_second(scan.bytes as f64, elapsed)));
    if list {
        ids.insert("replies".to_owned(), json!((0..scan.replies.len()).map(|i| scan.id(i)).collect::<Vec<_>>()));
        ids.insert(
            "references".to_owned(),
            json!(scan.replies.iter().map(|r| r.reference.as_deref()).collect::<Vec<_>>()),
        );
        ids.insert("calls_without_reply".to_owned(), json!(scan.calls_without_reply));
        // What `page-shrank` is raised from, so that a merge of rounds scanned apart finds
        // what one scan finds.
        let pages: Vec<Json> = scan
            .pages
            .calls
            .iter()
            .filter_map(|c| {
                let i = c.reply?;
                let mut o = Map::new();
                o.insert("id".to_owned(), json!(scan.id(i)));
                if let Some(r) = scan.replies.get(i).and_then(|r| r.reference.as_ref()) {
                    o.insert("reference".to_owned(), json!(&**r));
                }
                o.insert("round".to_owned(), json!(&*c.round));
                o.insert("document".to_owned(), json!(&*c.document));
                o.insert("page".to_owned(), json!(c.page));
                o.insert("agent".to_owned(), json!(c.agent.as_deref()));
                o.insert("ts".to_owned(), json!(c.ts.as_deref()));
                o.insert("html".to_owned(), json!(c.html));
                o.insert("ended".to_owned(), json!(c.ended));
                Some(Json::Object(o))
            })
            .collect();
        ids.insert("pages".to_owned(), Json::from(pages));
        ids.insert("diagnostics".to_owned(), json!(scan.diagnostics().map(|d| d.to_string()).collect::<Vec<_>>()));
        ids.insert("unread".to_owned(), scan.unread.iter().map(unread_json).collect());
        for top in
            ["by_agent", "by_round", "by_format", "truncation", "reader_threw", "reader_not_json", "reader_failed"]
        {
            ids.entry(top.to_owned()).or_insert_with(|| Json::Object(Map::new()));
        }
        out.insert("ids".to_owned(), Json::Object(ids));
    }
    Json::Object(out)
}

/// The readers of one's own the scan ran, by name: `{calls, problems}`, what it called
/// ([`report::calls_json`]), and each problem what it prints (`message`) and what went wrong,
/// by its kind (`fault`: `start`, `reply`, `stopped`) and its parts, as `scan --merge` reads
/// it back.
fn readers_json(scan: &Scan) -> Json {
    let catalogue = &scan.config.catalogue;
    let readers = scan.noted.iter().map(|n| {
        let problems: Vec<Json> = n
            .problems
            .iter()
            .map(|p| {
                let mut written = match serde_json::to_value(&p.fault) {
                    Ok(Json::Object(o)) => o,
                    _ => Map::new(),
                };
                written.insert("message".to_owned(), json!(p.to_string()));
                Json::Object(written)
            })
            .collect();
        (
            catalogue.name(n.reader).to_owned(),
            json!({"calls": report::calls_json(scan, n.reader), "problems": problems}),
        )
    });
    Json::Object(readers.collect())
}

/// An input's diagnostic whole, as `scan --merge` reads it back: what it prints (`message`),
/// the file (`source`), the `line` and byte `offset` where there are, and the `problem`
/// (`{kind, detail}`).
fn unread_json(d: &InputDiagnostic) -> Json {
    let InputDiagnostic::Loaded(d) = d;
    json!({
        "message": d.to_string(),
        "source": d.source.to_string_lossy(),
        "line": d.line,
        "offset": d.offset,
        "problem": d.problem,
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::analysis::{Facts, Flag};
    use crate::exact::trace::Verdict;
    use crate::readers::{Catalogue, ReaderId};
    use crate::scan::Scanner;

    /// Where the scan's readers and its `--json` keys are documented for users.
    const GUIDE: &str = include_str!("../../docs/GUIDE.md");

    /// The rows of the first table after the heading that holds `heading`, each as its cells.
    fn table_under(doc: &str, heading: &str) -> Vec<Vec<String>> {
        let mut lines = doc.lines().skip_while(|l| !(l.starts_with('#') && l.contains(heading)));
        assert!(lines.next().is_some(), "no heading holding {heading:?}");
        let rows: Vec<Vec<String>> = lines
            .skip_while(|l| !l.starts_with('|'))
            .take_while(|l| l.starts_with('|'))
            .map(|l| l.trim().trim_matches('|').split(" | ").map(|c| c.trim().to_owned()).collect())
            .collect();
        // The header and the line under it are not rows.
        rows.into_iter().skip(2).collect()
    }

    /// The names a cell gives in backticks (`` `a`, `b` `` → `a`, `b`).
    fn names(cell: &str) -> Vec<String> {
        cell.split('`').skip(1).step_by(2).map(str::to_owned).collect()
    }

    #[test]
    fn the_guide_names_every_reader_a_scan_compares_in_order() {
        let rows = table_under(GUIDE, "The readers it compares");
        let documented: Vec<String> = rows.iter().flat_map(|r| names(&r[0])).collect();
        let catalogue = Catalogue::builtin();
        // The seed, and what a scan compares it with unless told otherwise.
        let compared = std::iter::once(ReaderId::LAST_WINS).chain(catalogue.what_ifs());
        assert_eq!(documented, compared.map(|id| catalogue.name(id).to_owned()).collect::<Vec<_>>());
        assert_eq!(rows.last().map(|r| r[0].as_str()), Some("*NAME*"), "a reader of one's own, last");
    }

    #[test]
    fn the_guide_gives_every_key_of_scan_json_and_no_other() {
        let rows = table_under(GUIDE, "`bracewalk scan --json`");
        let documented: BTreeSet<String> = rows.iter().flat_map(|r| names(&r[0])).collect();
        let mut scanner = Scanner::new(Config::default());
        scanner.add_facts(Facts::of_text("{\"edits\": [{\"a\": 1}, {", true, scanner.config(), &[]));
        let mut scan = scanner.finish();
        // As a command times it.
        scan.whole = Some(Whole { wall: Duration::from_millis(20), readers_starting: Duration::ZERO });
        let mut json = render_json(&scan, true);
        // With its manifest, as `scan --json --list` prints it.
        let samples = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/sample-logs/round-4"));
        let plan = Plan::new(vec![samples], None, crate::scan::shard::Part::WHOLE).unwrap();
        let manifest = Manifest::of(&plan, Options::default(), 0, 0.0);
        with_manifest(&mut json, Some(&manifest));
        let Json::Object(top) = &json else { panic!("{json}") };
        let mut keys = BTreeSet::new();
        for (key, value) in top {
            // A section documented by its keys (`repair.rescued`) rather than as one.
            match value.as_object().filter(|_| !documented.contains(key)) {
                Some(inner) => keys.extend(inner.keys().map(|k| format!("{key}.{k}"))),
                None => {
                    keys.insert(key.clone());
                }
            }
        }
        assert_eq!(documented, keys);
        // The names the rows spell out are the ones the output uses.
        let row = |key: &str| rows.iter().find(|r| names(&r[0]).contains(&key.to_owned())).map(|r| r[1].clone());
        let spelled = |key: &str| -> BTreeSet<String> {
            let cell = row(key).unwrap_or_default();
            let inner = cell.split('{').nth(1).and_then(|c| c.split('}').next()).unwrap_or_default();
            inner.split(", ").map(str::to_owned).collect()
        };
        let names_of = |key: &str| -> BTreeSet<String> {
            top[key].as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default()
        };
        assert_eq!(spelled("decided_by"), names_of("decided_by"));
        assert_eq!(spelled("whole_reply"), names_of("whole_reply"));
        assert_eq!(spelled("whole_reply").len(), Verdict::ALL.len());
        let flags = row("flags").unwrap_or_default();
        assert!(Flag::ALL.iter().all(|f| names(&flags).contains(&f.name().to_owned())), "{flags}");
    }
}
