//! Bench campaigns in the run-log shape, generated, so that what users point bracewalk at
//! (rounds side by side, a directory per document, each with its `log.jsonl`) can be made at
//! any size by anyone and measured.
//!
//! A campaign is `round-1/ … round-R/`, each a bench output directory: a `ledger.jsonl` with
//! a line per document and `<document id>/` per document holding `log.jsonl`, `meta.json` and
//! `status.json`, as the bench harness writes them (see `sample-logs/`). A document's log is a
//! run of page calls: each page is read (`page.md`, a reply from the typical mix), verified
//! (`feedback.md`, another reply) and marked `page_verify_ok` or `_failed`; a reply is a
//! `model_call_start`, its `model_call` and its `agent_call`, whose `output` is the reply, and
//! one page call in forty hits the output ceiling instead. The replies come from the typical
//! mix or, for a campaign of the hard mix ([`Mix::Hard`]), from the hard one. Every file is
//! written in one call, so a campaign written into a watched directory appears a whole file at
//! a time.
//!
//! Used by `examples/corpus.rs` (`corpus campaign DIR …`) and by tests that include it
//! beside `corpus.rs`.
#![allow(dead_code)]

use std::fmt::Write as _;
use std::io;
use std::path::Path;

use super::corpus::{Hard, Rng, Typical, q};

/// How big a campaign is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub rounds: usize,
    pub documents: usize,
    /// Replies in each document's log (page and verification calls, truncated ones included).
    pub replies: usize,
    /// Each reply's size is drawn evenly from this range of bytes.
    pub sizes: (usize, usize),
    pub seed: u64,
}

impl Default for Shape {
    /// The shape the campaign figures are measured on: 10 rounds of 20 documents of 150
    /// replies of 2–60 kB, some 1.1 GB.
    fn default() -> Shape {
        Shape { rounds: 10, documents: 20, replies: 150, sizes: (2_000, 60_000), seed: super::corpus::GOLDEN_SEED }
    }
}

/// What a campaign holds, as written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Written {
    pub files: usize,
    /// Replies: `agent_call` events with an output (a truncated call logs none).
    pub replies: usize,
    /// Calls that hit the output ceiling (each a `model_call` with its error, no reply).
    pub truncated: usize,
    pub bytes: u64,
    /// `{` in the replies logged (what makes a reply's candidates).
    pub braces: u64,
}

/// The document ids of a campaign: sixteen hex digits, as the bench names them.
/// A document keeps its id from round to round, as a bench runs the same list again.
pub fn document_id(seed: u64, document: usize) -> String {
    format!("{:016x}", Rng::for_name(seed, &format!("document-{document}")).next_u64())
}

/// Which replies a campaign's logs carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mix {
    /// The typical mix (`corpus::Typical`): mostly one envelope, a few candidates a reply.
    Typical,
    /// The hard mix (`corpus::Hard`): the seed's hard shapes, several of each, dozens of `{` a
    /// reply.
    Hard,
}

/// Where a run log's replies come from.
pub trait Replies {
    /// The next reply, of about `size` bytes.
    fn reply_of(&mut self, size: usize) -> String;
}

impl Replies for Typical {
    fn reply_of(&mut self, size: usize) -> String {
        Typical::reply_of(self, size)
    }
}

impl Replies for Hard {
    fn reply_of(&mut self, size: usize) -> String {
        Hard::reply_of(self, size)
    }
}

/// Writes the campaign `shape` of the typical mix under `dir` (made if missing).
pub fn write_campaign(dir: &Path, shape: &Shape) -> io::Result<Written> {
    write_campaign_of(dir, shape, Mix::Typical)
}

/// Writes the campaign `shape` of `mix` under `dir` (made if missing): the same layout,
/// ledgers, documents and calls whichever the mix, only the replies differ.
pub fn write_campaign_of(dir: &Path, shape: &Shape, mix: Mix) -> io::Result<Written> {
    match mix {
        Mix::Typical => write_with(dir, shape, &mut Typical::new(shape.seed)),
        Mix::Hard => write_with(dir, shape, &mut Hard::new(shape.seed)),
    }
}

fn write_with(dir: &Path, shape: &Shape, replies: &mut impl Replies) -> io::Result<Written> {
    let mut written = Written::default();
    for round in 1..=shape.rounds {
        let out = dir.join(format!("round-{round}"));
        std::fs::create_dir_all(&out)?;
        let mut ledger = String::new();
        for document in 0..shape.documents {
            let id = document_id(shape.seed, document);
            let doc = out.join(&id);
            std::fs::create_dir_all(&doc)?;
            let log = RunLog::new(shape.seed, round, document).write(shape.replies, shape.sizes, replies);
            written.replies += log.replies;
            written.truncated += log.truncated;
            written.braces += log.braces;
            written.bytes += log.text.len() as u64;
            std::fs::write(doc.join("log.jsonl"), &log.text)?;
            let session =
                format!("{:08x}", Rng::for_name(shape.seed, &format!("session-{round}-{document}")).next_u64() as u32);
            let outcome = if log.failed_pages == 0 { "ready_for_review" } else { "needs_attention" };
            std::fs::write(
                doc.join("meta.json"),
                format!(
                    "{{\n  \"id\": {},\n  \"session_id\": {},\n  \"pages\": {},\n  \"outcome\": {}\n}}\n",
                    q(&id),
                    q(&session),
                    log.pages,
                    q(outcome)
                ),
            )?;
            std::fs::write(
                doc.join("status.json"),
                format!(
                    "{{\n  \"session_id\": {},\n  \"status\": {},\n  \"phase\": \"done\"\n}}\n",
                    q(&session),
                    q(outcome)
                ),
            )?;
            let _ = writeln!(
                ledger,
                "{{\"id\":{},\"session_id\":{},\"outcome\":{},\"round_trip_ms\":{}}}",
                q(&id),
                q(&session),
                q(outcome),
                60_000 + 1000 * log.pages
            );
            written.files += 3;
        }
        std::fs::write(out.join("ledger.jsonl"), &ledger)?;
        written.files += 1;
    }
    Ok(written)
}

/// One document's run log, as its lines are made.
pub struct RunLog {
    rng: Rng,
    /// Milliseconds since the run started.
    clock: u64,
    round: usize,
}

/// A run log made.
pub struct Log {
    pub text: String,
    pub replies: usize,
    pub truncated: usize,
    pub pages: usize,
    pub failed_pages: usize,
    /// `{` in the replies logged.
    pub braces: u64,
}

const MODEL: &str = "us.anthropic.claude-sonnet-4-20250514-v1:0";

impl RunLog {
    pub fn new(seed: u64, round: usize, document: usize) -> RunLog {
        RunLog { rng: Rng::for_name(seed, &format!("run-{round}-{document}")), clock: 0, round }
    }

    fn ts(&mut self, step: u64) -> String {
        self.clock += step;
        let ms = self.clock;
        // Rounds a day apart, from 2025-05-01.
        let day = 1 + (self.round as u64 - 1) % 28 + ms / 86_400_000;
        let rest = ms % 86_400_000;
        format!(
            "2025-05-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
            rest / 3_600_000,
            rest / 60_000 % 60,
            rest / 1000 % 60,
            rest % 1000
        )
    }

    fn line(&mut self, out: &mut String, step: u64, body: &str) {
        let ts = self.ts(step);
        let _ = writeln!(out, "{{\"ts\":\"{ts}\",{body}}}");
    }

    /// One call of `agent`: its start, the model's answer, and the reply, or the error of a
    /// reply cut at the output ceiling. Returns whether a reply was logged.
    fn call(&mut self, out: &mut String, agent: &str, step: &str, image: &str, reply: &str, truncated: bool) -> bool {
        let call = format!(
            "\"agent\":\"{agent}\",\"step\":\"{step}\",\"capability\":\"vision\",\"model\":\"{MODEL}\",\"provider\":\"bedrock\",\"api\":\"invoke\""
        );
        self.line(out, 20, &format!("\"type\":\"model_call_start\",{call}"));
        let duration = 2_000 + self.rng.below(20_000) as u64;
        if truncated {
            self.line(
                out,
                duration,
                &format!(
                    "\"type\":\"model_call\",{call},\"duration_ms\":{duration},\"ok\":false,\"error\":\"bedrock: response hit the 16000-token output ceiling and was truncated ({} chars returned). Raise providers.bedrock.max_tokens.\"",
                    reply.len()
                ),
            );
            return false;
        }
        let input = 1_500 + self.rng.below(3_000);
        let output = reply.len() / 4 + 1;
        self.line(
            out,
            duration,
            &format!(
                "\"type\":\"model_call\",{call},\"duration_ms\":{duration},\"ok\":true,\"input_tokens\":{input},\"cache_read_input_tokens\":0,\"cache_creation_input_tokens\":0,\"output_tokens\":{output}"
            ),
        );
        self.line(
            out,
            3,
            &format!(
                "\"type\":\"agent_call\",\"phase\":\"extraction\",\"agent\":\"{agent}.md\",\"image\":{},\"capabilities\":[\"vision\"],\"output\":{}",
                q(image),
                q(reply)
            ),
        );
        true
    }

    /// The log of a run with `count` calls, their replies drawn from `replies` at sizes in
    /// `sizes`.
    pub fn write(mut self, count: usize, sizes: (usize, usize), replies: &mut impl Replies) -> Log {
        let mut out = String::new();
        let pages = count.div_ceil(2);
        self.line(&mut out, 0, &format!("\"type\":\"run_start\",\"pages\":{pages},\"mode\":\"full\""));
        self.line(&mut out, 40, "\"type\":\"phase\",\"phase\":\"extraction\"");
        let (mut logged, mut truncated, mut failed, mut braces) = (0, 0, 0, 0);
        let count_braces = |reply: &str| reply.bytes().filter(|&b| b == b'{').count() as u64;
        let mut calls = 0;
        for page in 1..=pages {
            let image = format!("document-p{page}.png");
            let cut = self.rng.chance(1, 40);
            let reply = replies.reply_of(self.rng.range(sizes.0, sizes.1));
            calls += 1;
            if self.call(&mut out, "page", "page", &image, &reply, cut) {
                logged += 1;
                braces += count_braces(&reply);
            } else {
                truncated += 1;
            }
            if calls == count {
                break;
            }
            let verdict = replies.reply_of(self.rng.range(sizes.0, sizes.1));
            calls += 1;
            if self.call(&mut out, "feedback", "verify", &image, &verdict, false) {
                logged += 1;
                braces += count_braces(&verdict);
            }
            if cut || self.rng.chance(1, 6) {
                failed += 1;
                self.line(
                    &mut out,
                    4,
                    &format!(
                        "\"type\":\"page_verify_failed\",\"image\":{},\"problems\":[{{\"issue\":\"A table is missing rows.\",\"severity\":\"major\"}}]",
                        q(&image)
                    ),
                );
            } else {
                self.line(&mut out, 4, &format!("\"type\":\"page_verify_ok\",\"image\":{}", q(&image)));
            }
        }
        self.line(&mut out, 500, &format!("\"type\":\"run_complete\",\"pages\":{pages}"));
        Log { text: out, replies: logged, truncated, pages, failed_pages: failed, braces }
    }
}

/// The document of [`write_shrinking`] whose page 17 shrinks, and the one whose page 5
/// vanishes, in its last round.
pub const SHRINKING: (&str, &str) = ("3f1c9a0e7b2d4c58", "9d42b7e0c5a13f68");

/// A page render's reply: an envelope whose `html` is `chars` characters.
fn page_reply(page: u32, chars: usize) -> String {
    let cell = "<td>3,891,986</td>";
    let mut html = String::from("<table>");
    while html.len() + cell.len() + "</table>".len() <= chars {
        html.push_str(cell);
    }
    html.push_str(&"x".repeat(chars - html.len() - "</table>".len()));
    html.push_str("</table>");
    format!("{{\"html\": {}, \"log\": \"Page {page}.\", \"suggested_agent\": null}}", q(&html))
}

/// A campaign of three rounds (`round-1`, `round-2`, `round-10`: named so that path order is
/// not round order) of two documents, where in the last round page 17 of the first
/// document shrinks from 8,334 characters of page to 3 (the seed's scratch template, `...`)
/// and page 5 of the second vanishes (its render reads nothing); every other page keeps its
/// size. Each page is rendered and verified; the first document's page 17 is corrected once
/// in every round, the correction its final answer.
pub fn write_shrinking(dir: &Path) -> io::Result<()> {
    let (first, second) = SHRINKING;
    for (n, round) in ["round-1", "round-2", "round-10"].into_iter().enumerate() {
        let last = n == 2;
        let out = dir.join(round);
        std::fs::create_dir_all(&out)?;
        let mut ledger = String::new();
        for (doc, pages) in [(first, 18u32), (second, 6)] {
            let mut log = String::new();
            let mut ms = 0u64;
            let mut line = |log: &mut String, body: String| {
                ms += 1_000;
                let _ = writeln!(
                    log,
                    "{{\"ts\":\"2025-05-{:02}T10:{:02}:{:02}.000Z\",{body}}}",
                    n + 1,
                    ms / 60_000,
                    ms / 1000 % 60
                );
            };
            line(&mut log, format!("\"type\":\"run_start\",\"pages\":{pages},\"mode\":\"full\""));
            for page in 1..=pages {
                let image = format!("{doc}-p{page}.png");
                let mut call = |log: &mut String, agent: &str, output: String| {
                    line(
                        log,
                        format!(
                            "\"type\":\"agent_call\",\"phase\":\"extraction\",\"agent\":\"{agent}.md\",\"image\":{},\"output\":{}",
                            q(&image),
                            q(&output)
                        ),
                    );
                };
                let size = 900 + 37 * page as usize;
                if doc == second && page == 5 && last {
                    call(&mut log, "page", "I could not read this page: the scan is blank.".to_owned());
                } else if doc == first && page == 17 {
                    call(&mut log, "page", page_reply(page, 4_000));
                    call(
                        &mut log,
                        "feedback",
                        "{\"faithful\": false, \"problems\": [], \"notes\": \"Rows missing.\"}".to_owned(),
                    );
                    let correction = if last {
                        "{\"html\": \"...\", \"log\": \"...\", \"suggested_agent\": null}".to_owned()
                    } else {
                        page_reply(page, 8_334)
                    };
                    call(&mut log, "page", correction);
                    continue;
                } else {
                    call(&mut log, "page", page_reply(page, size));
                }
                call(
                    &mut log,
                    "feedback",
                    "{\"faithful\": true, \"problems\": [], \"notes\": \"Matches.\"}".to_owned(),
                );
            }
            line(&mut log, format!("\"type\":\"run_complete\",\"pages\":{pages}"));
            let run = out.join(doc);
            std::fs::create_dir_all(&run)?;
            std::fs::write(run.join("log.jsonl"), log)?;
            std::fs::write(
                run.join("meta.json"),
                format!("{{\"id\": {}, \"pages\": {pages}, \"outcome\": \"ready_for_review\"}}\n", q(doc)),
            )?;
            let _ = writeln!(ledger, "{{\"id\":{},\"session_id\":\"s-{n}\",\"outcome\":\"ready_for_review\"}}", q(doc));
        }
        std::fs::write(out.join("ledger.jsonl"), ledger)?;
    }
    Ok(())
}
