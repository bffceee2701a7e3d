//! What one record gives, whatever its format: a reply, a call that left no reply, context,
//! a problem, or several of these. Every format turns its records into a [`Record`]; the
//! loader turns records into the items it pushes.

use crate::logs::bytes::skim;
use crate::logs::model::diagnostic::Problem;
use crate::logs::model::reply::{EventKind, Format, Meta, StopReason};
use crate::logs::model::written::Measured;
use crate::visible::clip;

/// What one record gave.
#[derive(Debug)]
pub(crate) enum Record {
    Reply {
        id: Option<String>,
        text: String,
        meta: Meta,
    },
    Event {
        id: Option<String>,
        kind: EventKind,
        message: String,
        meta: Meta,
    },
    /// Context only (a ledger line, a run's meta.json): no reply, nothing wrong.
    Context,
    Problem(Problem),
    /// A record that holds several calls (an OTLP export, an eval log): each in turn.
    Many(Vec<Record>),
    /// A reply of a listing, its text measured, not held (see `skim`).
    Listed {
        id: Option<String>,
        text: Measured,
        meta: Meta,
    },
}

impl Record {
    /// A call that left no reply: `kind`, and what the record says about it.
    pub(crate) fn event(id: Option<String>, kind: EventKind, message: String, meta: Meta) -> Record {
        Record::Event { id, kind, message, meta }
    }

    /// The same record under another id and format (a batch line's, around its response).
    pub(crate) fn rewrap(self, id: Option<String>, format: Format) -> Record {
        match self {
            Record::Reply { id: own, text, mut meta } => {
                meta.format = format;
                Record::Reply { id: id.or(own), text, meta }
            }
            Record::Event { id: own, kind, message, mut meta } => {
                meta.format = format;
                Record::Event { id: id.or(own), kind, message, meta }
            }
            other => other,
        }
    }

    /// Each reply's and event's metadata, in turn (those of a record of many included).
    pub(crate) fn each_meta(&mut self, f: &mut dyn FnMut(&mut Meta)) {
        match self {
            Record::Reply { meta, .. } | Record::Event { meta, .. } | Record::Listed { meta, .. } => f(meta),
            Record::Many(many) => many.iter_mut().for_each(|r| r.each_meta(f)),
            Record::Context | Record::Problem(_) => {}
        }
    }

    /// The record, read from a skimmed line, with each reply whose text is a stand-in listed
    /// by its measure; `None` when a stand-in went anywhere else, for only the whole line can
    /// say what is there then. `as_is` says which formats take a reply's text as the record
    /// holds it (only there is a stand-in in a text the text).
    pub(crate) fn listed(self, long: &[Measured], as_is: &dyn Fn(Format) -> bool) -> Option<Record> {
        match self {
            Record::Many(many) => {
                many.into_iter().map(|r| r.listed_one(long, as_is)).collect::<Option<_>>().map(Record::Many)
            }
            one => one.listed_one(long, as_is),
        }
    }

    /// [`Record::listed`] of a record that is not of many (a record of many within one is
    /// left whole).
    fn listed_one(self, long: &[Measured], as_is: &dyn Fn(Format) -> bool) -> Option<Record> {
        match self {
            Record::Reply { id, text, meta } => {
                if id.as_deref().is_some_and(skim::mentions) || meta_mentions(&meta) {
                    return None;
                }
                match skim::stood_for(&text, long) {
                    Some(m) if as_is(meta.format) => Some(Record::Listed { id, text: m, meta }),
                    None if !skim::mentions(&text) => Some(Record::Reply { id, text, meta }),
                    _ => None,
                }
            }
            Record::Event { id, kind, message, meta } => {
                let clean =
                    !id.as_deref().is_some_and(skim::mentions) && !skim::mentions(&message) && !meta_mentions(&meta);
                clean.then_some(Record::Event { id, kind, message, meta })
            }
            Record::Problem(p) => (!skim::mentions(&p.to_string())).then_some(Record::Problem(p)),
            Record::Context => Some(Record::Context),
            Record::Many(_) | Record::Listed { .. } => None,
        }
    }
}

/// What a response said instead of text, to say why it left no reply.
#[derive(Debug, Default)]
pub(crate) struct NoText {
    /// The names of the tools it called.
    pub tools: Vec<String>,
    pub refusal: Option<String>,
    /// A filter's verdict: a blocked prompt's reason, a content filter's finish.
    pub blocked: Option<String>,
}

impl NoText {
    /// The call without a reply that a response with no text is, by what it holds and how
    /// it stopped. Tool calls first: a model that called a tool and then hit its ceiling
    /// still called the tool.
    pub fn into_record(self, id: Option<String>, meta: Meta) -> Record {
        let stop = meta.stop_detail.clone().unwrap_or_default();
        let word = stop.to_ascii_lowercase();
        let (kind, message) = if !self.tools.is_empty() {
            (EventKind::ToolCall, format!("tool call: {}", clip(&self.tools.join(", "), 120)))
        } else if let Some(r) = self.refusal {
            (EventKind::Refusal, format!("refusal: {}", clip(&r, 160)))
        } else if word.contains("refusal") {
            (EventKind::Refusal, format!("refused ({stop})"))
        } else if let Some(b) = self.blocked {
            (EventKind::Blocked, format!("blocked: {b}"))
        } else if meta.stop == StopReason::Truncated {
            (EventKind::Truncated, format!("cut off before any text ({stop})"))
        } else if is_filter_word(&word) {
            (EventKind::Blocked, format!("blocked ({stop})"))
        } else if stop.is_empty() {
            (EventKind::Empty, "no text".to_owned())
        } else {
            (EventKind::Empty, format!("no text ({stop})"))
        };
        Record::event(id, kind, message, meta)
    }
}

/// Stop reasons that mean a filter stopped the output.
fn is_filter_word(word: &str) -> bool {
    ["content_filter", "safety", "blocklist", "prohibited", "spii", "recitation", "guardrail", "content_filtered"]
        .iter()
        .any(|w| word.contains(w))
}

/// Whether any of `meta`'s words holds a stand-in: a long string read into metadata, which
/// only the whole line can say.
pub(crate) fn meta_mentions(meta: &Meta) -> bool {
    // Every field named, so that a new one is not passed over.
    let Meta {
        format: _,
        agent,
        phase,
        page: _,
        image,
        round,
        document,
        iteration: _,
        model,
        provider,
        stop: _,
        stop_detail,
        tokens: _,
        duration_ms: _,
        ts,
        document_outcome,
        run_outcome,
        page_verified: _,
        inferred: _,
        extra,
    } = meta;
    [agent, phase, image, round, document, model, provider, stop_detail, ts, document_outcome, run_outcome]
        .into_iter()
        .flatten()
        .any(|s| skim::mentions(s))
        || extra.iter().any(|(k, v)| skim::mentions(k) || skim::mentions(v))
}
