//! Work waiting for the reader commands' answers, in the order the commands were asked.
//!
//! A command answers replies in the order it was given them, as its own pace allows: line
//! by line, or all at once when its input ends. Whoever runs commands beside the built-in
//! readers (the scan, a batch of replies at a time; the inspector, a reply at a time) asks
//! them about replies as they come, keeps what it will finish with each (a batch of items,
//! a reply's early facts) until every command has answered, and then finishes it with the
//! answers, oldest first. [`Pending`] is that queue: what is queued is what was asked, so the
//! answers taken always belong to the entry they are given with.

use std::collections::VecDeque;

use super::catalogue::Catalogue;
use super::given::Given;
use super::id::ReaderId;
use super::problem::ReaderProblem;
use super::supervisor::Commands;

/// One reply's answers, one per command reader that answered it (one that did not counts as
/// failed).
pub type Answered = Vec<(ReaderId, Given)>;

/// What an entry of a [`Pending`] queue asks the commands about: its replies, `(id, text)`,
/// in order; none, for an entry that waits only for those before it.
pub trait Asked {
    fn replies(&self) -> impl Iterator<Item = (&str, &str)>;
}

/// Entries waiting for the command readers' answers to their replies, oldest first, and the
/// commands themselves.
pub struct Pending<T> {
    commands: Commands,
    /// Each entry, with how many replies it asked about.
    waiting: VecDeque<(T, usize)>,
}

impl<T: Asked> Pending<T> {
    /// Starts the command readers `readers` of `catalogue` (the others are passed over).
    pub fn start(catalogue: &Catalogue, readers: &[ReaderId]) -> Pending<T> {
        Pending { commands: Commands::start(&catalogue.outside(readers)), waiting: VecDeque::new() }
    }

    /// No command reader runs: an entry's answers are in as soon as it is asked (there are
    /// none).
    pub fn no_commands(&self) -> bool {
        self.commands.is_empty()
    }

    /// Nothing waits.
    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    /// Asks every command about the entries' replies, in order and all at once, and queues
    /// the entries for their answers. Never waits.
    pub fn ask(&mut self, entries: Vec<T>) {
        let mut replies = Vec::new();
        let mut counts = Vec::with_capacity(entries.len());
        for e in &entries {
            let before = replies.len();
            replies.extend(e.replies());
            counts.push(replies.len() - before);
        }
        self.commands.send(&replies);
        self.waiting.extend(entries.into_iter().zip(counts));
    }

    /// The oldest entries whose replies every command has answered (or failed on), each with
    /// its replies' answers in order. With `wait`, where the oldest is not answered yet, waits
    /// until it is (as long as a command lives: one that is gone leaves it failed), and takes
    /// it whatever came of it.
    pub fn answered(&mut self, wait: bool) -> Vec<(T, Vec<Answered>)> {
        let mut out = Vec::new();
        if self.waiting.is_empty() {
            return out;
        }
        let mut ready = self.commands.ready(0);
        while let Some(&(_, n)) = self.waiting.front() {
            if ready < n {
                if !wait || !out.is_empty() {
                    break;
                }
                ready = self.commands.ready(n).max(n);
            }
            let Some((entry, n)) = self.waiting.pop_front() else { break };
            ready -= n;
            out.push((entry, (0..n).map(|_| self.commands.take()).collect()));
        }
        out
    }

    /// The most input bytes any command has not yet taken.
    pub fn backlog(&self) -> usize {
        self.commands.backlog()
    }

    /// No more replies will be asked about: a command that answers once its input ends may
    /// now.
    pub fn close(&mut self) {
        self.commands.close();
    }

    /// The commands' problems since the last call, each naming its reader.
    pub fn problems(&mut self) -> Vec<ReaderProblem> {
        self.commands.problems()
    }

    /// Ends every command (its input closed, a moment to exit); the problems that leaves.
    pub fn finish(&mut self) -> Vec<ReaderProblem> {
        self.commands.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::readers::own::Outside;

    struct Replies(Vec<(String, String)>);

    impl Asked for Replies {
        fn replies(&self) -> impl Iterator<Item = (&str, &str)> {
            self.0.iter().map(|(id, text)| (id.as_str(), text.as_str()))
        }
    }

    fn replies(ids: &[&str]) -> Replies {
        Replies(ids.iter().map(|id| (id.to_string(), format!("{{\"id\": \"{id}\"}}"))).collect())
    }

    fn ids(done: &[(Replies, Vec<Answered>)]) -> Vec<Vec<String>> {
        done.iter().map(|(r, _)| r.0.iter().map(|(id, _)| id.clone()).collect()).collect()
    }

    #[test]
    fn without_commands_every_entry_is_answered_at_once_with_nothing() {
        let mut p = Pending::start(&Catalogue::builtin(), &[]);
        assert!(p.no_commands());
        p.ask(vec![replies(&["a", "b"]), replies(&[]), replies(&["c"])]);
        let done = p.answered(false);
        assert_eq!(ids(&done), [vec!["a", "b"], vec![], vec!["c"]]);
        assert!(done.iter().all(|(_, answers)| answers.iter().all(Vec::is_empty)));
        assert!(p.is_empty());
    }

    /// A command that answers only once its input ends holds every entry back until then,
    /// and each entry then takes its own replies' answers, in order.
    #[cfg(unix)]
    #[test]
    fn entries_wait_for_their_replies_and_take_their_own_answers() {
        let mut catalogue = Catalogue::builtin();
        // Every request answered with its id, once the input has ended.
        let script = r#"sed 's/^{"id":\("[^"]*"\),.*/{"id":\1,"value":[\1]}/' | awk '{ a[NR] = $0 } END { for (i = 1; i <= NR; i++) print a[i] }'"#;
        let mine = catalogue.add_command("mine", Outside::command(script)).unwrap();
        let mut p = Pending::start(&catalogue, &[mine]);
        assert!(!p.no_commands());
        p.ask(vec![replies(&["a", "b"]), replies(&[]), replies(&["c"])]);
        assert!(p.answered(false).is_empty(), "nothing is answered before the input ends");
        p.close();
        let mut done = Vec::new();
        while !p.is_empty() {
            done.extend(p.answered(true));
        }
        assert_eq!(ids(&done), [vec!["a", "b"], vec![], vec!["c"]]);
        // Each entry holds its own replies' answers.
        let answered: Vec<Vec<String>> = done
            .iter()
            .map(|(_, answers)| {
                answers
                    .iter()
                    .map(|a| match a.as_slice() {
                        [(r, Given::Read(v))] if *r == mine => v.to_json(),
                        other => format!("{other:?}"),
                    })
                    .collect()
            })
            .collect();
        assert_eq!(answered, [vec![r#"["a"]"#, r#"["b"]"#], vec![], vec![r#"["c"]"#]]);
        assert!(p.finish().is_empty());
    }
}
