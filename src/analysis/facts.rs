//! What a scan learns from one reply: a pure function of its text and metadata, run in
//! parallel, keeping no text and no value (a corpus of 100,000 replies must fit in the
//! memory of its counts).
//!
//! The facts come in two parts, so that a front end can show the first soon: [`Facts::early`]
//! reads the seed's decision, the repair, whether the reply was cut off, and the comparisons
//! of the config's early readers (the inspector's badges); [`Facts::complete`] makes the
//! other comparisons and looks for cut-off array fields. [`Facts::of`] does both at once,
//! sharing every answer.
//!
//! A command reader's answers come from outside ([`crate::readers::supervisor::Commands`]), per
//! reply, and are given to the facts' reading (`given`, empty where no reader runs as a
//! command): its comparisons are made then, as the others are. A throw and text that is not
//! JSON are nothing read, compared as nothing, and noted with what was thrown or returned
//! ([`Noted`]); a reply it gave no answer for is noted as "reader failed" under it, never as
//! nothing read, and its comparisons are not made.

use std::sync::Arc;

use crate::exact::trace::{DecidedBy, NoReading, Trace, Verdict, WholeReply};
use crate::exact::value::Value;
use crate::exact::walk;
use crate::logs::{Format, Name, Names, Reply, StopReason};
use crate::readers::{Answers, Given, Outcome, ReaderId};

use super::config::Config;
use super::difference::{Class, difference};
use super::flags::{self, Flag, Raised};

/// The early facts of a reply ([`Facts::start`]), and the answers read for them.
pub struct Partial<'a> {
    facts: Facts,
    answers: Answers<'a>,
    text: &'a str,
    config: &'a Config,
}

impl Partial<'_> {
    /// The early facts.
    pub fn facts(&self) -> &Facts {
        &self.facts
    }

    /// What a caller of the seed holds.
    pub fn seed(&mut self) -> Option<&Value> {
        self.answers.get(ReaderId::LAST_WINS)
    }

    /// The seed's answer as it stands in the reply, where it is JSON there (a strict reading,
    /// or the whole reply) and no comparison built its value: what a caller that measures
    /// the answer reads instead of building it.
    pub fn seed_json(&self) -> Option<&str> {
        if self.answers.built_already(ReaderId::LAST_WINS) {
            return None;
        }
        self.answers.json_span().and_then(|span| self.text.get(span))
    }

    /// The complete facts: [`Facts::of_text`], from what the early part read, with the
    /// command readers' answers for the text.
    pub fn finish(mut self, given: &[(ReaderId, Given)]) -> Facts {
        self.facts.rest(self.answers.given(given), self.text, self.config);
        self.facts
    }
}

/// What a command reader said of a reply it gave no value for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Noted {
    pub reader: ReaderId,
    /// [`Outcome::Threw`], [`Outcome::NotJson`] or [`Outcome::Failed`].
    pub outcome: Outcome,
    /// What it threw, the text it returned (their first `NOTE` characters), or why it
    /// failed.
    pub note: Arc<str>,
}

/// How many characters of what a reader threw or returned the facts keep: a line of a report.
pub const NOTE: usize = 160;

impl Noted {
    /// What `answers` hold of command reader `reader` that is not a value, if anything.
    fn of(answers: &Answers, reader: ReaderId) -> Option<Noted> {
        if let Some(why) = answers.failure(reader) {
            return Some(Noted { reader, outcome: Outcome::Failed, note: Arc::from(why) });
        }
        let kept = |text: &Arc<str>| match text.char_indices().nth(NOTE) {
            // Shared where it is short, as most are.
            None => text.clone(),
            Some(_) => Arc::from(crate::visible::clip(text, NOTE)),
        };
        match answers.given_by(reader)? {
            Given::Threw(message) => Some(Noted { reader, outcome: Outcome::Threw, note: kept(message) }),
            Given::NotJson(text) => Some(Noted { reader, outcome: Outcome::NotJson, note: kept(text) }),
            _ => None,
        }
    }
}

/// One reply, as the scan counts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Facts {
    pub id: Name,
    /// `PATH:LINE`, where it is not the id (a record with an id of its own): what
    /// `explain` takes.
    pub reference: Option<Name>,
    pub bytes: usize,
    pub agent: Option<Name>,
    pub round: Option<Name>,
    pub format: Format,
    /// How the seed decided.
    pub decided_by: DecidedBy,
    /// The seed's whole-reply verdict.
    pub verdict: Verdict,
    /// The seed reads a value.
    pub reads: bool,
    /// A walk with no repair reads a value.
    pub strict_reads: bool,
    /// A walk with no repair reads a value, and the seed reads another.
    pub repair_changed: bool,
    /// Cut off: its record says the output ceiling stopped it, or it opens an object that
    /// never closes.
    pub cut_off: bool,
    /// For each of the config's array fields (by index) whose `]` never came: the entries
    /// `readArrayPrefix` recovers. Read with the complete facts.
    pub cut: Vec<(usize, usize)>,
    /// For each of the config's pairs (by index, ascending) whose readers disagree: which
    /// way, and the account.
    ///
    /// The account is shared with the scan that counts it (the summary keeps one per pair
    /// and reply that differ: several a reply on a hard campaign).
    pub differences: Vec<(usize, Class, Name)>,
    /// The command readers (ascending) that gave no value for this reply and said why: it
    /// threw, returned text that is not JSON, or failed (its comparisons are then not made).
    pub noted: Vec<Noted>,
    /// The risk flags raised on it, in [`Flag::ALL`] order, each with what raised it.
    /// `readers-disagree` comes with the comparisons that raise it (an early one with the
    /// early facts, a reader command's with the complete).
    pub flags: Vec<Raised>,
    /// Every pair of the config has been compared ([`Facts::complete`]).
    pub complete: bool,
}

impl Facts {
    /// Reads `reply` with every reader `config` needs (the command readers' answers for it
    /// `given`), and keeps what the scan counts.
    pub fn of(reply: &Reply, config: &Config, given: &[(ReaderId, Given)]) -> Facts {
        Facts::of_text(&reply.text, reply.meta.stop == StopReason::Truncated, config, given).named(reply)
    }

    /// What the readers make of a text alone (`stopped` says its record reports it cut
    /// off): [`Facts::of`] for a caller that names its replies and keeps their metadata
    /// itself. The id is empty, there is no agent or round, and the format is
    /// [`Format::Text`]; [`Facts::named`] puts a reply's in.
    pub fn of_text(text: &str, stopped: bool, config: &Config, given: &[(ReaderId, Given)]) -> Facts {
        Facts::start(text, stopped, config).finish(given)
    }

    /// The first part ([`Facts::of_text`] short of the comparisons of readers that are not
    /// early), with the seed's answer for a caller that shows it.
    pub fn early(text: &str, stopped: bool, config: &Config) -> (Facts, Option<Value>) {
        let mut partial = Facts::start(text, stopped, config);
        let seed = partial.answers.take(ReaderId::LAST_WINS);
        (partial.facts, seed)
    }

    /// The early part read, the answers it read kept for the rest: what a caller that shows
    /// the early part before the rest, and still holds the text, finishes with
    /// [`Partial::finish`], reading no answer twice.
    pub fn start<'a>(text: &'a str, stopped: bool, config: &'a Config) -> Partial<'a> {
        let (mut facts, mut answers, seed) = Facts::first_part(text, stopped, config);
        facts.compare(&mut answers, config, |p| config.is_early(p));
        facts.flag(text, stopped, &seed, &mut answers);
        Partial { facts, answers, text, config }
    }

    /// Makes the comparisons [`Facts::early`] left, with the command readers' answers for the
    /// text. The seed is read again: its answer, as large as the reply, is not kept between
    /// the two.
    pub fn complete(&mut self, text: &str, config: &Config, given: &[(ReaderId, Given)]) {
        if self.complete {
            return;
        }
        let (answers, _) = Answers::with_seed(&config.catalogue, text);
        self.rest(answers.given(given), text, config);
    }

    /// What the early part leaves: the other comparisons, then the cut-off array fields.
    fn rest(&mut self, mut answers: Answers, text: &str, config: &Config) {
        self.compare(&mut answers, config, |p| !config.is_early(p));
        self.differences.sort_by_key(|(p, _, _)| *p);
        self.truncation(text, config, &mut answers);
        self.complete = true;
        // Kept for as long as the reply is listed (the inspector holds every reply's): at
        // their length, not at the room a vector's first push makes (four).
        self.differences.shrink_to_fit();
        self.flags.shrink_to_fit();
        self.noted.shrink_to_fit();
    }

    /// Each of the config's array fields whose `]` never came, with the entries
    /// `readArrayPrefix` recovers.
    fn truncation(&mut self, text: &str, config: &Config, answers: &mut Answers) {
        let json = answers.json_span();
        self.cut = config
            .fields
            .iter()
            .enumerate()
            .filter_map(|(i, field)| {
                let (entries, closed) = match &json {
                    // Where the seed read JSON as it stands, an array there is counted by its
                    // brackets: the answer of a copy edit holds its `edits` whole.
                    Some(json) => walk::count_array_prefix_within(text, field, json.clone())?,
                    None => answers.count_array_prefix(field)?,
                };
                (!closed).then_some((i, entries))
            })
            .collect();
    }

    /// These facts with `reply`'s name and metadata.
    pub fn named(self, reply: &Reply) -> Facts {
        let reference = reply.reference();
        Facts {
            reference: (reference != reply.id).then(|| reference.into()),
            id: reply.id.as_str().into(),
            agent: reply.meta.agent.clone(),
            round: reply.meta.round.clone(),
            format: reply.meta.format,
            ..self
        }
    }

    /// Its accounts as the copies `kept` holds already (kept from now on where new): a
    /// holder of many replies' facts keeps each account once. On a hard campaign two in
    /// three accounts are word for word another reply's (`edits: 10 items → 4 items`).
    pub fn share_accounts(&mut self, kept: &mut Names) {
        for (_, _, account) in &mut self.differences {
            *account = kept.name(account);
        }
        for raised in &mut self.flags {
            if let Raised::ReadersDisagree { account, .. } = raised {
                *account = kept.name(account);
            }
        }
    }

    /// Whether the flag is raised on this reply.
    pub fn has(&self, flag: Flag) -> bool {
        self.flags.iter().any(|r| r.flag() == flag)
    }

    /// Whether the config's pair `p` reads this reply differently, and how.
    pub fn difference(&self, p: usize) -> Option<&str> {
        self.differs(p).map(|(_, a)| a)
    }

    /// Whether the config's pair `p` reads this reply differently: which way, and how.
    pub fn differs(&self, p: usize) -> Option<(Class, &str)> {
        self.differences.iter().find(|(q, _, _)| *q == p).map(|(_, c, a)| (*c, &**a))
    }

    /// What command reader `reader` said of this reply, where it gave no value.
    pub fn noted(&self, reader: ReaderId) -> Option<&Noted> {
        self.noted.iter().find(|n| n.reader == reader)
    }

    /// Why command reader `reader` gave no answer for this reply, if it failed.
    pub fn failure(&self, reader: ReaderId) -> Option<&str> {
        self.noted(reader).filter(|n| n.outcome == Outcome::Failed).map(|n| &*n.note)
    }

    /// The seed's decision, the repair and whether it was cut off; no comparison and no
    /// flag yet. The seed's walk comes with them.
    fn first_part<'c>(text: &'c str, stopped: bool, config: &'c Config) -> (Facts, Answers<'c>, Trace) {
        let (mut answers, seed) = Answers::with_seed(&config.catalogue, text);
        let reads = answers.reads(ReaderId::LAST_WINS);
        let strict_reads = answers.reads(ReaderId::STRICT_ONLY);
        let repair_changed = strict_reads && !answers.known_same(ReaderId::STRICT_ONLY, ReaderId::LAST_WINS) && {
            let (strict, last) = answers.pair(ReaderId::STRICT_ONLY, ReaderId::LAST_WINS).unwrap_or_default();
            strict != last
        };
        let never_closes = matches!(seed.whole_reply, WholeReply::NoReading { why: NoReading::NeverCloses, .. });
        let facts = Facts {
            reference: None,
            id: Name::from(""),
            bytes: text.len(),
            agent: None,
            round: None,
            format: Format::Text,
            decided_by: seed.decided_by,
            verdict: seed.whole_reply.verdict(),
            reads,
            strict_reads,
            repair_changed,
            cut_off: stopped || never_closes,
            cut: Vec::new(),
            differences: Vec::new(),
            noted: Vec::new(),
            flags: Vec::new(),
            complete: (0..config.pairs.len()).all(|p| config.is_early(p)) && config.fields.is_empty(),
        };
        (facts, answers, seed)
    }

    /// The flags the seed's reading raises, after the early comparisons (which may have
    /// built its answer).
    fn flag(&mut self, text: &str, stopped: bool, seed: &Trace, answers: &mut Answers) {
        // The walk's candidates, where a flag could need them: read through what the seed's
        // walk learned of the text.
        let mut visits = flags::needs_visits(text, seed).then(|| answers.visits());
        // The seed's answer is built only where a flag needs to look at it, or where a
        // comparison built it already: looking at it then costs less than telling from the
        // text that no flag could need it, and says the same.
        let value = if answers.built_already(ReaderId::LAST_WINS) || flags::needs_value(text, seed, visits.is_some()) {
            answers.get(ReaderId::LAST_WINS)
        } else {
            None
        };
        let mut flags = flags::raised_reading(text, seed, self.reads, value, stopped, visits.as_mut());
        if let Some(visited) = visits {
            answers.keep_spans(visited);
        }
        // The comparisons' `readers-disagree` comes last in `Flag::ALL`.
        flags.append(&mut self.flags);
        self.flags = flags;
    }

    /// Compares the pairs `which` names, in the config's order.
    fn compare(&mut self, answers: &mut Answers, config: &Config, which: impl Fn(usize) -> bool) {
        let chosen: Vec<usize> = (0..config.pairs.len()).filter(|&p| which(p)).collect();
        for (k, &i) in chosen.iter().enumerate() {
            let pair = config.pairs[i];
            if answers.is_seed(pair.from) && answers.is_seed(pair.to) {
                continue;
            }
            for r in [pair.from, pair.to] {
                if !self.noted.iter().any(|n| n.reader == r)
                    && let Some(noted) = Noted::of(answers, r)
                {
                    self.noted.push(noted);
                    self.noted.sort_by_key(|n| n.reader);
                }
            }
            if answers.known_same(pair.from, pair.to) {
                continue;
            }
            let Some((from, to)) = answers.pair(pair.from, pair.to) else { continue };
            if let Some((class, line)) = difference(from, to) {
                let line: Name = line.into();
                if config.disagreement(i) && !self.has(Flag::ReadersDisagree) {
                    let reader = config.catalogue.shared_name(pair.from);
                    self.flags.push(Raised::ReadersDisagree { reader, account: line.clone() });
                }
                self.differences.push((i, class, line));
            }
            // An answer is held only while a comparison still needs it: each may be as large as
            // the reply, and there are ten readers.
            let later = &chosen[k + 1..];
            answers.keep_only(|r| later.iter().any(|&j| config.pairs[j].from == r || config.pairs[j].to == r));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn early_then_complete_is_all_at_once() {
        let config = Config::default();
        for t in [
            "Template:\n{ \"html\": \"...\" }\nAnswer:\n{\"html\": \"<p>real</p>\"}",
            r#"{"faithful": false, "notes": "I first read it as { "faithful": true }; no."}"#,
            r#"{"edits":[{"a":1},{"b":2},{"c":"#,
            " null ",
            "\u{feff}[1,2]",
        ] {
            let whole = Facts::of_text(t, false, &config, &[]);
            let (mut early, _) = Facts::early(t, false, &config);
            assert!(!early.complete, "{t}");
            let partial = Facts::start(t, false, &config);
            assert_eq!(partial.facts(), &early, "{t}");
            assert_eq!(partial.finish(&[]), whole, "{t}");
            early.complete(t, &config, &[]);
            assert_eq!(early, whole, "{t}");
        }
    }

    #[test]
    fn the_facts_carry_the_flags_and_the_disagreement_comes_with_its_comparison() {
        let config = Config::default();
        let t = "Template:\n{ \"html\": \"...\" }\nAnswer:\n{\"html\": \"<p>real</p>\"}";
        let f = Facts::of_text(t, false, &config, &[]);
        assert_eq!(f.flags.len(), 1);
        // First-wins binds the template: the disagreement, and no shape flag on the answer.
        assert_eq!(f.flags.iter().map(|r| r.flag()).collect::<Vec<_>>(), [Flag::ReadersDisagree]);
        let (early, _) = Facts::early(t, false, &config);
        assert!(early.has(Flag::ReadersDisagree), "the first-wins comparison is early");
        // The what-ifs that differ (first-readable, …) are not disagreements: one flag.
        let first_wins = config.pair_with_seed(ReaderId::FIRST_WINS).unwrap();
        assert!(f.differences.iter().any(|(p, _, _)| *p != first_wins), "{f:?}");
        let template = Facts::of_text(r#"{"html": "...", "log": "<log>"}"#, true, &config, &[]);
        assert_eq!(
            template.flags.iter().map(|r| r.flag()).collect::<Vec<_>>(),
            [Flag::Placeholder, Flag::ReadFromTruncated]
        );
    }

    /// On a reply every reader reads at the seed's place, with no string that could be a
    /// placeholder, no answer's value is built at all: every comparison is made by place.
    #[test]
    fn a_reply_read_alike_with_no_placeholder_builds_no_value() {
        let config = Config::default();
        for t in [
            r#"{"html": "<p>x</p>", "log": "ok"}"#,
            "Here it is:\n```json\n{\"a\": [1, \"two\"], \"b\": {\"c\": null}}\n```\n",
            r#"Prose {"a": "b"} more prose."#,
        ] {
            let partial = Facts::start(t, false, &config);
            assert_eq!(partial.answers.values_built(), 0, "{t} {:?}", partial.answers.built_ids());
            let facts = partial.finish(&[]);
            assert!(facts.reads && facts.differences.is_empty() && facts.flags.is_empty(), "{t}");
        }
        // A string that could be one: the seed's answer is built, and looked at.
        let partial = Facts::start(r#"Prose {"a": "..."} more prose."#, false, &config);
        assert_eq!(partial.answers.values_built(), 1);
        assert!(partial.facts().has(Flag::Placeholder));
    }

    #[test]
    fn a_bom_before_an_array_is_read_by_the_seed_alone() {
        let config = Config::default();
        let f = Facts::of_text("\u{feff}[1,2]", false, &config, &[]);
        assert!(f.reads);
        let first_wins = config.pairs.iter().position(|p| p.from == ReaderId::FIRST_WINS).unwrap();
        assert_eq!(f.difference(first_wins), Some("null → value [2 items]"));
        let null = Facts::of_text("null", false, &config, &[]);
        assert!(!null.reads && !null.strict_reads && null.differences.is_empty());
        assert_eq!(null.decided_by, DecidedBy::WholeText);
    }
}
