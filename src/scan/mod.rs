//! Corpus scan: the seed's own measurements, for any corpus.
//!
//! Every rule in seed 000 was justified by a count over the bench logs ("nine read
//! differently and every one of the nine is a rescue", "reads 60 of the 67 replies that a
//! strict reading cannot read at all", "changes 14 of the 4,100 replies … and worsens all
//! 14"). A scan makes those counts again over any set of replies, keeps the replies behind
//! every number, and compares the seed with the readers its comments measured it against:
//! seed 001's first-wins reader, and each what-if, all of them readers of the
//! [catalogue](crate::readers), which says what each is and what its caller holds.
//!
//! [`Facts::of`] reads one reply with every reader a [`Config`] needs and keeps counts and
//! one-line accounts, never text or values; a [`Scanner`] folds facts into a [`Scan`] in the
//! order the replies were given (one at a time, or a batch read in parallel), and
//! [`scan_paths`] drives it over files with the loader on its own thread. The [`report`] is
//! how a scan is shown: its sections, rows, labels and predicates, once, for `bracewalk
//! scan`'s table, Markdown and JSON and for the inspector's summary screen and filters.
//!
//! # The readers (`--compare` and `comparisons` keys)
//!
//! | key | reader |
//! | --- | --- |
//! | `last-wins` | seed 000 `extractJson`, exactly |
//! | `first-wins` | seed 001 `extractJsonObject`: the first strict candidate that parses (at most 50 tried; a reply over 256 Ki UTF-16 units is not scanned), parsed; when it hands back the raw reply, the raw reply parsed whole, as its caller does |
//! | `strict-only` | no repair of any kind: the whole text, then candidates read strictly; no whole-reply attempt (the narrow reading is a repair too) |
//! | `narrow-everywhere` | the narrow colon rule in place of the wide one in every candidate |
//! | `narrow-fallback` | the narrow colon rule as a third reading of a candidate the other two fail |
//! | `resume-after-fail` | after a candidate no reading parses, go on after its span instead of inside it |
//! | `first-readable` | the first readable candidate instead of the last |
//! | `no-whole-reply` | no whole-reply attempt |
//! | `no-walk-closed-gate` | the whole-reply attempt without `walkClosedOnTheLastCharacter` |
//! | `no-self-contained-gate` | the whole-reply attempt without `stringsAreSelfContained` |
//! | `fence-first` | the pipeline's original `extractJson`, which the seed replaced: the first fenced block (`` ```json `` or `` ``` ``, as its regex matches), trimmed and parsed, else the whole text, else the first balanced `{` parsed, once |
//!
//! By default each what-if and each reader command is compared with `last-wins`, and the
//! comparison's key is that reader's name; `--compare A,B` makes one comparison, keyed `A`
//! when `B` is `last-wins` and `A,B` otherwise. An account reads from A's answer to B's, so
//! by default it says what the seed's rule gives in place of the what-if's: `html: 3 chars →
//! 7,121 chars`. A value of JSON `null` counts as nothing read, as it does for the JavaScript
//! caller.
//!
//! # `bracewalk scan --json`
//!
//! One JSON object. Counts are numbers; the ids behind them are under `ids`, with `--list`.
//!
//! | key | value |
//! | --- | --- |
//! | `replies`, `bytes` | replies read, and the bytes of their text |
//! | `calls_without_reply` | model calls that left no reply (truncated or failed, or a response with no text: a tool call, a refusal, a blocked prompt, an empty one) |
//! | `diagnostics` | inputs or lines that could not be read |
//! | `by_agent`, `by_round`, `by_format` | `{NAME: {replies, bytes, decided_by}}`; no agent or round is `(none)` |
//! | `decided_by` | `{whole-text, last-wins, whole-reply, none}`: how the seed decided (the oracle's names) |
//! | `whole_reply` | `{not-tried, no-reading, refused-walk-closed, refused-not-self-contained, taken}`: the seed's whole-reply verdicts (the oracle's names) |
//! | `repair.strict_unreadable` | replies a `strict-only` walk reads nothing from |
//! | `repair.rescued` | of those, the replies the seed reads |
//! | `repair.changed` | replies `strict-only` reads, where the seed reads something else |
//! | `cut_off` | replies cut off: the record's stop reason says the output ceiling stopped it, or the reply opens an object that never closes |
//! | `truncation` | `{FIELD: {replies, entries}}`: replies whose last `"FIELD": [` array never reaches its `]` (cut mid-entry, or holding something other than objects), and the complete entries `readArrayPrefix` recovers from them; `--field` names the fields, `edits` by default |
//! | `comparisons` | `{KEY: {from, to, differ, replies: [{id, reference?, account}]}}` for each pair; `reference` (`PATH:LINE`) where the id is the record's own |
//! | `reader_failed` | `{NAME: replies}`: for each reader command compared, the replies it gave no answer for (an error, or its failure at or before them); their comparisons are not made |
//! | `flags` | `{NAME: replies}` for each risk flag, all five, zeros included: `inside-unreadable`, `smaller-than-superseded`, `placeholder`, `read-from-truncated`, `readers-disagree` (see Risk flags) |
//! | `elapsed_seconds`, `replies_per_second`, `bytes_per_second` | how long the scan took |
//! | `ids` | with `--list` only: the same keys as above (`by_agent.NAME`, `decided_by.none`, `repair.rescued`, `cut_off`, `truncation.FIELD`, `calls_without_reply`, …) each with the list of ids behind its count (`truncation.FIELD` as `{id, entries}`, `reader_failed.NAME` and `flags.NAME` as `{id, why}`, `why` saying what raised the flag), `diagnostics` as printed, and `references`: for each of `replies`, where it was read (`PATH:LINE`), or null where that is its id |
//!
//! Keys of maps (`by_agent`, `comparisons`, …) are in sorted order; lists of replies are in
//! load order (path, then line), whatever the number of threads.

pub mod accepted;
mod merge;
mod paths;
pub mod report;
mod scanner;

pub use merge::ShardError;
pub use paths::{Batch, Progress, in_batches, scan_paths, scan_paths_only, sizes};
pub use scanner::{Comparison, Difference, Failures, Group, NONE_KEY, Repair, ReplyName, Scan, Scanner, Truncation};
