//! Whether shards add up to one scan, by their manifests, and in which order they do.
//!
//! Shards are of cuts: the parts of `scan --shard I/N` of one corpus share its sum (files,
//! bytes, digest of names and sizes), and a scan made without `--shard` is the one part of a
//! cut of its own. The parts of each cut must be there, each once, no file may be read by two
//! shards, and all must be made alike (options, version, roots). The order is the walk's:
//! cuts by their first file's name, parts in turn.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;

use super::manifest::{CorpusSum, FORMAT, FileRead, Manifest, Options, Shard};
use super::plan::Corpus;

/// A shard given to a merge: what it was named on the command line, and its manifest.
#[derive(Debug, Clone)]
pub struct Given {
    pub name: String,
    pub manifest: Manifest,
}

/// Why a merge refuses its shards; each names them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error(
        "{shard}: a shard of manifest format {found}; this bracewalk merges format {FORMAT} (scan it again with this version)"
    )]
    OtherFormat { shard: String, found: u32 },
    #[error("{a} and {b} are the same shard ({place}) given twice")]
    Twice { a: String, b: String, place: String },
    #[error("{a} and {b} overlap: both read {what}")]
    Overlap { a: String, b: String, what: String },
    #[error(
        "a gap: {missing} missing (given: {given}, of {of} parts); give every part, or --partial for a merge of some"
    )]
    Gap { missing: String, of: usize, given: String },
    #[error("a gap: {count} of the files in {list} were read by no shard: {first}")]
    Unread { count: usize, list: String, first: String },
    #[error(
        "{a} and {b} were scanned with different options: {option} {va} and {vb} (shards of one corpus are scanned alike)"
    )]
    Options { a: String, b: String, option: &'static str, va: String, vb: String },
    #[error("{shard} was scanned with {option} {found}; give --merge the same (it has {given})")]
    OptionsOfMerge { shard: String, option: &'static str, found: String, given: String },
    #[error("{a} and {b} were scanned by different versions of bracewalk ({va} and {vb})")]
    Versions { a: String, b: String, va: String, vb: String },
    #[error(
        "{a} and {b} name files from different corpus roots: {ra} and {rb} (give every task the corpus at one path, or --root)"
    )]
    Roots { a: String, b: String, ra: String, rb: String },
    #[error(
        "the parts of a cut in {of} saw different corpora: {seen} (give every task the same corpus at one path, or --root; and no file may change between tasks)"
    )]
    Corpora { of: usize, seen: String },
    #[error("--partial merges the parts of one cut; these are of {cuts} cuts: {given}")]
    PartialOfSeveral { cuts: usize, given: String },
}

/// How a merge checks its shards.
#[derive(Debug, Clone, Default)]
pub struct Checks<'a> {
    /// The merge's own options: the shards' must be these (its load options and filter only
    /// where it was given them).
    pub own: Options,
    /// Files every one of which some shard must have read, as the manifests name them, and
    /// the list's name.
    pub expect: Option<(&'a str, Vec<String>)>,
    /// A merge of some of a cut's parts, to merge again with the rest.
    pub partial: bool,
}

/// The order in which `given` add up to one scan, or why they do not.
pub fn check(given: &[Given], checks: &Checks) -> Result<Vec<usize>, Refusal> {
    let Some(first) = given.first() else { return Ok(Vec::new()) };
    for g in given {
        if g.manifest.format != FORMAT {
            return Err(Refusal::OtherFormat { shard: g.name.clone(), found: g.manifest.format });
        }
    }
    for (i, a) in given.iter().enumerate() {
        if let Some(b) = given[i + 1..].iter().find(|b| b.manifest == a.manifest) {
            return Err(Refusal::Twice { a: a.name.clone(), b: b.name.clone(), place: a.manifest.place() });
        }
    }
    let (m, name) = (&first.manifest, &first.name);
    for g in &given[1..] {
        let n = &g.manifest;
        if n.bracewalk != m.bracewalk {
            return Err(Refusal::Versions {
                a: name.clone(),
                b: g.name.clone(),
                va: m.bracewalk.clone(),
                vb: n.bracewalk.clone(),
            });
        }
        if let Some((option, va, vb)) = m.options.difference(&n.options) {
            return Err(Refusal::Options { a: name.clone(), b: g.name.clone(), option, va, vb });
        }
        let as_given = |x: &Manifest| x.root.is_none();
        if as_given(m) != as_given(n) || (as_given(m) && m.root_path != n.root_path) {
            let root = |x: &Manifest| match &x.root {
                None => format!("the working directory {} (names as given)", x.root_path),
                Some(r) => format!("{r} (at {})", x.root_path),
            };
            return Err(Refusal::Roots { a: name.clone(), b: g.name.clone(), ra: root(m), rb: root(n) });
        }
    }
    // The merge's own options: what prints the result must be what made it.
    let mut own = checks.own.clone();
    let found = &m.options;
    if own.format.is_none() && own.text_path.is_none() && own.meta.is_empty() {
        (own.format, own.text_path, own.meta) = (found.format.clone(), found.text_path.clone(), found.meta.clone());
    }
    if own.filter.is_none() {
        own.filter.clone_from(&found.filter);
    }
    if let Some((option, found, given)) = found.difference(&own) {
        return Err(Refusal::OptionsOfMerge { shard: name.clone(), option, found, given });
    }

    // The cuts, each with its shards, in the order first given.
    let mut cuts: Vec<((usize, &CorpusSum), Vec<usize>)> = Vec::new();
    for (i, g) in given.iter().enumerate() {
        let key = (g.manifest.shard.of, &g.manifest.corpus);
        match cuts.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(i),
            None => cuts.push((key, vec![i])),
        }
    }
    let names = |ids: &[usize]| ids.iter().map(|&i| given[i].name.as_str()).collect::<Vec<_>>().join(", ");
    let mut incomplete = Vec::new();
    for ((of, _), members) in &cuts {
        let mut held: HashMap<usize, usize> = HashMap::new();
        for &i in members {
            for &p in &given[i].manifest.shard.parts {
                if let Some(&j) = held.get(&p) {
                    let (a, b) = (&given[j], &given[i]);
                    if a.manifest.shard == b.manifest.shard {
                        return Err(Refusal::Twice { a: a.name.clone(), b: b.name.clone(), place: b.manifest.place() });
                    }
                    return Err(Refusal::Overlap {
                        a: a.name.clone(),
                        b: b.name.clone(),
                        what: format!("part {p}/{of}"),
                    });
                }
                held.insert(p, i);
            }
        }
        let missing: Vec<usize> = (1..=*of).filter(|p| !held.contains_key(p)).collect();
        if !missing.is_empty() {
            incomplete.push((*of, missing, members.clone()));
        }
    }
    if checks.partial && cuts.len() > 1 {
        return Err(Refusal::PartialOfSeveral {
            cuts: cuts.len(),
            given: names(&(0..given.len()).collect::<Vec<_>>()),
        });
    }
    if !checks.partial && !incomplete.is_empty() {
        // Parts of one cut that do not add up, each of them whole but another corpus: the
        // tasks saw different files (a root elsewhere, files that changed).
        let of = incomplete[0].0;
        let alike: Vec<&((usize, &CorpusSum), Vec<usize>)> = cuts.iter().filter(|((o, _), _)| *o == of).collect();
        if of > 1 && alike.len() > 1 {
            let mut seen = String::new();
            for ((_, corpus), members) in &alike {
                let m = &given[members[0]].manifest;
                let root = m.root.as_ref().map_or_else(|| m.root_path.clone(), |r| format!("{r} (at {})", m.root_path));
                let _ = write!(
                    seen,
                    "{}{} read {} files, {} bytes under {root}",
                    if seen.is_empty() { "" } else { "; " },
                    names(members),
                    corpus.files,
                    corpus.bytes
                );
            }
            // Where the roots differ, the tasks saw the corpus from different places.
            let root = |i: usize| {
                let m = &given[i].manifest;
                m.root.as_ref().map_or_else(|| m.root_path.clone(), |r| format!("{r} (at {})", m.root_path))
            };
            let (a, b) = (alike[0].1[0], alike[1].1[0]);
            if given[a].manifest.root != given[b].manifest.root
                || given[a].manifest.corpus.files.min(given[b].manifest.corpus.files) == 0
            {
                return Err(Refusal::Roots {
                    a: given[a].name.clone(),
                    b: given[b].name.clone(),
                    ra: root(a),
                    rb: root(b),
                });
            }
            return Err(Refusal::Corpora { of, seen });
        }
        let (of, missing, members) = &incomplete[0];
        let missing: Vec<String> = missing.iter().map(|p| format!("{p}/{of}")).collect();
        let word = if missing.len() == 1 { "part" } else { "parts" };
        return Err(Refusal::Gap { missing: format!("{word} {}", missing.join(", ")), of: *of, given: names(members) });
    }

    // No file read twice.
    let mut readers: HashMap<&str, usize> = HashMap::new();
    for (i, g) in given.iter().enumerate() {
        for f in &g.manifest.files {
            if let Some(&j) = readers.get(f.path.as_str()) {
                let both = g.manifest.files.iter().filter(|x| readers.get(x.path.as_str()) == Some(&j)).count();
                let more = if both > 1 { format!(" and {} more files", both - 1) } else { String::new() };
                return Err(Refusal::Overlap {
                    a: given[j].name.clone(),
                    b: g.name.clone(),
                    what: format!("{}{more}", f.path),
                });
            }
            readers.insert(&f.path, i);
        }
    }
    if let Some((list, expected)) = &checks.expect {
        let unread: Vec<&String> = expected.iter().filter(|f| !readers.contains_key(f.as_str())).collect();
        if !unread.is_empty() {
            let first: Vec<&str> = unread.iter().take(5).map(|s| s.as_str()).collect();
            let more = if unread.len() > 5 { ", …" } else { "" };
            return Err(Refusal::Unread {
                count: unread.len(),
                list: (*list).to_owned(),
                first: format!("{}{more}", first.join(", ")),
            });
        }
    }

    // The walk's order: cuts by their first file's name, a component at a time; parts in turn.
    let first_file = |members: &[usize]| -> Option<Vec<&str>> {
        let mut parts: Vec<usize> = members.to_vec();
        parts.sort_by_key(|&i| given[i].manifest.shard.parts.first().copied());
        parts.iter().find_map(|&i| given[i].manifest.files.first()).map(|f| f.path.split('/').collect())
    };
    // Each cut: its first file's name by components, where it was first given, its shards.
    type Placed<'a> = (Option<Vec<&'a str>>, usize, Vec<usize>);
    let mut ordered: Vec<Placed> =
        cuts.iter().enumerate().map(|(n, (_, members))| (first_file(members), n, members.clone())).collect();
    // Cuts that read nothing last, as given.
    ordered.sort_by(|a, b| match (&a.0, &b.0) {
        (Some(x), Some(y)) => x.cmp(y).then(a.1.cmp(&b.1)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.1.cmp(&b.1),
    });
    let mut order = Vec::with_capacity(given.len());
    for (_, _, mut members) in ordered {
        members.sort_by_key(|&i| given[i].manifest.shard.parts.first().copied());
        order.extend(members);
    }
    Ok(order)
}

/// The manifest of the merge of `given`, in `order`: what it covers (a cut made whole is
/// part 1 of 1), exiting with `status`, started when the first of them did.
pub fn merged(given: &[Given], order: &[usize], status: u8) -> Option<Manifest> {
    let first = &given.get(*order.first()?)?.manifest;
    let ms: Vec<&Manifest> = order.iter().filter_map(|&i| given.get(i)).map(|g| &g.manifest).collect();
    let mut inputs: Vec<String> = Vec::new();
    for m in &ms {
        for i in &m.inputs {
            if !inputs.contains(i) {
                inputs.push(i.clone());
            }
        }
    }
    let cuts: BTreeSet<(usize, &str)> = ms.iter().map(|m| (m.shard.of, m.corpus.digest.as_str())).collect();
    let parts: BTreeSet<usize> = ms.iter().flat_map(|m| m.shard.parts.iter().copied()).collect();
    let (shard, corpus) = if cuts.len() == 1 {
        let whole = parts.len() == first.shard.of;
        let shard = if whole {
            Shard { parts: vec![1], of: 1 }
        } else {
            Shard { parts: parts.into_iter().collect(), of: first.shard.of }
        };
        (shard, first.corpus.clone())
    } else {
        // Cuts of several corpora, each whole: the corpus of all their files, as one scan of
        // all their inputs sums it.
        let files = ms.iter().flat_map(|m| m.files.iter().map(|f| (f.path.clone(), f.size)));
        let sum = Corpus::of(files);
        (Shard { parts: vec![1], of: 1 }, CorpusSum { files: sum.files, bytes: sum.bytes, digest: sum.digest })
    };
    let files: Vec<FileRead> = ms.iter().flat_map(|m| m.files.iter().cloned()).collect();
    Some(Manifest {
        format: FORMAT,
        bracewalk: first.bracewalk.clone(),
        root: first.root.clone(),
        root_path: first.root_path.clone(),
        inputs,
        shard,
        corpus,
        options: first.options.clone(),
        status,
        started: ms.iter().map(|m| m.started).fold(f64::INFINITY, f64::min),
        files,
    })
}
