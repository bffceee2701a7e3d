//! The strings a campaign repeats: each reply's metadata names its agent, round, document,
//! model and provider, and its file; over a campaign of 100,000 replies they are a few
//! hundred distinct strings. [`Names`] keeps one copy of each, so that what holds every
//! reply's metadata (the inspector's list) holds a pointer a name, not a copy.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

/// A string of a reply's metadata, shared by every reply that has it once they are
/// [`Names::meta`]'d.
pub type Name = Arc<str>;

/// One copy of each name and path seen.
#[derive(Debug, Default)]
pub struct Names {
    names: HashSet<Name>,
    paths: HashSet<Arc<Path>>,
}

impl Names {
    pub fn new() -> Names {
        Names::default()
    }

    /// `name`, as the copy already kept (kept from now on if it is new).
    pub fn name(&mut self, name: &Name) -> Name {
        match self.names.get(name) {
            Some(kept) => kept.clone(),
            None => {
                self.names.insert(name.clone());
                name.clone()
            }
        }
    }

    /// `path`, as the copy already kept (kept from now on if it is new).
    pub fn path(&mut self, path: &Path) -> Arc<Path> {
        match self.paths.get(path) {
            Some(kept) => kept.clone(),
            None => {
                let kept: Arc<Path> = Arc::from(path);
                self.paths.insert(kept.clone());
                kept
            }
        }
    }

    /// Makes `meta` share the names it repeats with every other metadata given here. Its
    /// time and its extras are its own and left as they are: keeping them would only grow
    /// the set.
    pub fn meta(&mut self, meta: &mut super::reply::Meta) {
        let super::reply::Meta {
            agent,
            phase,
            image,
            round,
            document,
            model,
            provider,
            stop_detail,
            document_outcome,
            run_outcome,
            ..
        } = meta;
        let fields =
            [agent, phase, image, round, document, model, provider, stop_detail, document_outcome, run_outcome];
        for name in fields.into_iter().flatten() {
            *name = self.name(name);
        }
    }

    /// How many distinct names and paths are kept.
    pub fn len(&self) -> usize {
        self.names.len() + self.paths.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::{Format, Meta};

    #[test]
    fn equal_names_share_one_copy_and_times_stay_their_own() {
        let mut names = Names::new();
        let meta = |ts: &str| {
            let mut m = Meta::new(Format::RunLog);
            m.agent = Some(Name::from("page"));
            m.round = Some(Name::from("round-01"));
            m.ts = Some(Name::from(ts));
            m
        };
        let (mut a, mut b) = (meta("2026-01-01T00:00:00Z"), meta("2026-01-01T00:00:01Z"));
        names.meta(&mut a);
        names.meta(&mut b);
        let (Some(x), Some(y)) = (&a.agent, &b.agent) else { unreachable!() };
        assert!(Arc::ptr_eq(x, y), "one copy of `page`");
        assert_eq!(a.agent, b.agent);
        assert_ne!(a.ts, b.ts);
        assert_eq!(names.len(), 2, "agent and round kept, the times not");
        let p = names.path(Path::new("/runs/a/log.jsonl"));
        let q = names.path(&std::path::PathBuf::from("/runs/a/log.jsonl"));
        assert!(Arc::ptr_eq(&p, &q));
    }
}
