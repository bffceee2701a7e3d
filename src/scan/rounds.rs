//! Bench rounds side by side: what each round's replies come to, and each page's final answer
//! from round to round, so that a page that shrank or vanished since the round before is found
//! before a reader of the delivered document finds it.
//!
//! The seed's worst failure was such a page: an 8,334-character page delivered as 3
//! characters, logged `kept`, the run reporting 100 of 100 pages. The pipeline guards a
//! correction and a review round against coming back a fraction of what they were given, but
//! the first render of a page has no before-page in its own run. A campaign has one: the same
//! document's same page in the round before.
//!
//! A page's final answer is what the documents screen delivers for it: among its calls in
//! time order, the page agent's last reply, else the last reply ([`final_of`]); its size is
//! the characters of the `html` string the seed reads from it ([`page_size`]). The calls are
//! gathered as they are loaded ([`Pages`], one per scan, shards appended in order), and the
//! comparison is made once they are all in ([`Pages::history`]): rounds are loaded in path
//! order, not in the order they ran.
//!
//! [`Rounds`] puts the scan's counts side by side, one column per round in natural order
//! (`round-2` before `round-10`), for `bracewalk rounds` and the inspector's rounds screen.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::logs::{Meta, Name};

use super::report::{self, Kind, Row};
use super::scanner::{NONE_KEY, Scan};

pub use super::pages::{
    Call, Delivered, Fraction, FractionError, History, Loss, PAGE_AGENT, Pages, final_of, page_size,
};

/// A count the rounds are compared by: a row of the scan's report, or what only rounds have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Count {
    Replies,
    Bytes,
    Report(Row),
    CallsWithoutReply,
    Documents,
    PagesDelivered,
}

impl Count {
    /// The count's label, as the rounds table and screen show it.
    pub fn label(&self, scan: &Scan) -> String {
        match self {
            Count::Replies => "replies".to_owned(),
            Count::Bytes => "bytes".to_owned(),
            Count::Report(row @ (Row::Decided(_) | Row::Verdict(_))) => row.name(&scan.config),
            Count::Report(row @ Row::Flag(_)) => row.name(&scan.config),
            Count::Report(row @ Row::Differs(_)) => row.name(&scan.config),
            Count::Report(row) => row.label(&scan.config).trim().to_owned(),
            Count::CallsWithoutReply => "calls without a reply".to_owned(),
            Count::Documents => "documents".to_owned(),
            Count::PagesDelivered => "pages delivered".to_owned(),
        }
    }

    /// Where the count sits in `rounds --json`'s rounds: its key.
    pub fn key(&self, scan: &Scan) -> String {
        match self {
            Count::Replies => "replies".to_owned(),
            Count::Bytes => "bytes".to_owned(),
            Count::CallsWithoutReply => "calls_without_reply".to_owned(),
            Count::Documents => "documents".to_owned(),
            Count::PagesDelivered => "pages_delivered".to_owned(),
            Count::Report(row) => match row.json_key(&scan.config) {
                (top, Some(key)) => format!("{top}.{key}"),
                (top, None) => top.to_owned(),
            },
        }
    }

    /// Whether the count is of replies, so that a cell lists them.
    pub fn of_replies(&self) -> bool {
        matches!(self, Count::Replies | Count::Report(_))
    }
}

/// One count across the rounds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub count: Count,
    pub label: String,
    /// One per round, in the rounds' order.
    pub values: Vec<u64>,
}

impl Line {
    /// The change in round `r` from the round before (none in the first).
    pub fn change(&self, r: usize) -> Option<i64> {
        let now = *self.values.get(r)? as i64;
        let before = *self.values.get(r.checked_sub(1)?)? as i64;
        Some(now - before)
    }
}

/// The scan's counts side by side, a column per round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rounds {
    /// The rounds, in natural order; replies with no round are under [`NONE_KEY`], last.
    pub names: Vec<String>,
    /// Each round's replies, in scan order.
    pub replies: Vec<Vec<usize>>,
    pub lines: Vec<Line>,
    pub history: History<usize>,
    /// The rounds with a document whose run has not ended: still being written.
    pub open: Vec<bool>,
    /// The least part of its size a page may keep from round to round.
    pub fraction: Fraction,
}

impl Rounds {
    /// Every round of `scan`, with its counts and page history (with `fraction`).
    pub fn of(scan: &Scan, fraction: Fraction) -> Rounds {
        let history = scan.pages.history(fraction);
        let mut names = report::rounds(scan);
        // The replies with no round, after the rounds.
        if let Some(i) = names.iter().position(|n| n == NONE_KEY) {
            let none = names.remove(i);
            names.push(none);
        }
        let index: HashMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (n.as_str(), i)).collect();
        let mut round_of = vec![usize::MAX; scan.replies.len()];
        let mut replies = vec![Vec::new(); names.len()];
        for (name, g) in &scan.by_round {
            let r = index[name.as_str()];
            for &i in &g.replies {
                if let Some(slot) = round_of.get_mut(i) {
                    *slot = r;
                }
            }
            replies[r] = g.replies.clone();
        }
        let per_round = |list: &mut dyn Iterator<Item = usize>| {
            let mut v = vec![0u64; names.len()];
            for i in list {
                if let Some(&r) = round_of.get(i).filter(|&&r| r != usize::MAX) {
                    v[r] += 1;
                }
            }
            v
        };
        let mut lines = vec![
            Line {
                count: Count::Replies,
                label: String::new(),
                values: names.iter().map(|n| scan.by_round.get(n).map_or(0, |g| g.replies.len() as u64)).collect(),
            },
            Line {
                count: Count::Bytes,
                label: String::new(),
                values: names.iter().map(|n| scan.by_round.get(n).map_or(0, |g| g.bytes)).collect(),
            },
        ];
        for section in report::sections(scan) {
            if section.kind == Kind::Groups {
                continue;
            }
            for row in section.rows {
                let values = per_round(&mut row.reply_numbers(scan).into_iter());
                lines.push(Line { count: Count::Report(row), label: String::new(), values });
            }
        }
        // Calls that left no reply, by the round their documents' calls name.
        let mut without = vec![0u64; names.len()];
        for c in scan.pages.calls.iter().filter(|c| !c.answered) {
            if let Some(&r) = index.get(&*c.round) {
                without[r] += 1;
            }
        }
        lines.push(Line { count: Count::CallsWithoutReply, label: String::new(), values: without });
        let by_history = |v: &[usize]| -> Vec<u64> {
            names.iter().map(|n| history.rounds.iter().position(|h| h == n).map_or(0, |h| v[h] as u64)).collect()
        };
        lines.push(Line { count: Count::Documents, label: String::new(), values: by_history(&history.documents) });
        lines.push(Line {
            count: Count::PagesDelivered,
            label: String::new(),
            values: by_history(&history.pages_delivered),
        });
        for l in &mut lines {
            l.label = l.count.label(scan);
        }
        let mut open = vec![false; names.len()];
        let mut ended: BTreeMap<(&str, &str), bool> = BTreeMap::new();
        for c in &scan.pages.calls {
            *ended.entry((&*c.round, &*c.document)).or_default() |= c.ended;
        }
        for ((round, _), done) in ended {
            if let (false, Some(&r)) = (done, index.get(round)) {
                open[r] = true;
            }
        }
        Rounds { names, replies, lines, history, open, fraction }
    }

    /// The replies behind count `line` in round `r`, in scan order, each with what the scan
    /// says of it there.
    pub fn cell(&self, scan: &Scan, line: usize, r: usize) -> Vec<(usize, String)> {
        let Some(l) = self.lines.get(line) else { return Vec::new() };
        let Some(of_round) = self.replies.get(r) else { return Vec::new() };
        match &l.count {
            Count::Replies => of_round.iter().map(|&i| (i, String::new())).collect(),
            Count::Report(row) => row.replies_kept(scan, &|i| of_round.binary_search(&i).is_ok()),
            _ => Vec::new(),
        }
    }

    /// The replies that make the change of count `line` in round `r` from the round before:
    /// those of round `r` behind it whose call in the round before was not (or was not made),
    /// and those of the round before behind it whose call in round `r` is not. A call is
    /// known across rounds by its document, page, agent, review iteration and place among
    /// such calls ([`CallKey`]).
    pub fn change(&self, scan: &Scan, keys: &[CallKey], line: usize, r: usize) -> Vec<(usize, String)> {
        let Some(prev) = r.checked_sub(1) else { return Vec::new() };
        let now = self.cell(scan, line, r);
        let before = self.cell(scan, line, prev);
        let in_now: BTreeSet<&CallKey> = now.iter().filter_map(|(i, _)| keys.get(*i)).collect();
        let in_before: BTreeSet<&CallKey> = before.iter().filter_map(|(i, _)| keys.get(*i)).collect();
        let mut out: Vec<(usize, String)> = now
            .into_iter()
            .filter(|(i, _)| keys.get(*i).is_none_or(|k| !in_before.contains(k)))
            .map(|(i, why)| (i, if why.is_empty() { format!("came in {}", self.names[r]) } else { why }))
            .collect();
        out.extend(
            before
                .into_iter()
                .filter(|(i, _)| keys.get(*i).is_none_or(|k| !in_now.contains(k)))
                .map(|(i, _)| (i, format!("left after {}", self.names[prev]))),
        );
        out.sort_by_key(|(i, _)| *i);
        out
    }

    /// The rounds' pages lost in round `r` (the last round: `self.names.len() - 1`).
    pub fn losses_in(&self, r: usize) -> impl Iterator<Item = &Loss<usize>> {
        let name = self.names.get(r).cloned().unwrap_or_default();
        self.history.losses.iter().filter(move |l| l.round == name)
    }

    /// The round the last column is, if it is a round (not the replies with none).
    pub fn latest(&self) -> Option<usize> {
        self.names.iter().rposition(|n| n != NONE_KEY)
    }
}

/// A call, as it is known across rounds: its document, page, agent and review iteration,
/// and how many calls of those came before it in its round.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CallKey {
    pub document: Option<Name>,
    pub page: Option<u32>,
    pub agent: Option<Name>,
    pub iteration: Option<u32>,
    pub nth: usize,
}

/// The keys of calls, given in scan order with their round: each call's [`CallKey`].
#[derive(Debug, Default)]
pub struct CallKeys {
    seen: HashMap<(Option<Name>, CallKey), usize>,
    pub keys: Vec<CallKey>,
}

impl CallKeys {
    pub fn push(&mut self, meta: Option<&Meta>) {
        let mut key = CallKey {
            document: meta.and_then(|m| m.document.clone()),
            page: meta.and_then(|m| m.page),
            agent: meta.and_then(|m| m.agent.clone()),
            iteration: meta.and_then(|m| m.iteration),
            nth: 0,
        };
        let n = self.seen.entry((meta.and_then(|m| m.round.clone()), key.clone())).or_insert(0);
        key.nth = *n;
        *n += 1;
        self.keys.push(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(
        round: &str,
        doc: &str,
        page: u32,
        agent: &str,
        ts: &str,
        reply: usize,
        html: Option<usize>,
    ) -> Call<usize> {
        Call {
            reply: Some(reply),
            answered: true,
            round: round.into(),
            document: doc.into(),
            page: Some(page),
            agent: Some(agent.into()),
            ts: Some(ts.into()),
            html,
            ended: true,
        }
    }

    #[test]
    fn a_page_that_shrank_below_half_or_vanished_is_lost_since_the_round_it_was_delivered() {
        let mut pages = Pages::default();
        // Round 10 is loaded before round 2, as paths sort; the rounds are ordered naturally.
        pages.push(call("round-10", "d", 17, "page", "3", 9, Some(3)));
        pages.push(call("round-10", "d", 18, "page", "3", 10, Some(900)));
        pages.push(call("round-2", "d", 17, "page", "1", 1, Some(8_334)));
        pages.push(call("round-2", "d", 17, "feedback", "2", 2, None));
        pages.push(call("round-2", "d", 18, "page", "1", 3, Some(1_000)));
        pages.push(call("round-3", "d", 17, "page", "1", 4, Some(8_000)));
        // Page 18's render in round 3 reads nothing: it vanished.
        pages.push(call("round-3", "d", 18, "page", "1", 5, None));
        let h = pages.history(Fraction::HALF);
        assert_eq!(h.rounds, ["round-2", "round-3", "round-10"]);
        type Lost<'a> = (u32, &'a str, &'a str, usize, Option<usize>, Option<usize>, Option<usize>);
        let lost: Vec<Lost> = h
            .losses
            .iter()
            .map(|l| (l.page, l.round.as_str(), l.since.as_str(), l.before, l.after, l.reply, l.earlier))
            .collect();
        assert_eq!(
            lost,
            [
                (18, "round-3", "round-2", 1_000, None, Some(5), Some(3)),
                (17, "round-10", "round-3", 8_000, Some(3), Some(9), Some(4))
            ]
        );
        // Page 18 in round 10 is compared with round 2, the last that delivered it: 900 is
        // not under half of 1,000.
        assert_eq!(h.pages_delivered, [2, 1, 2]);
        assert_eq!(h.documents, [1, 1, 1]);
        assert_eq!(
            crate::analysis::flags::explain(&h.losses[1].raised()),
            "page 17 of d: 8,000 chars in round-3, 3 chars now"
        );
        assert_eq!(
            crate::analysis::flags::explain(&h.losses[0].raised()),
            "page 18 of d: 1,000 chars in round-2, no page now: it vanished"
        );
    }

    #[test]
    fn the_final_answer_is_the_page_agents_last_reply() {
        let mut pages = Pages::default();
        pages.push(call("r-1", "d", 1, "page", "1", 0, Some(100)));
        pages.push(call("r-2", "d", 1, "page", "1", 1, Some(100)));
        // A correction, later: the final answer, however small the verdict after it.
        pages.push(call("r-2", "d", 1, "page", "3", 2, Some(40)));
        pages.push(call("r-2", "d", 1, "feedback", "4", 3, Some(1)));
        let h = pages.history(Fraction::HALF);
        assert_eq!(h.losses.len(), 1);
        assert_eq!(h.losses[0].reply, Some(2));
        // At a third, 40 of 100 is kept.
        assert!(pages.history("0.3".parse().unwrap()).losses.is_empty());
        assert!(pages.history("30%".parse().unwrap()).losses.is_empty());
    }

    #[test]
    fn a_page_no_call_names_in_an_ended_run_vanished_and_one_still_being_written_waits() {
        let mut pages = Pages::default();
        pages.push(call("r-1", "d", 1, "page", "1", 0, Some(100)));
        pages.push(call("r-1", "d", 2, "page", "1", 1, Some(100)));
        let mut c = call("r-2", "d", 1, "page", "1", 2, Some(100));
        c.ended = false;
        pages.push(c.clone());
        assert!(pages.history(Fraction::HALF).losses.is_empty(), "page 2 may come yet");
        c.ended = true;
        pages.push(Call { reply: None, answered: false, ..c });
        let h = pages.history(Fraction::HALF);
        assert_eq!(h.losses.len(), 1);
        assert_eq!((h.losses[0].page, h.losses[0].answered, h.losses[0].how()), (2, false, "vanished (no reply)"));
    }

    #[test]
    fn fractions_are_read_as_written() {
        assert_eq!("0.5".parse::<Fraction>(), Ok(Fraction::HALF));
        assert_eq!("50%".parse::<Fraction>(), Ok(Fraction::HALF));
        assert!("1.5".parse::<Fraction>().is_err() && "half".parse::<Fraction>().is_err());
        assert_eq!(Fraction::HALF.to_string(), "0.5");
        assert!(Fraction::HALF.under(3, 8_334) && !Fraction::HALF.under(50, 100) && Fraction::HALF.under(49, 100));
    }
}
