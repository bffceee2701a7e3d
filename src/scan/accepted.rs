//! Accepted differences: a reviewed set of the replies two readers read differently, kept in
//! a file beside the extractor, so that a later scan reports only what is new.
//!
//! The seed's own workflow ("nine read differently and every one of the nine is a rescue")
//! becomes: review the differences once, accept them (`scan --accept FILE`), commit the file,
//! and let CI scan against it (`scan --accepted FILE`): it fails the day a tenth appears, or
//! one of the nine reads another way. The file is JSONL, one accepted difference a line,
//! `{"comparison", "id", "reference"?, "class", "account"}`, in the scan's order, so a review
//! is a diff of lines. A difference is the same one when its comparison key, reply id and
//! reference (`PATH:LINE`, where the id is the record's own) are; it is accepted as long as
//! its class and account are the ones accepted (a file written before differences had classes
//! holds accounts alone, and is checked by them).

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::analysis::Class;
use crate::readers::Outcome;

use super::scanner::Scan;

/// One accepted difference, or one a scan found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The comparison's key (`first-wins`, `A,B`), as `scan --json` has it.
    pub comparison: String,
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// Which of the readers reads where the other reads nothing, if either (`None` in a file
    /// written before differences had classes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<Class>,
    /// How the readers' answers differ, as the scan accounts for it.
    pub account: String,
}

impl Entry {
    fn key(&self) -> (&str, &str, Option<&str>) {
        (&self.comparison, &self.id, self.reference.as_deref())
    }

    /// Whether `found`, a difference the scan found under the same key, is this one, accepted
    /// as it is.
    fn accepts(&self, found: &Entry) -> bool {
        self.account == found.account && (self.class.is_none() || self.class == found.class)
    }
}

/// A file of accepted differences that does not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct BadLine {
    pub line: usize,
    pub message: String,
}

/// What a scan found against the accepted differences.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Check {
    /// Differences not accepted: each reply the comparison reads differently and no accepted
    /// entry names.
    pub new: Vec<Entry>,
    /// Accepted differences whose class or account is another now: the entry as it is, and
    /// as it was accepted.
    pub changed: Vec<(Entry, Entry)>,
    /// Accepted differences found as accepted.
    pub still: usize,
    /// Accepted differences the scan no longer finds: the reply is there, the comparison was
    /// made, and the readers agree.
    pub gone: Vec<Entry>,
    /// Accepted differences the scan could not check: their reply or comparison is not in it,
    /// or a reader command gave no answer for the reply.
    pub unchecked: Vec<Entry>,
}

impl Check {
    /// Whether CI should fail: a difference that was not accepted, or not as it is.
    pub fn fails(&self) -> bool {
        !self.new.is_empty() || !self.changed.is_empty()
    }
}

/// Every difference `scan` found, in its order: comparisons as configured, replies in load
/// order.
pub fn differences(scan: &Scan) -> Vec<Entry> {
    let mut out = Vec::new();
    for c in &scan.comparisons {
        let comparison = scan.config.key(&c.pair);
        for d in &c.differ {
            let name = scan.replies.get(d.reply);
            out.push(Entry {
                comparison: comparison.clone(),
                id: name.map(|n| n.id.to_string()).unwrap_or_default(),
                reference: name.and_then(|n| n.reference.as_deref().map(str::to_owned)),
                class: Some(d.class),
                account: d.account.to_string(),
            });
        }
    }
    out
}

/// The file's text for `entries`: one JSON object a line.
pub fn to_jsonl(entries: &[Entry]) -> String {
    let mut out = String::new();
    for e in entries {
        // An entry of strings always serializes.
        if let Ok(line) = serde_json::to_string(e) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// Reads a file of accepted differences; blank lines are passed over.
pub fn parse(text: &str) -> Result<Vec<Entry>, BadLine> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, l)| {
            serde_json::from_str(l).map_err(|e| BadLine {
                line: n + 1,
                message: format!("not an accepted difference {{\"comparison\", \"id\", \"class\", \"account\"}}: {e}"),
            })
        })
        .collect()
}

/// `scan` against the `accepted` differences.
pub fn check(accepted: &[Entry], scan: &Scan) -> Check {
    let found = differences(scan);
    let accepted_by_key: HashMap<_, &Entry> = accepted.iter().map(|e| (e.key(), e)).collect();
    let mut check = Check::default();
    for e in &found {
        match accepted_by_key.get(&e.key()) {
            None => check.new.push(e.clone()),
            Some(a) if a.accepts(e) => check.still += 1,
            Some(a) => check.changed.push((e.clone(), (*a).clone())),
        }
    }
    let found_keys: HashSet<_> = found.iter().map(Entry::key).collect();
    let checked = Checked::of(scan);
    for a in accepted.iter().filter(|a| !found_keys.contains(&a.key())) {
        if checked.holds(a) { check.gone.push(a.clone()) } else { check.unchecked.push(a.clone()) }
    }
    check
}

/// Which (comparison, reply) a scan made.
struct Checked<'s> {
    scan: &'s Scan,
    /// Each reply by its id and reference.
    replies: HashMap<(&'s str, Option<&'s str>), usize>,
}

impl<'s> Checked<'s> {
    fn of(scan: &'s Scan) -> Checked<'s> {
        let replies = scan.replies.iter().enumerate().map(|(i, r)| ((&*r.id, r.reference.as_deref()), i)).collect();
        Checked { scan, replies }
    }

    /// Whether the scan compared the entry's reply under its comparison.
    fn holds(&self, e: &Entry) -> bool {
        let Some(&reply) = self.replies.get(&(e.id.as_str(), e.reference.as_deref())) else { return false };
        let Some(c) = self.scan.comparison(&e.comparison) else { return false };
        // A command reader of the pair that gave no answer for the reply: not compared.
        ![c.pair.from, c.pair.to]
            .iter()
            .filter_map(|&r| self.scan.notes(r))
            .any(|n| n.of(Outcome::Failed).iter().any(|(r, _)| *r == reply))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Config;
    use crate::scan::Scanner;

    fn scan(texts: &[(&str, &str)]) -> Scan {
        let mut s = Scanner::new(Config::default());
        for (id, t) in texts {
            let mut f = crate::analysis::Facts::of_text(t, false, s.config(), &[]);
            f.id = (*id).into();
            s.add_facts(f);
        }
        s.finish()
    }

    const TEMPLATE: &str = "Template:\n{ \"html\": \"...\" }\nAnswer:\n{\"html\": \"<p>real</p>\"}";

    #[test]
    fn accept_then_check_reports_only_what_is_new_or_changed() {
        let before = scan(&[("a", TEMPLATE), ("b", "{\"x\": 1}")]);
        let accepted = differences(&before);
        assert!(!accepted.is_empty());
        let text = to_jsonl(&accepted);
        assert_eq!(parse(&text), Ok(accepted.clone()), "the file reads back");
        let same = check(&accepted, &before);
        assert!(!same.fails() && same.still == accepted.len() && same.gone.is_empty(), "{same:?}");

        // `a` reads another way now, `c` is new, `b` still agrees.
        let other = "Template:\n{ \"html\": \"...\" }\nAnswer:\n{\"html\": \"<p>the real page</p>\"}";
        let after = scan(&[("a", other), ("b", "{\"x\": 1}"), ("c", TEMPLATE)]);
        let c = check(&accepted, &after);
        assert!(c.fails());
        assert!(c.changed.iter().all(|(e, was)| e.id == "a" && e.account != was.account), "{c:?}");
        assert!(!c.changed.is_empty());
        assert!(c.new.iter().all(|e| e.id == "c") && !c.new.is_empty(), "{c:?}");

        // Fixed: no longer differs. Gone from the corpus: not checked.
        let fixed = scan(&[("a", "{\"html\": \"<p>real</p>\"}")]);
        let c = check(&accepted, &fixed);
        assert!(!c.fails() && c.gone.len() == accepted.len(), "{c:?}");
        let elsewhere = scan(&[("z", "{}")]);
        let c = check(&accepted, &elsewhere);
        assert!(!c.fails() && c.unchecked.len() == accepted.len(), "{c:?}");
    }

    #[test]
    fn a_difference_is_accepted_with_its_class() {
        let scan = scan(&[("a", TEMPLATE)]);
        let found = differences(&scan);
        assert!(found.iter().all(|e| e.class.is_some()));
        let line = to_jsonl(&found[..1]);
        assert!(line.contains(r#""class":"changed""#), "{line}");
        // A file written before classes: checked by the accounts alone.
        let old: Vec<Entry> = found.iter().map(|e| Entry { class: None, ..e.clone() }).collect();
        let without = to_jsonl(&old);
        assert!(!without.contains("class"));
        let c = check(&parse(&without).unwrap(), &scan);
        assert!(!c.fails() && c.still == found.len(), "{c:?}");
        // Accepted as another class: read another way.
        let other: Vec<Entry> = found.iter().map(|e| Entry { class: Some(Class::Gained), ..e.clone() }).collect();
        let c = check(&other, &scan);
        assert_eq!(c.changed.len(), found.len(), "{c:?}");
    }

    #[test]
    fn a_bad_line_is_named() {
        let err = parse("\n{\"comparison\":\"a\",\"id\":\"x\",\"account\":\"y\"}\n{\"id\": 1}\n").unwrap_err();
        assert_eq!(err.line, 3);
        assert!(err.message.starts_with("not an accepted difference"), "{err}");
    }
}
