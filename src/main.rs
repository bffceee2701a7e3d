//! The `bracewalk` command: argument parsing, then one `run()`.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand, ValueEnum};

use bracewalk::cli::explain;
use bracewalk::cli::record::{self, Input, Offsets};
use bracewalk::cli::style::Style;
use bracewalk::read::value::{JsString, Value};
use bracewalk::read::{first, js, served, walk};

#[derive(Parser)]
#[command(name = "bracewalk", version, about = "See how a lenient JSON extractor read an LLM reply", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Read one reply and print what a reader extracts from it, as JSON.
    ///
    /// Exit status: 0 when a value was read, 1 when nothing reads, 2 on an error.
    Extract(ExtractArgs),
    /// Show how the last-wins reader decided: every candidate, its readings, the gates.
    Explain(ExplainArgs),
}

#[derive(clap::Args)]
struct ExtractArgs {
    /// The reply: a file, or `-` for standard input.
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
    /// The reply: a file, or `-` for standard input.
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
        Command::Extract(args) if args.jsonl => extract_jsonl(&args),
        Command::Extract(args) => extract(&args),
        Command::Explain(args) => explain(&args),
    }
}

/// Reads a reply from a file or stdin. Invalid UTF-8 is decoded lossily, and said so.
fn read_reply(input: &str) -> Result<String> {
    let bytes = if input == "-" {
        let mut buf = Vec::new();
        std::io::stdin().read_to_end(&mut buf).context("reading standard input")?;
        buf
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

fn print_value(out: &mut impl Write, value: &Value, pretty: bool) -> Result<()> {
    let json = if pretty { value.to_json_pretty(2) } else { value.to_json() };
    writeln!(out, "{json}")?;
    Ok(())
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
        Some(v) => {
            print_value(&mut std::io::stdout().lock(), &v, args.pretty)?;
            Ok(ExitCode::SUCCESS)
        }
        None => Ok(ExitCode::from(1)),
    }
}

fn object<const N: usize>(fields: [(&str, Value); N]) -> Value {
    let mut text = String::from("{");
    // Built through the parser so the object is ordered as JavaScript orders it.
    for (i, (k, v)) in fields.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&format!("\"{k}\":{}", v.to_json()));
    }
    text.push('}');
    js::parse(&text).unwrap_or(Value::Null)
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
    let printed = if args.json {
        explain::render_json(&text, &trace)
    } else {
        explain::render_text(&text, &trace, &Style::for_stdout())
    };
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{printed}").is_err() {
        return Ok(ExitCode::SUCCESS);
    }
    Ok(ExitCode::SUCCESS)
}
