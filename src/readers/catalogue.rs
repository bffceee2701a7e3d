//! The catalogue of readers: the built-in ones in their fixed order, then the readers of
//! one's own a run adds, each a [`ReaderDef`] named by a [`ReaderId`], and what a caller of
//! each built-in reader holds of a reply ([`Catalogue::read`]).

use crate::exact::fence::fence_first;
use crate::exact::first::{FirstOutcome, first_wins};
use crate::exact::js;
use crate::exact::served;
use crate::exact::value::{JsString, Value};
use crate::exact::walk::{self, Keep, OnFailure, Readings, WalkOptions, WholeReplyPolicy};

use super::error::{ReaderError, UnknownReader};
use super::given::held;
use super::id::ReaderId;
use super::own::{self, Outside};

/// How a reader runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Run {
    /// Seed 000's walk, with these options: the seed itself, or one of the what-ifs its
    /// comments measured (one engine, a parameter changed, never a copy of the walk).
    Walk(WalkOptions),
    /// Seed 001 `extractJsonObject`, then its caller's `JSON.parse` of what it returns.
    FirstWins,
    /// The pipeline's original `extractJson`: the first fenced block, else the whole text,
    /// else the first balanced `{…}`.
    FenceFirst,
    /// Seed 002 `leadingJsonValues`: `{values, rest}`, nothing when no value leads.
    Leading,
    /// Seed 002 `jsonPrefixOf`: `{leaves, words?}`, nothing where it returns undefined.
    Cut,
    /// Seed 000 `readArrayPrefix(text, field)`: `{entries, closed}`.
    ArrayPrefix(String),
    /// A reader of one's own, run once for the whole corpus, answering replies by id
    /// ([its spec](super::own), [supervisor](super::supervisor)).
    Command(Box<Outside>),
}

/// One reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReaderDef {
    /// The stable name the command line, the JSON output and the inspector use. Shared by
    /// the flags that name the reader (one or two a reply on a hard campaign).
    pub name: arcstr::ArcStr,
    /// What it is, in a line.
    pub description: String,
    pub run: Run,
    /// Compared with the seed when a scan is not told what to compare, and offered by the
    /// inspector's what-if column: the readers the seed's comments argue against, and the
    /// readers the user gives as commands.
    pub what_if: bool,
}

/// Every reader there is, for one run of bracewalk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Catalogue {
    readers: Vec<ReaderDef>,
}

const SEED: WalkOptions = WalkOptions::SEED;
const GATES: WholeReplyPolicy = SEED.whole_reply;

/// The built-in readers, in their fixed order: name, description, how, what-if.
fn builtins() -> Vec<ReaderDef> {
    let whole_reply = |w: WholeReplyPolicy| Run::Walk(WalkOptions { whole_reply: w, ..SEED });
    let def = |name: &str, description: &str, run: Run, what_if: bool| ReaderDef {
        name: name.into(),
        description: description.to_owned(),
        run,
        what_if,
    };
    vec![
        def("last-wins", "seed 000: the last readable candidate, or the whole reply", Run::Walk(SEED), false),
        def("first-wins", "seed 001: the first strict candidate that parses, bounded", Run::FirstWins, true),
        // The whole-reply attempt is a repair too (the narrow colon rule), so a reader that
        // never repairs does not make it.
        def(
            "strict-only",
            "no repair: strict readings only, no whole-reply attempt",
            Run::Walk(WalkOptions {
                readings: Readings::StrictOnly,
                whole_reply: WholeReplyPolicy { enabled: false, ..GATES },
                ..SEED
            }),
            true,
        ),
        def(
            "narrow-everywhere",
            "the narrow colon rule in every candidate",
            Run::Walk(WalkOptions { readings: Readings::StrictThenNarrow, ..SEED }),
            true,
        ),
        def(
            "narrow-fallback",
            "the narrow colon rule as a per-candidate fallback",
            Run::Walk(WalkOptions { readings: Readings::StrictThenWideThenNarrow, ..SEED }),
            true,
        ),
        def(
            "resume-after-fail",
            "after a failed candidate, resume past it instead of inside",
            Run::Walk(WalkOptions { on_failure: OnFailure::Resume, ..SEED }),
            true,
        ),
        def(
            "first-readable",
            "the first readable candidate instead of the last",
            Run::Walk(WalkOptions { keep: Keep::First, ..SEED }),
            true,
        ),
        def(
            "no-whole-reply",
            "no whole-reply attempt",
            whole_reply(WholeReplyPolicy { enabled: false, ..GATES }),
            true,
        ),
        def(
            "no-walk-closed-gate",
            "the whole-reply attempt without the walk-closed gate",
            whole_reply(WholeReplyPolicy { walk_closed_gate: false, ..GATES }),
            true,
        ),
        def(
            "no-self-contained-gate",
            "the whole-reply attempt without the self-contained gate",
            whole_reply(WholeReplyPolicy { self_contained_gate: false, ..GATES }),
            true,
        ),
        def(
            "fence-first",
            "the pipeline's original reader: the first fenced block, else the first balanced `{`",
            Run::FenceFirst,
            true,
        ),
        def("leading", "seed 002: the complete JSON values the reply opens with", Run::Leading, false),
        def("cut", "seed 002: the leaves of JSON cut short", Run::Cut, false),
        def(
            "array-prefix",
            "seed 000: the complete entries of a cut-off array field",
            Run::ArrayPrefix("edits".to_owned()),
            false,
        ),
    ]
}

impl Default for Catalogue {
    fn default() -> Self {
        Catalogue::builtin()
    }
}

impl Catalogue {
    /// The readers compiled in.
    pub fn builtin() -> Catalogue {
        Catalogue { readers: builtins() }
    }

    /// Every reader, with its id, in catalogue order.
    pub fn iter(&self) -> impl Iterator<Item = (ReaderId, &ReaderDef)> {
        self.readers.iter().enumerate().map(|(i, d)| (ReaderId(u16::try_from(i).unwrap_or(u16::MAX)), d))
    }

    /// The readers the seed's comments argue against, in catalogue order.
    pub fn what_ifs(&self) -> impl Iterator<Item = ReaderId> + '_ {
        self.iter().filter(|(_, d)| d.what_if).map(|(id, _)| id)
    }

    pub fn get(&self, id: ReaderId) -> Option<&ReaderDef> {
        self.readers.get(id.index())
    }

    /// The reader's name (`?` for an id of another catalogue).
    pub fn name(&self, id: ReaderId) -> &str {
        self.get(id).map_or("?", |d| &*d.name)
    }

    /// [`Catalogue::name`], shared.
    pub fn shared_name(&self, id: ReaderId) -> arcstr::ArcStr {
        self.get(id).map_or_else(|| "?".into(), |d| d.name.clone())
    }

    pub fn description(&self, id: ReaderId) -> &str {
        self.get(id).map_or("", |d| d.description.as_str())
    }

    /// The reader of this name; the error lists the names there are.
    pub fn find(&self, name: &str) -> Result<ReaderId, UnknownReader> {
        let name = name.trim();
        self.iter().find(|(_, d)| &*d.name == name).map(|(id, _)| id).ok_or_else(|| UnknownReader {
            name: name.to_owned(),
            known: self.readers.iter().map(|d| d.name.to_string()).collect(),
        })
    }

    /// Whether a reader of one's own may be added as `name`: a name that is new and fits
    /// where names go (a `--compare A,B` pair, a file name, its stderr log's).
    pub fn check_free(&self, name: &str) -> Result<(), ReaderError> {
        own::check_name(name)?;
        if self.readers.iter().any(|d| &*d.name == name) {
            return Err(ReaderError::Taken { name: name.to_owned() });
        }
        Ok(())
    }

    /// Adds a reader that runs outside (`--reader NAME=COMMAND`, `NAME=js:FILE`, …), compared
    /// with the seed by default, under a name [free](Catalogue::check_free) for it.
    pub fn add_command(&mut self, name: &str, outside: Outside) -> Result<ReaderId, ReaderError> {
        self.check_free(name)?;
        let id = ReaderId(u16::try_from(self.readers.len()).map_err(|_| ReaderError::TooMany)?);
        let description = outside.description();
        self.readers.push(ReaderDef {
            name: name.into(),
            description,
            run: Run::Command(Box::new(outside)),
            what_if: true,
        });
        Ok(id)
    }

    /// Whether this reader runs outside: its answers are given, not read here.
    pub fn is_command(&self, id: ReaderId) -> bool {
        self.get(id).is_some_and(|d| matches!(d.run, Run::Command(_)))
    }

    /// The readers of one's own, in catalogue order.
    pub fn commands(&self) -> impl Iterator<Item = (ReaderId, &Outside)> {
        self.iter().filter_map(|(id, d)| match &d.run {
            Run::Command(outside) => Some((id, &**outside)),
            _ => None,
        })
    }

    /// The readers of one's own among `readers`, each with its name, as a run starts them.
    pub fn outside<'c>(&'c self, readers: &[ReaderId]) -> Vec<(ReaderId, &'c str, &'c Outside)> {
        self.commands().filter(|(id, _)| readers.contains(id)).map(|(id, o)| (id, self.name(id), o)).collect()
    }

    /// This catalogue with each reader of one's own made anew by `make` from its own (a
    /// second run of the same readers).
    pub fn with_commands(&self, make: impl Fn(&Outside) -> Outside) -> Catalogue {
        let mut out = self.clone();
        for d in &mut out.readers {
            if let Run::Command(outside) = &mut d.run {
                **outside = make(outside);
            }
        }
        out
    }

    /// The field `array-prefix` reads (`edits` unless set).
    pub fn set_array_field(&mut self, field: &str) {
        for d in &mut self.readers {
            if let Run::ArrayPrefix(f) = &mut d.run {
                *f = field.to_owned();
            }
        }
    }

    /// Whether this reader is a walk of seed 000's. Every walk reads the trimmed reply whole
    /// before anything else, so where that parses every walk's answer is the seed's.
    pub fn is_walk(&self, id: ReaderId) -> bool {
        self.get(id).is_some_and(|d| matches!(d.run, Run::Walk(_)))
    }

    /// What a caller of the reader holds for `text`: `None` for nothing read, JavaScript's
    /// `null` included. A command reader is not read from a text (its answers are given to
    /// [`Answers`](super::Answers)): `None`, and [`Answers`](super::Answers) never asks.
    pub fn read(&self, id: ReaderId, text: &str) -> Option<Value> {
        let value = match &self.get(id)?.run {
            Run::Walk(opts) => walk::answer(text, opts),
            Run::FirstWins => first_wins_value(text),
            Run::FenceFirst => fence_first(text),
            Run::Leading => {
                let l = served::leading_json_values(text);
                (!l.values.is_empty()).then(|| {
                    let rest = Value::String(JsString::from(l.rest));
                    object([("values", Value::Array(l.values)), ("rest", rest)])
                })
            }
            Run::Cut => served::json_prefix_of(text).map(|p| {
                let leaves = Value::Array(p.leaves.into_iter().map(Value::String).collect());
                match p.words {
                    Some(w) => object([("leaves", leaves), ("words", Value::String(w))]),
                    None => object([("leaves", leaves)]),
                }
            }),
            Run::ArrayPrefix(field) => walk::read_array_prefix(text, field)
                .map(|p| object([("entries", Value::Array(p.entries)), ("closed", Value::Bool(p.closed))])),
            Run::Command(_) => None,
        };
        held(value)
    }
}

/// The value a caller of seed 001 parses: the candidate it returned, or, when it hands back
/// the reply unchanged (nothing parsed, too long, attempts exhausted), the reply itself, which
/// the caller's `JSON.parse` reads only when the whole reply is JSON (JSON's whitespace
/// around it, not JavaScript's: no `trim`).
pub fn first_wins_value(text: &str) -> Option<Value> {
    match first_wins(text).outcome {
        FirstOutcome::Found(s) => text.get(s.start..s.end).and_then(|t| js::parse(t).ok()),
        _ => js::parse(text).ok(),
    }
}

fn object<const N: usize>(fields: [(&str, Value); N]) -> Value {
    Value::Object(fields.into_iter().map(|(k, v)| (JsString::from(k), v)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_the_named_ids_are_theirs() {
        let c = Catalogue::builtin();
        for (id, d) in c.iter() {
            assert_eq!(c.find(&d.name), Ok(id));
        }
        assert_eq!(c.name(ReaderId::LAST_WINS), "last-wins");
        assert_eq!(c.name(ReaderId::FIRST_WINS), "first-wins");
        assert_eq!(c.name(ReaderId::STRICT_ONLY), "strict-only");
        assert_eq!(c.get(ReaderId::LAST_WINS).map(|d| &d.run), Some(&Run::Walk(WalkOptions::SEED)));
        assert!(c.find("nope").unwrap_err().known.iter().any(|n| n == "first-wins"));
        assert_eq!(c.what_ifs().count(), 10);
    }

    #[test]
    fn what_a_caller_holds() {
        let c = Catalogue::builtin();
        let json = |id, t: &str| c.read(id, t).map(|v| v.to_json());
        // The raw reply handed back is parsed as JSON.parse parses it: no trim.
        assert_eq!(json(ReaderId::FIRST_WINS, "[1, 2]").as_deref(), Some("[1,2]"));
        assert_eq!(json(ReaderId::FIRST_WINS, " [1, 2]\n").as_deref(), Some("[1,2]"));
        assert_eq!(json(ReaderId::FIRST_WINS, "\u{feff}[1,2]"), None);
        assert_eq!(json(ReaderId::FIRST_WINS, "prose {x}"), None);
        // The seed trims with JavaScript's whitespace, U+FEFF included.
        assert_eq!(json(ReaderId::LAST_WINS, "\u{feff}[1,2]").as_deref(), Some("[1,2]"));
        // `null` is nothing, for every reader.
        for (id, _) in c.iter() {
            assert_eq!(json(id, " null "), None, "{}", c.name(id));
        }
        let leading = c.find("leading").unwrap();
        assert_eq!(json(leading, r#"{"a":1} tail"#).as_deref(), Some(r#"{"values":[{"a":1}],"rest":"tail"}"#));
        let mut c = c;
        c.set_array_field("rows");
        let prefix = c.find("array-prefix").unwrap();
        assert_eq!(
            c.read(prefix, r#"{"rows":[{"a":1},{"b""#).map(|v| v.to_json()).as_deref(),
            Some(r#"{"entries":[{"a":1}],"closed":false}"#)
        );
    }
}
