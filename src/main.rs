//! The `bracewalk` command: argument parsing, then one `run()`.

// Reading a reply allocates a string per JSON string and a vector per container; mimalloc
// makes that about twice as fast as the system allocator (see the throughput bench).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::{CommandFactory, Parser, Subcommand};

use bracewalk::analysis::Pair;
use bracewalk::cli::readers::{self, ReaderArgs};
use bracewalk::cli::record::Offsets;
use bracewalk::cli::scan as cli_scan;
use bracewalk::cli::style::Style;
use bracewalk::cli::{self, accepted, extract, list};
use bracewalk::logs::{Format, LoadOptions};
use bracewalk::query::Query;
use bracewalk::readers::ReaderId;
use bracewalk::readers::supervisor;
use bracewalk::scan::shard::{Options, Part, Plan};
use bracewalk::tui;

#[derive(Parser)]
#[command(
    name = "bracewalk",
    version,
    about = "See how a lenient JSON extractor read an LLM reply",
    long_about = "See how a lenient JSON extractor read an LLM reply.\n\nWith no command, opens the inspector \
                  (a terminal UI) on the paths given, `.` by default, and watches them for new replies. Exit \
                  status: 0 when quit; 2 when a path given does not exist or cannot be read (it says which, and \
                  why, and does not open); 128 + the signal's number when a signal stops it (130 for SIGINT, 143 \
                  for SIGTERM, 129 for SIGHUP); a second SIGINT or SIGTERM ends it at once.",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    inspect: InspectArgs,
}

/// The inspector's arguments (no subcommand).
#[derive(clap::Args)]
struct InspectArgs {
    /// Run logs, bench campaigns, API responses, reply files, or directories of them
    /// (read recursively). Default: the current directory.
    paths: Vec<PathBuf>,
    #[command(flatten)]
    load: LoadArgs,
    #[command(flatten)]
    readers: ReaderFlags,
    /// Read the paths once; do not watch them for new replies.
    #[arg(long)]
    no_watch: bool,
    /// Watch by polling every half second instead of by file-system events.
    #[arg(long, conflicts_with = "no_watch")]
    poll: bool,
    #[command(flatten)]
    filter: FilterArg,
}

/// `--filter QUERY`: shared by the inspector, `list` and `scan`.
#[derive(clap::Args)]
struct FilterArg {
    /// Only the replies QUERY selects: terms, all required, such as `doc=3f1c page=17
    /// agent=page,feedback decided!=none size>10k` and bare words or /regexes/ over the
    /// reply's text (docs/GUIDE.md and the inspector's help give the fields). The inspector
    /// opens with it as its query line.
    #[arg(long, value_name = "QUERY")]
    filter: Option<String>,
}

impl FilterArg {
    fn query(&self) -> Result<Option<Query>> {
        self.filter.as_deref().map(|q| Query::parse(q).map_err(|e| anyhow::anyhow!("--filter {q:?}: {e}"))).transpose()
    }
}

#[derive(clap::Args)]
struct MarksArgs {
    /// Print JSONL (one mark a line) instead of a Markdown checklist.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Read one reply and print what a reader extracts from it, as JSON.
    ///
    /// The reader is the last `--reader` given: any reader `scan` compares (last-wins,
    /// first-wins, fence-first, strict-only, the other what-ifs), leading (seed 002's leading
    /// JSON values), cut (the leaves of JSON cut short), array-prefix (the complete entries of
    /// a cut-off array field), or a reader command (NAME=COMMAND); last-wins by default.
    ///
    /// Exit status: 0 when a value was read, 1 when nothing reads, 2 on an error (a reader
    /// command that fails included).
    Extract(ExtractArgs),
    /// Show how the last-wins reader decided: every candidate, its readings, the gates.
    Explain(ExplainArgs),
    /// List the replies in run logs, bench campaigns, API responses and reply files.
    ///
    /// Exit status: 0 when everything loaded, 1 when some inputs had diagnostics (the
    /// rest are listed), 2 when nothing could be read.
    List(ListArgs),
    /// Count how the readers read every reply in a corpus, and where they disagree.
    ///
    /// Prints how the last-wins reader decided, the whole-reply verdicts, what the repair
    /// rescues and changes, truncated array fields, and each reader or what-if that reads
    /// a reply differently from the seed, with a one-line account per reply. Readers:
    /// first-wins, strict-only, narrow-everywhere, narrow-fallback, resume-after-fail,
    /// first-readable, no-whole-reply, no-walk-closed-gate, no-self-contained-gate,
    /// fence-first; and any reader given as a command (--reader NAME=COMMAND).
    ///
    /// For CI: `--accept FILE` records the differences found as reviewed; `--accepted FILE`
    /// then prints only the differences that are new or read another way.
    ///
    /// Exit status: 0 when everything loaded, 1 when some inputs had diagnostics (the
    /// rest are counted; a reader command that failed is one), 2 when nothing could be read
    /// or on an error, 3 with --accepted when a difference is not accepted (new, or with
    /// another account), whatever the diagnostics.
    Scan(Box<ScanArgs>),
    /// Put a bench campaign's rounds side by side: every count of `scan`, one column per
    /// round in natural order, each with its change from the round before; then the pages
    /// whose final answer shrank under a fraction of its size (a half), or vanished, since
    /// the round before, each with both replies.
    ///
    /// Exit status: 0 when everything loaded, 1 when some inputs had diagnostics, 2 when
    /// nothing could be read or on an error; 4 with --fail-on-shrink when a page shrank or
    /// vanished in the latest round, whatever the diagnostics.
    Rounds(RoundsArgs),
    /// Print the replies marked for triage in the inspector (`m`), as a Markdown
    /// checklist for a bug report, or as JSONL.
    Marks(MarksArgs),
    /// Print a shell completion script for bash, zsh, fish, elvish or PowerShell (where each
    /// goes: the README's Install).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page, in roff: every command, the inspector's keys, the environment, the
    /// files and the exit status (`mkdir -p ~/.local/share/man/man1 && bracewalk man >
    /// ~/.local/share/man/man1/bracewalk.1`).
    Man,
}

#[derive(clap::Args)]
struct ScanArgs {
    /// Files and directories (read recursively); with --merge, the shards' JSON files.
    #[arg(required_unless_present = "files_from")]
    paths: Vec<PathBuf>,
    /// Merge shards: each PATH is what `scan --json --list` printed for a part of a corpus,
    /// and the merge prints (in any format, with or without --list) what one scan of all of it
    /// prints. Shards are ordered by their manifests, and refused (exit status 2, naming them)
    /// when one is given twice, two overlap, a part is missing, or they were made with other
    /// options, corpus roots or versions. Give the --compare, --field and --reader options the
    /// shards were made with.
    #[arg(long, conflicts_with_all = ["shard", "files_from", "root"])]
    merge: bool,
    /// Scan the I-th of N parts of the corpus: its files in bracewalk's walk order (names
    /// sorted, depth first), cut into N runs of about equal bytes, so that N tasks given the
    /// same arguments read every file once. Names files relative to the corpus root.
    #[arg(long, value_name = "I/N")]
    shard: Option<bracewalk::scan::shard::Part>,
    /// Read the paths to scan from FILE, one a line (`-`: the standard input), after any
    /// given; names files relative to the corpus root.
    #[arg(long, value_name = "FILE")]
    files_from: Option<PathBuf>,
    /// The corpus root: reply ids, references and diagnostics name files relative to it, so
    /// that shards scanned where the corpus is elsewhere name them alike. Default with --shard
    /// or --files-from: the inputs' common directory.
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// With --merge: a list of files (one a line, `-`: the standard input, named as the shards'
    /// manifests name them) every one of which some shard must have read.
    #[arg(long, value_name = "FILE", requires = "merge")]
    expect_files: Option<PathBuf>,
    /// With --merge: merge some parts of a cut, to merge again with the rest (a part missing
    /// is then no gap).
    #[arg(long, requires = "merge")]
    partial: bool,
    /// End when the process that started bracewalk ends (checked every tenth of a second):
    /// for a task runner that may kill its worker and retry the task elsewhere.
    #[arg(long)]
    die_with_parent: bool,
    /// Print the whole result as JSON (keys documented in docs/GUIDE.md).
    #[arg(long, conflicts_with = "markdown")]
    json: bool,
    /// Print a Markdown report.
    #[arg(long)]
    markdown: bool,
    /// Print every reply id behind every number.
    #[arg(long)]
    list: bool,
    /// Only this comparison: `A,B`, or one reader's name for `NAME,last-wins`. Repeat for
    /// several. A reader given with --reader is compared with last-wins unless one names it.
    #[arg(long, value_name = "A,B")]
    compare: Vec<String>,
    /// An array field to look for cut-off entries in (`readArrayPrefix`). Repeat for
    /// several.
    #[arg(long = "field", value_name = "NAME", default_value = "edits")]
    fields: Vec<String>,
    #[command(flatten)]
    load: LoadArgs,
    #[command(flatten)]
    readers: ReaderFlags,
    /// Write every difference found to FILE as accepted (JSONL: comparison, id, account), to
    /// commit beside your extractor once reviewed.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["accepted", "markdown", "list"])]
    accept: Option<PathBuf>,
    /// Print only the differences not accepted in FILE (new, or with another account than
    /// the one accepted); exit status 3 when there are any.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["markdown", "list"])]
    accepted: Option<PathBuf>,
    /// Count only the replies QUERY selects (the inspector's query line: `doc=3f1c
    /// decided=none`, a /regex/ over the text; see docs/GUIDE.md). With --merge: the filter the
    /// shards were scanned with.
    #[arg(long, value_name = "QUERY")]
    filter: Option<String>,
}

#[derive(clap::Args)]
struct RoundsArgs {
    /// Bench campaigns, rounds and run logs (directories read recursively).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Print JSON (keys documented in docs/GUIDE.md).
    #[arg(long, conflicts_with = "markdown")]
    json: bool,
    /// Print Markdown, for a CI job's summary.
    #[arg(long)]
    markdown: bool,
    /// A page whose final answer is under this part of its size in the round before is
    /// flagged `page-shrank`: a fraction (0.5) or a percentage (50%).
    #[arg(long, value_name = "FRACTION", default_value = "0.5")]
    shrink_below: bracewalk::scan::rounds::Fraction,
    /// Exit with status 4 when a page's final answer shrank or vanished in the latest round.
    #[arg(long)]
    fail_on_shrink: bool,
    #[command(flatten)]
    load: LoadArgs,
    #[command(flatten)]
    readers: ReaderFlags,
}

/// Readers of one's own: shared by the inspector, `scan`, `extract` and `explain`.
#[derive(clap::Args)]
struct ReaderFlags {
    /// A reader of your own: NAME=js:FILE[#EXPORT] (a JavaScript or TypeScript function),
    /// NAME=py:TARGET[:ATTR] (a Python function or Class.method in a .py file or module), or
    /// NAME=COMMAND (runs once under `sh -c`, reads a JSON line {"id", "text"} per reply and
    /// answers each with a line {"id", "value"}, in order). Options after `?`: unwrap=/POINTER,
    /// nothing=JSON, strings=value, throws=fail (joined by &). NAME is then a reader like the
    /// built-in ones. Its stderr goes to a log in the state directory. `extract` and `explain`
    /// also take a built-in reader's name. Repeat for several.
    #[arg(long = "reader", value_name = "NAME=SPEC")]
    reader: Vec<String>,
    /// Seconds a reader command that owes answers may go without taking input or giving an
    /// answer before it counts as hung.
    #[arg(long, value_name = "SECONDS", default_value_t = 120.0)]
    reader_timeout: f64,
}

impl ReaderFlags {
    fn args(&self) -> Result<ReaderArgs> {
        let timeout =
            Duration::try_from_secs_f64(self.reader_timeout).ok().filter(|t| !t.is_zero()).ok_or_else(|| {
                anyhow::anyhow!("--reader-timeout {}: give a number of seconds above 0", self.reader_timeout)
            })?;
        Ok(ReaderArgs { readers: self.reader.clone(), timeout })
    }
}

#[derive(clap::Args)]
struct ListArgs {
    /// Files and directories (read recursively).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Print JSONL: one object per reply, per call that left no reply, per diagnostic.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    load: LoadArgs,
    #[command(flatten)]
    filter: FilterArg,
}

/// How to read the inputs: shared by the inspector, `list` and `scan`.
#[derive(clap::Args)]
struct LoadArgs {
    /// Read every file as this format instead of detecting it.
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// For JSON records of no known shape: a JSON pointer to the reply text (`/text`).
    #[arg(long, value_name = "POINTER")]
    text_path: Option<String>,
    /// For such records: metadata to read, as NAME=POINTER (`agent=/meta/agent`). Names:
    /// id, agent, phase, page, image, round, document, iteration, model, provider,
    /// stop_reason, input_tokens, output_tokens, ts; any other name is kept as given.
    #[arg(long = "meta", value_name = "NAME=POINTER", value_parser = name_pointer)]
    meta: Vec<(String, String)>,
}

impl LoadArgs {
    fn options(&self) -> Result<LoadOptions> {
        if self.format == Some(Format::Json) && self.text_path.is_none() {
            anyhow::bail!("--format json needs --text-path POINTER");
        }
        if let Some(p) = self.text_path.as_deref().filter(|p| !p.is_empty() && !p.starts_with('/')) {
            anyhow::bail!("--text-path {p:?} is not a JSON pointer (they start with /)");
        }
        Ok(LoadOptions {
            format: self.format,
            text_path: self.text_path.clone(),
            meta: self.meta.clone(),
            ..LoadOptions::default()
        })
    }
}

/// A `--meta` argument that is not `NAME=POINTER`.
#[derive(Debug, thiserror::Error)]
#[error("expected NAME=POINTER with a JSON pointer such as /meta/agent, got {0:?}")]
struct NotNamePointer(String);

fn name_pointer(s: &str) -> Result<(String, String), NotNamePointer> {
    match s.split_once('=') {
        Some((name, pointer)) if !name.is_empty() && (pointer.is_empty() || pointer.starts_with('/')) => {
            Ok((name.to_owned(), pointer.to_owned()))
        }
        _ => Err(NotNamePointer(s.to_owned())),
    }
}

#[derive(clap::Args)]
struct ExtractArgs {
    /// The reply: a file, `PATH:LINE` for a reply in a log, or `-` for standard input (the
    /// default when it is not a terminal).
    input: Option<String>,
    #[command(flatten)]
    readers: ReaderFlags,
    /// The array field for `--reader array-prefix`.
    #[arg(long, default_value = "edits")]
    field: String,
    /// Indent the JSON.
    #[arg(long)]
    pretty: bool,
    /// Read JSONL records `{"id", "text", "fields"?}` and print, per record, what every
    /// reader returns, in the reference oracle's format.
    #[arg(long)]
    jsonl: bool,
    /// Offsets in `--jsonl` output: bytes, or UTF-16 code units as the oracle prints them.
    #[arg(long, value_enum, default_value_t = Offsets::Bytes)]
    offsets: Offsets,
    /// Only these keys of each `--jsonl` record (comma-separated).
    #[arg(long, value_delimiter = ',')]
    keys: Option<Vec<String>>,
}

#[derive(clap::Args)]
struct ExplainArgs {
    /// The reply: a file, `PATH:LINE` for a reply in a log, or `-` for standard input (the
    /// default when it is not a terminal).
    input: Option<String>,
    /// Print the whole trace as JSON.
    #[arg(long)]
    json: bool,
    /// What these readers returned, beside the seed's decision (`readers` in `--json`).
    #[command(flatten)]
    readers: ReaderFlags,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    supervisor::stop_on_panic();
    // A reader of one's own ends with bracewalk however it ends. The inspector stops on its
    // own signals, and returns here; every other command ends on them, its readers first.
    if cli.command.is_some()
        && let Err(e) = supervisor::end_on_signals()
    {
        eprintln!("bracewalk: readers of your own may outlive a signal: {e}");
    }
    let code = match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("bracewalk: {e:#}");
            ExitCode::from(2)
        }
    };
    supervisor::stop_all();
    code
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        None => inspect(cli.inspect),
        Some(Command::Extract(args)) => extract(&args),
        Some(Command::Explain(args)) => explain(&args),
        Some(Command::List(args)) => list(&args),
        Some(Command::Scan(args)) => scan(&args),
        Some(Command::Marks(args)) => marks(&args),
        Some(Command::Rounds(args)) => rounds(&args),
        Some(Command::Completions { shell }) => cli::to_stdout(|out| {
            cli::shell::completions(shell, Cli::command(), out).context("writing the completions")?;
            Ok(0)
        }),
        Some(Command::Man) => cli::to_stdout(|out| {
            cli::shell::man(Cli::command(), out).context("writing the man page")?;
            Ok(0)
        }),
    }
}

fn inspect(args: InspectArgs) -> Result<ExitCode> {
    let load = args.load.options()?;
    let paths = if args.paths.is_empty() { vec![PathBuf::from(".")] } else { args.paths };
    if let Some(code) = unreadable(&paths) {
        return Ok(code);
    }
    let config = bracewalk::analysis::Config::new(args.readers.args()?.catalogue(&paths, false)?);
    let watch = match (args.no_watch, args.poll) {
        (true, _) => tui::WatchMode::Off,
        (_, true) => tui::WatchMode::Poll,
        _ => tui::WatchMode::Native,
    };
    let query = args.filter.query()?.map(|q| q.source().to_owned());
    let ended = tui::run(paths, tui::Options { load, watch, marks: None, config, query }).context("the inspector")?;
    Ok(ExitCode::from(ended.status()))
}

/// A path given that cannot be read stops the command before it reads anything (a typo is
/// not an empty corpus): each one is named on stderr with why, and the exit status is 2.
fn unreadable(paths: &[PathBuf]) -> Option<ExitCode> {
    let bad = bracewalk::logs::unreadable(paths);
    for d in &bad {
        eprintln!("bracewalk: {}", bracewalk::visible::visible(&d.to_string(), false));
    }
    (!bad.is_empty()).then(|| ExitCode::from(2))
}

fn marks(args: &MarksArgs) -> Result<ExitCode> {
    let Some(path) = tui::marks::default_path() else {
        anyhow::bail!("no state directory: set BRACEWALK_STATE_DIR, XDG_STATE_HOME or HOME");
    };
    let (marks, bad) = tui::marks::load(&path).with_context(|| format!("reading {}", path.display()))?;
    if bad > 0 {
        eprintln!("bracewalk: {}: {bad} unreadable lines skipped", path.display());
    }
    let marks: Vec<_> = marks.into_values().collect();
    let printed = if args.json { tui::marks::to_jsonl(&marks) } else { tui::marks::to_markdown(&marks) };
    cli::to_stdout(|out| {
        out.write_all(printed.as_bytes()).context("writing the marks")?;
        Ok(0)
    })
}

fn scan(args: &ScanArgs) -> Result<ExitCode> {
    let started = std::time::Instant::now();
    if args.die_with_parent {
        cli::task::die_with_parent();
    }
    let load = args.load.options()?;
    let mut inputs = args.paths.clone();
    if let Some(list) = &args.files_from {
        inputs.extend(cli::task::paths_from(list)?);
    }
    // A task whose inputs are not there fails, and is run again where they are.
    if let Some(code) = unreadable(&inputs) {
        return Ok(code);
    }
    let readers = args.readers.args()?;
    // Readers of one's own are started (their runners load the extractor) in the catalogue.
    let starting = std::time::Instant::now();
    let mut config = bracewalk::analysis::Config::new(readers.catalogue(&inputs, false)?);
    let readers_starting = starting.elapsed();
    config.fields.clone_from(&args.fields);
    if !args.compare.is_empty() {
        let pairs = args
            .compare
            .iter()
            .map(|p| Pair::parse(&config.catalogue, p).map_err(|e| anyhow::anyhow!("--compare {p:?}: {e}")))
            .collect::<Result<_>>()?;
        // A reader given is run, whatever --compare names.
        config.pairs = readers.with_defined(&config.catalogue, pairs);
    }
    let output = match (args.json, args.markdown) {
        (true, _) => cli_scan::Output::Json,
        (_, true) => cli_scan::Output::Markdown,
        _ => cli_scan::Output::Table,
    };
    let only = FilterArg { filter: args.filter.clone() }.query()?;
    let options = Options::of(&config, &readers.readers, &load, only.as_ref().map(Query::source));
    let catalogue = config.catalogue.clone();
    if args.merge {
        let then = match (&args.accept, &args.accepted) {
            (Some(file), _) => cli::merge::Then::Accept(file.clone()),
            (None, Some(file)) => cli::merge::Then::Check { file: file.clone(), json: args.json },
            (None, None) => cli::merge::Then::Print { output, list: args.list },
        };
        let merge = cli::merge::Merge {
            shards: &args.paths,
            config,
            own: options,
            expect: args.expect_files.as_deref(),
            partial: args.partial,
            then,
        };
        return cli::to_stdout(|out| cli::merge::run(merge, out));
    }
    // Names relative to a root where the corpus is cut or listed, or a root is given.
    let relative =
        (args.root.is_some() || args.shard.is_some() || args.files_from.is_some()).then_some(args.root.as_deref());
    let plan = Plan::new(inputs, relative, args.shard.unwrap_or(Part::WHOLE))?;
    let done = cli::to_stdout(|out| match (&args.accept, &args.accepted) {
        (Some(file), _) => accepted::accept(&plan, &load, config, only.clone(), file, out),
        (None, Some(file)) => accepted::check(&plan, &load, (config, only.clone()), file, args.json, out),
        (None, None) => {
            let job = cli_scan::Job {
                plan: &plan,
                load: &load,
                config,
                only: only.clone(),
                began: started,
                readers_starting,
            };
            cli_scan::run(job, cli_scan::Printed { output, list: args.list, options }, out).context("writing the scan")
        }
    });
    readers::tell_logs(&catalogue);
    done
}

fn rounds(args: &RoundsArgs) -> Result<ExitCode> {
    let load = args.load.options()?;
    if let Some(code) = unreadable(&args.paths) {
        return Ok(code);
    }
    let readers = args.readers.args()?;
    let config = bracewalk::analysis::Config::new(readers.catalogue(&args.paths, false)?);
    let output = match (args.json, args.markdown) {
        (true, _) => cli_scan::Output::Json,
        (_, true) => cli_scan::Output::Markdown,
        _ => cli_scan::Output::Table,
    };
    let catalogue = config.catalogue.clone();
    let done = cli::to_stdout(|out| {
        cli::rounds::run(&args.paths, &load, config, args.shrink_below, output, args.fail_on_shrink, out)
            .context("writing the rounds")
    });
    readers::tell_logs(&catalogue);
    done
}

fn list(args: &ListArgs) -> Result<ExitCode> {
    let opts = args.load.options()?;
    if let Some(code) = unreadable(&args.paths) {
        return Ok(code);
    }
    let only = args.filter.query()?;
    let style = if args.json { Style::plain() } else { Style::for_stdout() };
    cli::to_stdout(|out| {
        let tally =
            list::list_only(&args.paths, &opts, only.as_ref(), args.json, &style, out).context("writing the list")?;
        Ok(tally.exit_code())
    })
}

/// The reply named, or `-`, standard input, when none is and it is not a terminal. On a
/// terminal a reply is not waited for unasked: with none named it is an error that says what
/// to give, and `-` says how to end what is typed.
fn reply_input(input: Option<&str>) -> Result<String> {
    use std::io::IsTerminal;
    let on_terminal = std::io::stdin().is_terminal();
    match input {
        None if on_terminal => anyhow::bail!(
            "no reply given: name a file or PATH:LINE, or pipe the reply in (`-` reads it from the terminal)"
        ),
        Some("-") if on_terminal => eprintln!("bracewalk: reading the reply from the terminal; end it with Ctrl-D"),
        _ => {}
    }
    Ok(input.unwrap_or("-").to_owned())
}

fn extract(args: &ExtractArgs) -> Result<ExitCode> {
    let input = reply_input(args.input.as_deref())?;
    if args.jsonl {
        cli::jsonl::widen_stdout_pipe();
        return cli::to_stdout(|out| extract::extract_jsonl(&input, args.offsets, args.keys.as_deref(), out));
    }
    let flags = args.readers.args()?;
    let mut catalogue = flags.catalogue(&readers::inspected(&input), true)?;
    catalogue.set_array_field(&args.field);
    let reader = flags.named(&catalogue).last().copied().unwrap_or(ReaderId::LAST_WINS);
    let how = extract::Extract { catalogue: &catalogue, reader: catalogue.name(reader), pretty: args.pretty };
    cli::to_stdout(|out| extract::extract(&input, &how, out))
}

fn explain(args: &ExplainArgs) -> Result<ExitCode> {
    let input = reply_input(args.input.as_deref())?;
    let flags = args.readers.args()?;
    let catalogue = flags.catalogue(&readers::inspected(&input), true)?;
    let named = flags.named(&catalogue);
    cli::to_stdout(|out| extract::explain(&input, args.json, (&catalogue, &named), out))
}
