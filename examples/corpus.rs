//! Prints the generated corpora as JSONL for the seed oracle (`shared/oracle/run.mjs`,
//! `original.mjs`) and its benchmark (`bench.mjs`):
//!
//!     cargo run --example corpus -- golden [SEED]
//!     cargo run --example corpus -- fences
//!     cargo run --example corpus -- typical BYTES [SEED]
//!     cargo run --example corpus -- adversarial FAMILY SIZE     (FAMILY may be `all`)
//!     cargo run --example corpus -- hard BYTES [SEED]
//!     cargo run --release --example corpus -- campaign DIR [ROUNDS DOCUMENTS REPLIES [SEED [MIN MAX]]]
//!     cargo run --release --example corpus -- hard-campaign DIR [ROUNDS DOCUMENTS REPLIES [SEED [MIN MAX]]]
//!     cargo run --example corpus -- shrinking DIR
//!
//! `campaign` writes a bench campaign in the run-log shape under DIR (`round-N/<document>/
//! log.jsonl` with ledgers; by default 10 rounds of 20 documents of 150 replies, some 1.1 GB)
//! and prints what it wrote; MIN and MAX bound each reply's size in bytes (2,000 and 60,000).
//! Its replies are the typical mix, mostly one envelope and a few candidates each.
//! `hard-campaign` writes the same layout with the hard mix: replies that reason before they
//! answer, with scratch templates, drafts, fences, quoted decoys, unescaped quotes and cut
//! `edits` arrays, several of each (some 1 GB by default, 88 `{` a reply on average); `hard`
//! prints those replies as `typical` prints its own. `shrinking` writes three rounds of two
//! documents where, in the last, page 17 of one shrinks from 8,334 characters of page to 3 and
//! page 5 of the other vanishes (what `bracewalk rounds` and the `page-shrank` flag are tested
//! on).
//!
//! `scripts/regen-goldens` is the one caller that matters; see `tests/golden/README.md`.

#[path = "../tests/support/campaign.rs"]
mod campaign;
#[path = "../tests/support/corpus.rs"]
mod corpus;

use std::io::Write as _;
use std::process::ExitCode;

use corpus::Record;

const USAGE: &str = "usage: corpus golden [SEED] | fences | typical BYTES [SEED] | hard BYTES [SEED] | adversarial FAMILY|all SIZE | campaign DIR [ROUNDS DOCUMENTS REPLIES [SEED [MIN MAX]]] | hard-campaign DIR [ROUNDS DOCUMENTS REPLIES [SEED [MIN MAX]]] | shrinking DIR";

fn number(arg: Option<&String>, what: &str) -> Result<Option<u64>, String> {
    match arg {
        None => Ok(None),
        Some(s) => {
            let parsed = if let Some(hex) = s.strip_prefix("0x") { u64::from_str_radix(hex, 16) } else { s.parse() };
            parsed.map(Some).map_err(|e| format!("{what} {s:?}: {e}"))
        }
    }
}

fn records(args: &[String]) -> Result<Vec<Record>, String> {
    match args.first().map(String::as_str) {
        Some("golden") => {
            let seed = number(args.get(1), "seed")?.unwrap_or(corpus::GOLDEN_SEED);
            Ok(corpus::golden_corpus(seed))
        }
        Some("fences") => Ok(corpus::fence_corpus()),
        Some("typical") => {
            let bytes = number(args.get(1), "bytes")?.ok_or(USAGE)?;
            let seed = number(args.get(2), "seed")?.unwrap_or(corpus::GOLDEN_SEED);
            let texts = corpus::typical_mix(seed, usize::try_from(bytes).map_err(|e| e.to_string())?);
            Ok(texts
                .into_iter()
                .enumerate()
                .map(|(i, text)| Record { id: format!("typical-{i}"), text, fields: None })
                .collect())
        }
        Some("hard") => {
            let bytes = number(args.get(1), "bytes")?.ok_or(USAGE)?;
            let bytes = usize::try_from(bytes).map_err(|e| e.to_string())?;
            let seed = number(args.get(2), "seed")?.unwrap_or(corpus::GOLDEN_SEED);
            let (mut replies, mut rng) = (corpus::Hard::new(seed), corpus::Rng::for_name(seed, "hard-sizes"));
            let (mut out, mut total) = (Vec::new(), 0);
            while total < bytes {
                let text = replies.reply_of(rng.range(2_000, 60_000));
                total += text.len();
                out.push(Record { id: format!("hard-{}", out.len()), text, fields: None });
            }
            Ok(out)
        }
        Some("adversarial") => {
            let family = args.get(1).ok_or(USAGE)?;
            let size = number(args.get(2), "size")?.ok_or(USAGE)?;
            let size = usize::try_from(size).map_err(|e| e.to_string())?;
            let families: Vec<&str> = if family == "all" {
                corpus::ADVERSARIAL_FAMILIES.to_vec()
            } else if corpus::ADVERSARIAL_FAMILIES.contains(&family.as_str()) {
                vec![family.as_str()]
            } else {
                return Err(format!("unknown family {family:?}; one of: {}", corpus::ADVERSARIAL_FAMILIES.join(", ")));
            };
            Ok(families
                .into_iter()
                .map(|f| Record { id: format!("adv-{f}-{size}"), text: corpus::adversarial(f, size), fields: None })
                .collect())
        }
        _ => Err(USAGE.to_owned()),
    }
}

/// `campaign DIR [ROUNDS DOCUMENTS REPLIES [SEED [MIN MAX]]]` of `mix`: writes it, says what
/// it wrote.
fn campaign(args: &[String], mix: campaign::Mix) -> Result<String, String> {
    let dir = args.get(1).ok_or(USAGE)?;
    let mut shape = campaign::Shape::default();
    let count = |i: usize, what: &str, default: usize| -> Result<usize, String> {
        number(args.get(i), what)?.map_or(Ok(default), usize::try_from).map_err(|e| e.to_string())
    };
    shape.rounds = count(2, "rounds", shape.rounds)?;
    shape.documents = count(3, "documents", shape.documents)?;
    shape.replies = count(4, "replies", shape.replies)?;
    shape.seed = number(args.get(5), "seed")?.unwrap_or(shape.seed);
    shape.sizes = (count(6, "min", shape.sizes.0)?, count(7, "max", shape.sizes.1)?);
    let w = campaign::write_campaign_of(std::path::Path::new(dir), &shape, mix).map_err(|e| format!("{dir}: {e}"))?;
    Ok(format!(
        "{dir}: {} rounds x {} documents, {} replies ({} `{{` a reply on average) and {} calls cut at the output ceiling, {} bytes of run logs in {} files\n",
        shape.rounds,
        shape.documents,
        w.replies,
        w.braces / w.replies.max(1) as u64,
        w.truncated,
        w.bytes,
        w.files
    ))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let (Some("shrinking"), Some(dir)) = (args.first().map(String::as_str), args.get(1)) {
        return match campaign::write_shrinking(std::path::Path::new(dir)) {
            Ok(()) => {
                println!(
                    "{dir}: round-1, round-2 and round-10 of two documents; page 17 shrinks and page 5 vanishes in round-10"
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("corpus: {dir}: {e}");
                ExitCode::from(2)
            }
        };
    }
    let mix = match args.first().map(String::as_str) {
        Some("campaign") => Some(campaign::Mix::Typical),
        Some("hard-campaign") => Some(campaign::Mix::Hard),
        _ => None,
    };
    if let Some(mix) = mix {
        return match campaign(&args, mix) {
            Ok(said) => {
                print!("{said}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("corpus: {e}");
                ExitCode::from(2)
            }
        };
    }
    match records(&args) {
        Ok(rs) => {
            let mut out = std::io::stdout().lock();
            if let Err(e) = out.write_all(corpus::to_jsonl(&rs).as_bytes()).and_then(|()| out.flush()) {
                eprintln!("corpus: {e}");
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("corpus: {e}");
            ExitCode::from(2)
        }
    }
}
