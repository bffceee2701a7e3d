//! The strings a campaign repeats: each reply's metadata names its agent, round, document,
//! model and provider, and its file; over a campaign of 100,000 replies they are a few
//! hundred distinct strings. [`Names`] keeps one copy of each, so that what holds every
//! reply's metadata (the inspector's list) holds a pointer to each name, not a copy of it.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

/// A string of a reply's metadata, shared by every reply that has it once their metadata
/// have been given one [`Names`]. One pointer wide (`Arc<str>` is two): the inspector holds
/// a dozen a reply, and an unset one costs as much as a set one.
pub type Name = arcstr::ArcStr;

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

    #[test]
    fn equal_names_and_paths_share_one_copy() {
        let mut names = Names::new();
        let page = names.name(&Name::from("page"));
        let again = names.name(&Name::from("page"));
        assert!(Name::ptr_eq(&page, &again), "one copy of `page`");
        assert!(!Name::ptr_eq(&page, &names.name(&Name::from("feedback"))));
        let p = names.path(Path::new("/runs/a/log.jsonl"));
        let q = names.path(&std::path::PathBuf::from("/runs/a/log.jsonl"));
        assert!(Arc::ptr_eq(&p, &q));
        assert_eq!(names.len(), 3, "two names and a path");
    }
}
