//! What a shard says it covers: the `manifest` of `scan --json --list`. A merge reads the
//! manifests first, orders the shards by them and refuses a set that would not add up to one
//! scan ([`super::check`]).

use serde::{Deserialize, Serialize};

use crate::analysis::Config;
use crate::logs::LoadOptions;
use crate::readers::adapter::{JS_RUNNER, PY_RUNNER};
use crate::readers::own::Runs;

use super::plan::{Plan, Root};

/// The manifest's format: a merge refuses a shard of another.
pub const FORMAT: u32 = 1;

/// What a shard covers and how it was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: u32,
    /// The version of bracewalk that scanned it.
    pub bracewalk: String,
    /// The corpus root as given (`--root`, or the inputs' common directory), which every name
    /// is relative to; `null` where files are named as given on the command line.
    pub root: Option<String>,
    /// Where that root was on the machine that scanned (the working directory, for names as
    /// given).
    pub root_path: String,
    /// The inputs, as given.
    pub inputs: Vec<String>,
    pub shard: Shard,
    pub corpus: CorpusSum,
    pub options: Options,
    /// The scan's exit status: 2 when it read nothing it was given.
    pub status: u8,
    /// When the scan started, in seconds since the Unix epoch.
    pub started: f64,
    /// Every file the shard read, in walk order.
    pub files: Vec<FileRead>,
}

/// Which parts of a cut a shard holds: `[3]` of 8, or the parts a partial merge put
/// together; a whole corpus is part 1 of 1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub parts: Vec<usize>,
    pub of: usize,
}

/// The whole corpus a cut is of: the same for every part of it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CorpusSum {
    pub files: usize,
    pub bytes: u64,
    pub digest: String,
}

/// A file read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileRead {
    pub path: String,
    pub size: u64,
    pub modified: Option<f64>,
}

/// The options that change what a scan counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    /// The comparisons' keys, in order.
    pub compare: Vec<String>,
    pub fields: Vec<String>,
    pub readers: Vec<Reader>,
    pub format: Option<String>,
    pub text_path: Option<String>,
    pub meta: Vec<(String, String)>,
    pub filter: Option<String>,
}

/// A reader of one's own, as given and as it was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reader {
    pub name: String,
    pub definition: String,
    /// What runs: the command, or the adapter's arguments with the file or module it loads as
    /// found (the runner's own source left out).
    pub resolved: String,
}

impl Options {
    /// The options of a scan under `config`, `load` and `filter`; `readers` are the `--reader`
    /// arguments.
    pub fn of(config: &Config, readers: &[String], load: &LoadOptions, filter: Option<&str>) -> Options {
        let definitions: Vec<(&str, &str)> = readers.iter().filter_map(|r| r.split_once('=')).collect();
        let readers = config
            .catalogue
            .commands()
            .map(|(id, spec)| {
                let name = config.catalogue.name(id).to_owned();
                let definition = definitions
                    .iter()
                    .rev()
                    .find(|(n, _)| *n == name)
                    .map(|(_, d)| (*d).to_owned())
                    .unwrap_or_default();
                let resolved = match spec.runs() {
                    Runs::Shell(command) => command.to_owned(),
                    Runs::Adapter(a) => a
                        .args
                        .iter()
                        .filter(|a| *a != JS_RUNNER && *a != PY_RUNNER)
                        .map(|a| a.to_string_lossy().into_owned())
                        .collect::<Vec<_>>()
                        .join(" "),
                };
                Reader { name, definition, resolved }
            })
            .collect();
        Options {
            compare: config.pairs.iter().map(|p| config.key(p)).collect(),
            fields: config.fields.clone(),
            readers,
            format: load.format.map(|f| f.name().to_owned()),
            text_path: load.text_path.clone(),
            meta: load.meta.clone(),
            filter: filter.map(str::to_owned),
        }
    }

    /// Each option as the command line gives it, for a message: (`--field`, `edits, html`).
    pub fn shown(&self) -> Vec<(&'static str, String)> {
        let or_none = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".to_owned());
        vec![
            ("--compare", self.compare.join(", ")),
            ("--field", self.fields.join(", ")),
            (
                "--reader",
                self.readers
                    .iter()
                    .map(|r| format!("{}={} ({})", r.name, r.definition, r.resolved))
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
            ("--format", or_none(&self.format)),
            ("--text-path", or_none(&self.text_path)),
            ("--meta", self.meta.iter().map(|(n, p)| format!("{n}={p}")).collect::<Vec<_>>().join(", ")),
            ("--filter", or_none(&self.filter)),
        ]
    }

    /// The first option that differs between the two, as each has it.
    pub fn difference(&self, other: &Options) -> Option<(&'static str, String, String)> {
        self.shown().into_iter().zip(other.shown()).find(|(a, b)| a != b).map(|((name, a), (_, b))| (name, a, b))
    }
}

impl Manifest {
    /// The manifest of a scan that read `plan` under `options`, started at `started`, that
    /// exits with `status`.
    pub fn of(plan: &Plan, options: Options, status: u8, started: f64) -> Manifest {
        let (root, root_path) = match &plan.root {
            Root::AsGiven { cwd } => (None, cwd.display().to_string()),
            Root::Relative { given, at } => (Some(given.clone()), at.display().to_string()),
        };
        Manifest {
            format: FORMAT,
            bracewalk: env!("CARGO_PKG_VERSION").to_owned(),
            root,
            root_path,
            inputs: plan.inputs.iter().map(|p| p.display().to_string()).collect(),
            shard: Shard { parts: vec![plan.part.index], of: plan.part.of },
            corpus: CorpusSum {
                files: plan.corpus.files,
                bytes: plan.corpus.bytes,
                digest: plan.corpus.digest.clone(),
            },
            options,
            status,
            started,
            files: plan
                .files
                .iter()
                .map(|f| FileRead { path: f.path.clone(), size: f.size, modified: f.modified })
                .collect(),
        }
    }

    /// `part 3/8`, `parts 1, 2/8`, or `the whole`.
    pub fn place(&self) -> String {
        if self.shard.of == 1 {
            return "the whole".to_owned();
        }
        let parts: Vec<String> = self.shard.parts.iter().map(ToString::to_string).collect();
        let word = if parts.len() == 1 { "part" } else { "parts" };
        format!("{word} {}/{}", parts.join(", "), self.shard.of)
    }
}
