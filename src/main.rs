//! The `bracewalk` command: argument parsing, then one `run()`.

// Reading a reply allocates a string per JSON string and a vector per container; mimalloc
// makes that about twice as fast as the system allocator (see the throughput bench).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

use bracewalk::cli::explain;
use bracewalk::cli::list;
use bracewalk::cli::record::{self, Input, Offsets};
use bracewalk::cli::scan as cli_scan;
use bracewalk::cli::style::Style;
use bracewalk::read::value::{JsString, Value};
use bracewalk::read::{first, js, served, walk};
use bracewalk::runlog::{self, Format, LoadOptions};
use bracewalk::tui;

#[derive(Parser)]
#[command(
    name = "bracewalk",
    version,
    about = "See how a lenient JSON extractor read an LLM reply",
    long_about = "See how a lenient JSON extractor read an LLM reply.\n\nWith no command, opens the inspector \
                  (a terminal UI) on the paths given, `.` by default, and watches them for new replies. Exit \
                  status: 0 when quit; 128 + the signal's number when a signal stops it (130 for SIGINT, 143 for \
                  SIGTERM, 129 for SIGHUP); a second SIGINT or SIGTERM ends it at once.",
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
    /// Read the paths once; do not watch them for new replies.
    #[arg(long)]
    no_watch: bool,
    /// Watch by polling every half second instead of by file-system events.
    #[arg(long, conflicts_with = "no_watch")]
    poll: bool,
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
    /// Exit status: 0 when a value was read, 1 when nothing reads, 2 on an error.
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
    /// first-readable, no-whole-reply, no-walk-closed-gate, no-self-contained-gate.
    ///
    /// Exit status: 0 when everything loaded, 1 when some inputs had diagnostics (the
    /// rest are counted), 2 when nothing could be read.
    Scan(ScanArgs),
    /// Print the replies marked for triage in the inspector (`m`), as a Markdown
    /// checklist for a bug report, or as JSONL.
    Marks(MarksArgs),
    /// Print a shell completion script (`bracewalk completions bash > ~/.local/share/bash-completion/completions/bracewalk`).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page, in roff (`bracewalk man > ~/.local/share/man/man1/bracewalk.1`).
    Man,
}

#[derive(clap::Args)]
struct ScanArgs {
    /// Files and directories (read recursively).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Print the whole result as JSON (keys documented in the README).
    #[arg(long, conflicts_with = "markdown")]
    json: bool,
    /// Print a Markdown report.
    #[arg(long)]
    markdown: bool,
    /// Print every reply id behind every number.
    #[arg(long)]
    list: bool,
    /// Only this comparison: `A,B`, or one reader's name for `NAME,last-wins`. Repeat for
    /// several.
    #[arg(long, value_name = "A,B", value_parser = bracewalk::scan::Pair::parse)]
    compare: Vec<bracewalk::scan::Pair>,
    /// An array field to look for cut-off entries in (`readArrayPrefix`). Repeat for
    /// several.
    #[arg(long = "field", value_name = "NAME", default_value = "edits")]
    fields: Vec<String>,
    #[command(flatten)]
    load: LoadArgs,
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

fn name_pointer(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((name, pointer)) if !name.is_empty() && (pointer.is_empty() || pointer.starts_with('/')) => {
            Ok((name.to_owned(), pointer.to_owned()))
        }
        _ => Err(format!("expected NAME=POINTER with a JSON pointer such as /meta/agent, got {s:?}")),
    }
}

#[derive(clap::Args)]
struct ExtractArgs {
    /// The reply: a file, `PATH:LINE` for a reply in a log, or `-` for standard input.
    #[arg(default_value = "-")]
    input: String,
    /// Which reader to run.
    #[arg(long, value_enum, default_value_t = Reader::LastWins)]
    reader: Reader,
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

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Reader {
    /// The last readable candidate, or the whole reply (seed 000 extractJson).
    LastWins,
    /// The first candidate that parses, bounded (seed 001 extractJsonObject).
    FirstWins,
    /// The complete JSON values the reply opens with (seed 002 leadingJsonValues).
    Leading,
    /// The leaves of JSON cut short (seed 002 jsonPrefixOf).
    Cut,
    /// The complete entries of a cut-off array field (seed 000 readArrayPrefix).
    ArrayPrefix,
}

#[derive(clap::Args)]
struct ExplainArgs {
    /// The reply: a file, `PATH:LINE` for a reply in a log, or `-` for standard input.
    #[arg(default_value = "-")]
    input: String,
    /// Print the whole trace as JSON.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("bracewalk: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        None => inspect(cli.inspect),
        Some(Command::Extract(args)) if args.jsonl => extract_jsonl(&args),
        Some(Command::Extract(args)) => extract(&args),
        Some(Command::Explain(args)) => explain(&args),
        Some(Command::List(args)) => list(&args),
        Some(Command::Scan(args)) => scan(&args),
        Some(Command::Marks(args)) => marks(&args),
        Some(Command::Completions { shell }) => {
            printed(bracewalk::cli::shell::completions(shell, Cli::command(), &mut std::io::stdout().lock()))
        }
        Some(Command::Man) => printed(bracewalk::cli::shell::man(Cli::command(), &mut std::io::stdout().lock())),
    }
}

/// A write to standard output, a reader that went away (`| head`) being no error.
fn printed(written: std::io::Result<()>) -> Result<ExitCode> {
    match written {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e).context("writing to standard output"),
        _ => Ok(ExitCode::SUCCESS),
    }
}

fn inspect(args: InspectArgs) -> Result<ExitCode> {
    let load = args.load.options()?;
    let paths = if args.paths.is_empty() { vec![PathBuf::from(".")] } else { args.paths };
    let watch = match (args.no_watch, args.poll) {
        (true, _) => tui::WatchMode::Off,
        (_, true) => tui::WatchMode::Poll,
        _ => tui::WatchMode::Native,
    };
    let ended = tui::run(paths, tui::Options { load, watch, marks: None }).context("the inspector")?;
    Ok(ExitCode::from(ended.status()))
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
    let mut out = std::io::stdout().lock();
    if out.write_all(printed.as_bytes()).and_then(|()| out.flush()).is_err() {
        return Ok(ExitCode::SUCCESS);
    }
    Ok(ExitCode::SUCCESS)
}

fn scan(args: &ScanArgs) -> Result<ExitCode> {
    let load = args.load.options()?;
    let mut config = bracewalk::scan::Config { fields: args.fields.clone(), ..Default::default() };
    if !args.compare.is_empty() {
        config.pairs = args.compare.clone();
    }
    let output = match (args.json, args.markdown) {
        (true, _) => cli_scan::Output::Json,
        (_, true) => cli_scan::Output::Markdown,
        _ => cli_scan::Output::Table,
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match cli_scan::run(&args.paths, &load, config, output, args.list, &mut out).and_then(|c| out.flush().map(|()| c)) {
        Ok(code) => Ok(ExitCode::from(code)),
        // The reader went away (e.g. `| head`): stop quietly, as grep does.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(e).context("writing the scan"),
    }
}

fn list(args: &ListArgs) -> Result<ExitCode> {
    let opts = args.load.options()?;
    let style = if args.json { Style::plain() } else { Style::for_stdout() };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match list::list(&args.paths, &opts, args.json, &style, &mut out).and_then(|t| out.flush().map(|()| t)) {
        Ok(tally) => Ok(ExitCode::from(tally.exit_code())),
        // The reader went away (e.g. `| head`): stop quietly, as grep does.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(e).context("writing the list"),
    }
}

/// Reads a reply from a file, a reply reference (`PATH:LINE`) or stdin. Invalid UTF-8 is
/// decoded lossily, and said so.
fn read_reply(input: &str) -> Result<String> {
    let bytes = if input == "-" {
        let mut buf = Vec::new();
        std::io::stdin().read_to_end(&mut buf).context("reading standard input")?;
        buf
    } else if !Path::new(input).is_file() || !is_plain_text(Path::new(input)) {
        let found = runlog::resolve(input, &LoadOptions::default())?;
        for d in &found.diagnostics {
            eprintln!("bracewalk: {d}");
        }
        return Ok(found.reply.text);
    } else {
        let path = Path::new(input);
        std::fs::read(path).with_context(|| format!("reading {}", path.display()))?
    };
    match String::from_utf8(bytes) {
        Ok(s) => Ok(s),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            eprintln!("bracewalk: {input}: invalid UTF-8 at byte {at}; read with U+FFFD in place of bad bytes");
            Ok(String::from_utf8_lossy(e.as_bytes()).into_owned())
        }
    }
}

/// A file that is surely one reply as it stands: nothing in it could be a record format.
fn is_plain_text(path: &Path) -> bool {
    let mut head = [0u8; 512];
    let n = std::fs::File::open(path).and_then(|mut f| f.read(&mut head)).unwrap_or(0);
    !head[..n].iter().find(|b| !b.is_ascii_whitespace()).is_some_and(|&b| b == b'{' || b == b'[')
}

fn print_value(out: &mut impl Write, value: &Value, pretty: bool) -> std::io::Result<()> {
    let json = if pretty { value.to_json_pretty(2) } else { value.to_json() };
    writeln!(out, "{json}")?;
    out.flush()
}

fn extract(args: &ExtractArgs) -> Result<ExitCode> {
    let text = read_reply(&args.input)?;
    let value: Option<Value> = match args.reader {
        Reader::LastWins => walk::extract_json(&text).filter(|v| !matches!(v, Value::Null)),
        Reader::FirstWins => match first::first_wins(&text).outcome {
            first::FirstOutcome::Found(s) => js::parse(&text[s.start..s.end]).ok(),
            _ => None,
        },
        Reader::Leading => {
            let l = served::leading_json_values(&text);
            (!l.values.is_empty()).then(|| {
                let rest = Value::String(JsString::from(l.rest));
                object([("values", Value::Array(l.values)), ("rest", rest)])
            })
        }
        Reader::Cut => served::json_prefix_of(&text).map(|p| {
            let leaves = Value::Array(p.leaves.into_iter().map(Value::String).collect());
            match p.words {
                Some(w) => object([("leaves", leaves), ("words", Value::String(w))]),
                None => object([("leaves", leaves)]),
            }
        }),
        Reader::ArrayPrefix => walk::read_array_prefix(&text, &args.field)
            .map(|p| object([("entries", Value::Array(p.entries)), ("closed", Value::Bool(p.closed))])),
    };
    match value {
        Some(v) => match print_value(&mut std::io::stdout().lock(), &v, args.pretty) {
            // The reader went away (e.g. `| head`): stop quietly, as grep does.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
            Err(e) => Err(e).context("writing the value"),
            Ok(()) => Ok(ExitCode::SUCCESS),
        },
        None => Ok(ExitCode::from(1)),
    }
}

fn object<const N: usize>(fields: [(&str, Value); N]) -> Value {
    Value::Object(fields.into_iter().map(|(k, v)| (JsString::from(k), v)).collect())
}

fn extract_jsonl(args: &ExtractArgs) -> Result<ExitCode> {
    let reader: Box<dyn BufRead> = if args.input == "-" {
        Box::new(BufReader::new(std::io::stdin()))
    } else {
        let path = PathBuf::from(&args.input);
        Box::new(BufReader::new(std::fs::File::open(&path).with_context(|| format!("opening {}", path.display()))?))
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut errors = 0usize;
    for (n, line) in reader.split(b'\n').enumerate() {
        let line = line.with_context(|| format!("reading {} line {}", args.input, n + 1))?;
        let line = String::from_utf8_lossy(&line);
        if js::trim(&line).is_empty() {
            continue;
        }
        let printed = match Input::parse(&line) {
            Ok(input) => record::render(&input, args.offsets, args.keys.as_deref()),
            Err(message) => {
                errors += 1;
                record::error_line(n + 1, &message)
            }
        };
        if writeln!(out, "{printed}").is_err() {
            // The reader went away (e.g. `| head`): stop quietly, as grep does.
            return Ok(ExitCode::SUCCESS);
        }
    }
    out.flush().ok();
    Ok(if errors == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn explain(args: &ExplainArgs) -> Result<ExitCode> {
    let text = read_reply(&args.input)?;
    let trace = walk::trace(&text);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = if args.json {
        // Written as it is made: the trace of a 200 MB reply is not held a second time as text.
        explain::write_json(&text, &trace, &mut out).and_then(|()| writeln!(out))
    } else {
        writeln!(out, "{}", explain::render_text(&text, &trace, &Style::for_stdout()))
    };
    match written.and_then(|()| out.flush()) {
        // The reader went away (e.g. `| head`): stop quietly, as grep does.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(e).context("writing the trace"),
        Ok(()) => Ok(ExitCode::SUCCESS),
    }
}
