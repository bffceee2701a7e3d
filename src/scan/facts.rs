//! What a scan learns from one reply: a pure function of its text and metadata, run in
//! parallel, keeping no text and no value (a corpus of 100,000 replies must fit in the
//! memory of its counts).

use crate::read::trace::{DecidedBy, WholeReply};
use crate::read::value::Value;
use crate::read::walk::{self, WalkOptions};
use crate::runlog::{Format, Reply};

use super::Config;
use super::difference::account;
use super::reader::Reader;

/// One reply, as the scan counts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Facts {
    pub id: String,
    /// `PATH:LINE`, where it is not the id (a record with an id of its own): what
    /// `explain` takes.
    pub reference: Option<String>,
    pub bytes: usize,
    pub agent: Option<String>,
    pub round: Option<String>,
    pub format: Format,
    /// How the seed decided.
    pub decided_by: DecidedBy,
    /// The seed's whole-reply verdict, an index into [`WholeReply::NAMES`].
    pub whole_reply: usize,
    /// The seed reads a value.
    pub reads: bool,
    /// A walk with no repair reads a value.
    pub strict_reads: bool,
    /// A walk with no repair reads a value, and the seed reads another.
    pub repair_changed: bool,
    /// For each of the config's array fields (by index) whose `]` never came: the entries
    /// `readArrayPrefix` recovers.
    pub cut: Vec<(usize, usize)>,
    /// For each of the config's pairs (by index) whose readers disagree: the account.
    pub differences: Vec<(usize, String)>,
}

impl Facts {
    /// Reads `reply` with every reader `config` needs, and keeps what the scan counts.
    pub fn of(reply: &Reply, config: &Config) -> Facts {
        let reference = reply.reference();
        Facts {
            reference: (reference != reply.id).then_some(reference),
            id: reply.id.clone(),
            agent: reply.meta.agent.clone(),
            round: reply.meta.round.clone(),
            format: reply.meta.format,
            ..Facts::of_text(&reply.text, config)
        }
    }

    /// What the readers make of a text alone: [`Facts::of`] for a caller that names its
    /// replies and keeps their metadata itself (the inspector, whose metadata can be amended
    /// after the text has been read). The id is empty, there is no agent or round, and the
    /// format is [`Format::Text`]; the caller puts its own in before folding the facts in.
    pub fn of_text(text: &str, config: &Config) -> Facts {
        let seed = walk::run(text, &WalkOptions::SEED, false);
        // What the caller holds: JavaScript's `null` is nothing read.
        let seed_value = seed.value.filter(|v| !matches!(v, Value::Null));
        let mut answers = Answers {
            text,
            whole_text: seed.decided_by == DecidedBy::WholeText,
            known: vec![(Reader::LastWins, seed_value)],
        };

        answers.need(Reader::StrictOnly);
        let strict = answers.get(Reader::StrictOnly).is_some();
        let reads = answers.get(Reader::LastWins).is_some();
        let repair_changed = strict
            && !answers.is_seed(Reader::StrictOnly)
            && answers.get(Reader::StrictOnly) != answers.get(Reader::LastWins);

        let mut differences = Vec::new();
        for (i, pair) in config.pairs.iter().enumerate() {
            if answers.is_seed(pair.from) && answers.is_seed(pair.to) {
                continue;
            }
            answers.need(pair.from);
            answers.need(pair.to);
            if let Some(line) = account(answers.get(pair.from), answers.get(pair.to)) {
                differences.push((i, line));
            }
            // An answer is held only while a comparison still needs it: each may be as large as
            // the reply, and there are ten readers.
            let later = &config.pairs[i + 1..];
            answers.known.retain(|(r, _)| *r == Reader::LastWins || later.iter().any(|p| p.from == *r || p.to == *r));
        }
        let cut = config
            .fields
            .iter()
            .enumerate()
            .filter_map(|(i, field)| {
                let prefix = walk::read_array_prefix(text, field)?;
                (!prefix.closed).then_some((i, prefix.entries.len()))
            })
            .collect();

        Facts {
            reference: None,
            id: String::new(),
            bytes: text.len(),
            agent: None,
            round: None,
            format: Format::Text,
            decided_by: seed.decided_by,
            whole_reply: WholeReply::NAMES.iter().position(|&n| n == seed.whole_reply.name()).unwrap_or(0),
            reads,
            strict_reads: strict,
            repair_changed,
            cut,
            differences,
        }
    }
}

/// Each reader's answer for one reply, computed once, when first asked for.
struct Answers<'a> {
    text: &'a str,
    /// The trimmed reply parsed whole. Every walk, whatever its options, tries that before
    /// anything else (`walk::run`), so every walk's answer is then the seed's, and is not
    /// read again: on a corpus of well-behaved replies that is most of the work.
    whole_text: bool,
    /// The seed's answer first.
    known: Vec<(Reader, Option<Value>)>,
}

impl Answers<'_> {
    /// Whether `r`'s answer is the seed's without reading it.
    fn is_seed(&self, r: Reader) -> bool {
        r == Reader::LastWins || (self.whole_text && r.options().is_some())
    }

    fn need(&mut self, r: Reader) {
        if !self.is_seed(r) && !self.known.iter().any(|(k, _)| *k == r) {
            let value = r.read(self.text);
            self.known.push((r, value));
        }
    }

    /// The answer of `r`, `None` also when it was not [`Answers::need`]ed.
    fn get(&self, r: Reader) -> Option<&Value> {
        let r = if self.is_seed(r) { Reader::LastWins } else { r };
        self.known.iter().find(|(k, _)| *k == r).and_then(|(_, v)| v.as_ref())
    }
}
