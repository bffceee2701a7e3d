//! What one scan reads: its inputs walked in bracewalk's own order ([`discover`]), cut to
//! one part of `n` balanced by bytes, each file named relative to the corpus root.
//!
//! The cut is of the walk itself, so `n` tasks given the same arguments cut the same list the
//! same way and cover every file once: the walk's files (and the problems it met, each with
//! the file after it) fall to the parts in order, a file to the part its middle byte falls
//! in, so each part is a run of the walk and the parts hold about as many bytes each.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::str::FromStr;
use std::time::UNIX_EPOCH;

use crate::logs::{Diagnostic, Found, Item, Problem, discover};

/// Which part of a cut a scan reads: the `index`-th (from 1) of `of`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Part {
    pub index: usize,
    pub of: usize,
}

impl Part {
    /// The whole: one part of one.
    pub const WHOLE: Part = Part { index: 1, of: 1 };
}

impl std::fmt::Display for Part {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.of)
    }
}

/// A part that is not `I/N` with 1 ≤ I ≤ N, as given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a part I/N with 1 ≤ I ≤ N (such as 3/8)")]
pub struct BadPart(pub String);

impl FromStr for Part {
    type Err = BadPart;

    /// `I/N`, with 1 ≤ I ≤ N.
    fn from_str(s: &str) -> Result<Part, BadPart> {
        let bad = || BadPart(s.to_owned());
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, of): (usize, usize) = (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if index == 0 || index > of {
            return Err(bad());
        }
        Ok(Part { index, of })
    }
}

/// Where a scan's names are relative to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Root {
    /// Files are named as the walk found them, from the inputs as given: relative to the
    /// working directory, which is kept.
    AsGiven { cwd: PathBuf },
    /// Files are named relative to the corpus root: as given (`--root`, or the inputs'
    /// common directory), and where it is here.
    Relative { given: String, at: PathBuf },
}

impl Root {
    /// The directory names are relative to, here.
    pub fn path(&self) -> &Path {
        match self {
            Root::AsGiven { cwd } => cwd,
            Root::Relative { at, .. } => at,
        }
    }
}

/// A file a scan reads, as its manifest names it.
#[derive(Debug, Clone, PartialEq)]
pub struct File {
    pub path: String,
    pub size: u64,
    /// Seconds since the Unix epoch, where the file system says.
    pub modified: Option<f64>,
}

/// What the whole walk (every part) holds: the same for every part of a cut of the same
/// corpus, however it is mounted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Corpus {
    pub files: usize,
    pub bytes: u64,
    /// xxh3 of every file's name and size, in walk order, in hex.
    pub digest: String,
}

impl Corpus {
    /// The sum of these files (name, size), in walk order.
    pub fn of(files: impl Iterator<Item = (String, u64)>) -> Corpus {
        let mut digest = xxhash_rust::xxh3::Xxh3::new();
        let (mut count, mut bytes) = (0usize, 0u64);
        for (name, size) in files {
            digest.update(name.as_bytes());
            digest.update(&[0]);
            digest.update(&size.to_le_bytes());
            count += 1;
            bytes += size;
        }
        Corpus { files: count, bytes, digest: format!("{:016x}", digest.digest()) }
    }
}

/// Why a scan's inputs cannot be planned.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error("the working directory: {0}")]
    Cwd(std::io::Error),
    #[error("--root {}: {problem}", .root.display())]
    BadRoot { root: PathBuf, problem: String },
    #[error("{} is not under the corpus root {} (--root)", .input.display(), .root.display())]
    NotUnderRoot { input: PathBuf, root: PathBuf },
}

/// What one scan reads and how it names it.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The inputs as given.
    pub inputs: Vec<PathBuf>,
    pub root: Root,
    pub part: Part,
    /// The part's files and the problems the walk met there, in walk order.
    pub found: Vec<Found>,
    /// The size of each of `found` (0 for a problem).
    pub sizes: Vec<u64>,
    /// The part's files, named.
    pub files: Vec<File>,
    pub corpus: Corpus,
    /// The problems the walk of the whole met (in every part).
    pub problems: usize,
    /// Each file's name, by the path the walk found it at, where names are relative.
    names: HashMap<PathBuf, String>,
    cwd: PathBuf,
}

impl Plan {
    /// Walks `inputs` and cuts the walk to `part`. With `root` (a directory, or `Some(None)`
    /// for the inputs' common directory) every name is relative to it; without, files are
    /// named as found.
    pub fn new(inputs: Vec<PathBuf>, root: Option<Option<&Path>>, part: Part) -> Result<Plan, PlanError> {
        let cwd = std::env::current_dir().map_err(PlanError::Cwd)?;
        let root = match root {
            None => Root::AsGiven { cwd: cwd.clone() },
            Some(given) => relative_root(&cwd, &inputs, given)?,
        };
        let mut walked = Vec::new();
        discover(&inputs, &mut |f| walked.push(f));
        let stats: Vec<Option<(u64, Option<f64>)>> = walked
            .iter()
            .map(|f| match f {
                Found::File(p) => Some(std::fs::metadata(p).map_or((0, None), |m| {
                    let modified = m.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok());
                    (m.len(), modified.map(|d| d.as_secs_f64()))
                })),
                Found::Problem(_) => None,
            })
            .collect();
        let name = |p: &Path| match &root {
            Root::AsGiven { .. } => p.display().to_string(),
            Root::Relative { at, .. } => relative_name(&cwd, at, p),
        };
        let listed = walked.iter().zip(&stats).filter_map(|(f, stat)| match (f, stat) {
            (Found::File(p), Some((size, _))) => Some((name(p), *size)),
            _ => None,
        });
        let corpus = Corpus::of(listed);
        let parts = cut(&stats, part.of);
        let names: Vec<Option<String>> =
            walked.iter().map(|f| if let Found::File(p) = f { Some(name(p)) } else { None }).collect();
        let mut plan = Plan {
            inputs,
            root,
            part,
            found: Vec::new(),
            sizes: Vec::new(),
            files: Vec::new(),
            corpus,
            problems: stats.iter().filter(|s| s.is_none()).count(),
            names: HashMap::new(),
            cwd: cwd.clone(),
        };
        let relative = matches!(plan.root, Root::Relative { .. });
        for (((f, stat), p), named) in walked.into_iter().zip(stats).zip(parts).zip(names) {
            if p + 1 != part.index {
                continue;
            }
            if let (Found::File(path), Some((size, modified)), Some(named)) = (&f, stat, named) {
                plan.files.push(File { path: named.clone(), size, modified });
                if relative {
                    plan.names.insert(path.clone(), named);
                }
            }
            plan.sizes.push(stat.map_or(0, |(size, _)| size));
            plan.found.push(f);
        }
        Ok(plan)
    }

    /// Whether names are relative to a root rather than as given.
    pub fn is_relative(&self) -> bool {
        matches!(self.root, Root::Relative { .. })
    }

    /// Renames what was loaded from a path found by the walk to its name relative to the root
    /// (nothing where names are as given): its source, and its id where the id is made of the
    /// path (`PATH`, `PATH#…`, `PATH:…`), not the record's own.
    pub fn rename(&self, item: &mut Item) {
        let Root::Relative { at, .. } = &self.root else { return };
        let named = |p: &Path| -> Option<String> {
            match self.names.get(p) {
                Some(n) => Some(n.clone()),
                None => Some(relative_name(&self.cwd, at, p)),
            }
        };
        let renamed = |id: &mut String, source: &mut PathBuf| {
            let Some(name) = named(source) else { return };
            let was = source.display().to_string();
            if let Some(rest) = id.strip_prefix(&was)
                && (rest.is_empty() || rest.starts_with(['#', ':']))
            {
                *id = format!("{name}{rest}");
            }
            *source = PathBuf::from(name);
        };
        match item {
            Item::Reply(r) => renamed(&mut r.id, &mut r.source),
            Item::Event(e) => renamed(&mut e.id, &mut e.source),
            Item::Diagnostic(d) => rename_diagnostic(d, &named),
        }
    }
}

fn rename_diagnostic(d: &mut Diagnostic, named: &dyn Fn(&Path) -> Option<String>) {
    if let Problem::SymlinkLoop(why) = &mut d.problem
        && let Some(rest) = why.strip_prefix("leads back to ")
        && let Some((dir, tail)) = rest.split_once(", already")
        && let Some(name) = named(Path::new(dir))
    {
        *why = format!("leads back to {name}, already{tail}");
    }
    if let Some(name) = named(&d.source) {
        d.source = PathBuf::from(name);
    }
}

/// Which part (from 0) each of the walk's entries falls to: a file to the part its middle
/// byte is in (by count where every file is empty), a problem to the part of the file after
/// it (or the last file's, or the first part).
fn cut(stats: &[Option<(u64, Option<f64>)>], of: usize) -> Vec<usize> {
    let total: u64 = stats.iter().flatten().map(|(size, _)| size).sum();
    let files = stats.iter().flatten().count();
    let of_u = of as u128;
    let mut parts: Vec<Option<usize>> = Vec::with_capacity(stats.len());
    let (mut before, mut index) = (0u128, 0u128);
    for stat in stats {
        parts.push(stat.map(|(size, _)| {
            let part = if total > 0 {
                (2 * before + u128::from(size)) * of_u / (2 * u128::from(total))
            } else {
                index * of_u / files as u128
            };
            before += u128::from(size);
            index += 1;
            usize::try_from(part).unwrap_or(of - 1).min(of - 1)
        }));
    }
    // A problem goes with the file after it.
    let mut next = parts.iter().rev().flatten().next().copied().unwrap_or(0);
    let mut out: Vec<usize> = parts
        .iter()
        .rev()
        .map(|p| {
            if let Some(p) = p {
                next = *p;
            }
            next
        })
        .collect();
    out.reverse();
    out
}

/// The root a relative scan names files from: `given`, or the inputs' common directory.
fn relative_root(cwd: &Path, inputs: &[PathBuf], given: Option<&Path>) -> Result<Root, PlanError> {
    let (shown, at) = match given {
        Some(root) => {
            let at = lexical(&cwd.join(root));
            if !at.is_dir() {
                return Err(PlanError::BadRoot { root: root.to_path_buf(), problem: "not a directory".to_owned() });
            }
            (root.display().to_string(), at)
        }
        None => {
            let mut common: Option<PathBuf> = None;
            let mut shown: Option<PathBuf> = None;
            for input in inputs {
                let abs = lexical(&cwd.join(input));
                let (dir, dir_shown) = if abs.is_dir() {
                    (abs, input.clone())
                } else {
                    let parent = |p: &Path| p.parent().map(Path::to_path_buf).unwrap_or_default();
                    (parent(&abs), parent(input))
                };
                common = Some(match common {
                    None => {
                        shown = Some(dir_shown);
                        dir
                    }
                    Some(c) => {
                        let shared: PathBuf =
                            c.components().zip(dir.components()).take_while(|(a, b)| a == b).map(|(a, _)| a).collect();
                        if shared != c {
                            shown = None;
                        }
                        shared
                    }
                });
            }
            let at = common.unwrap_or_else(|| cwd.to_path_buf());
            // As given where one input's directory is the root; else the path itself.
            let shown = shown.filter(|s| lexical(&cwd.join(s)) == at).map_or_else(
                || at.display().to_string(),
                |s| {
                    if s.as_os_str().is_empty() { ".".to_owned() } else { s.display().to_string() }
                },
            );
            (shown, at)
        }
    };
    for input in inputs {
        if !lexical(&cwd.join(input)).starts_with(&at) {
            return Err(PlanError::NotUnderRoot { input: input.clone(), root: PathBuf::from(&shown) });
        }
    }
    Ok(Root::Relative { given: shown, at })
}

/// `path`'s name relative to `root` (both made absolute from `cwd`, without following links):
/// `round-1/x/log.jsonl`, `.` for the root itself; the path as given where it is not under it.
fn relative_name(cwd: &Path, root: &Path, path: &Path) -> String {
    match lexical(&cwd.join(path)).strip_prefix(root) {
        Ok(rest) if rest.as_os_str().is_empty() => ".".to_owned(),
        Ok(rest) => rest.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}

/// `path` with `.` and `..` taken out by its text alone (links are not followed: a path is
/// named as it was reached).
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(c);
                }
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_read_as_i_of_n() {
        assert_eq!("3/8".parse::<Part>(), Ok(Part { index: 3, of: 8 }));
        assert_eq!("1/1".parse::<Part>(), Ok(Part::WHOLE));
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", "-1/2"] {
            assert!(bad.parse::<Part>().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_cut_is_runs_of_the_walk_balanced_by_bytes() {
        let sizes = [100, 1, 1, 1, 300, 5, 0, 90, 2];
        let stats: Vec<_> = sizes.iter().map(|&s| Some((s, None))).collect();
        for of in [1, 2, 3, 7, 64] {
            let parts = cut(&stats, of);
            assert!(parts.windows(2).all(|w| w[0] <= w[1]), "{of}: {parts:?}");
            assert!(parts.iter().all(|&p| p < of));
        }
        assert_eq!(cut(&stats, 2), [0, 0, 0, 0, 1, 1, 1, 1, 1]);
        // Problems go with the file after them, or the last file's part at the end.
        let with_problems = [None, Some((10, None)), None, Some((10, None)), None];
        assert_eq!(cut(&with_problems, 2), [0, 0, 1, 1, 1]);
        // Empty files are cut by count.
        assert_eq!(cut(&[Some((0, None)); 4], 2), [0, 0, 1, 1]);
        assert_eq!(cut(&[None, None], 3), [0, 0]);
    }

    #[test]
    fn names_are_relative_to_the_root_by_their_text() {
        let cwd = Path::new("/work/here");
        assert_eq!(relative_name(cwd, Path::new("/work/here/corpus"), Path::new("corpus/a/b.jsonl")), "a/b.jsonl");
        assert_eq!(relative_name(cwd, Path::new("/work/here/corpus"), Path::new("./corpus/../corpus/a")), "a");
        assert_eq!(relative_name(cwd, Path::new("/work/here/corpus"), Path::new("corpus")), ".");
        assert_eq!(relative_name(cwd, Path::new("/work/here/corpus"), Path::new("/elsewhere/x")), "/elsewhere/x");
    }
}
