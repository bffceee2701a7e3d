//! Two readers compared: an account of a difference reads from `from`'s answer to `to`'s.

use crate::readers::{Catalogue, ReaderId, UnknownReader};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pair {
    pub from: ReaderId,
    pub to: ReaderId,
}

impl Pair {
    /// The comparisons a scan makes unless told otherwise: each what-if against the seed, so
    /// an account says what the seed's rule does that the other does not.
    pub fn defaults(catalogue: &Catalogue) -> Vec<Pair> {
        catalogue.what_ifs().map(|r| Pair { from: r, to: ReaderId::LAST_WINS }).collect()
    }

    /// Whether the pair reads a reader towards the seed (`NAME,last-wins`).
    pub fn against_seed(&self) -> bool {
        self.to == ReaderId::LAST_WINS
    }

    /// The stable key: the other reader's name for a pair read towards the seed
    /// (`first-wins`), `A,B` for any other.
    pub fn key(&self, catalogue: &Catalogue) -> String {
        if self.against_seed() {
            catalogue.name(self.from).to_owned()
        } else {
            format!("{},{}", catalogue.name(self.from), catalogue.name(self.to))
        }
    }

    /// `A,B`, or one reader's name, meaning `NAME,last-wins`.
    pub fn parse(catalogue: &Catalogue, s: &str) -> Result<Pair, PairError> {
        let find = |name: &str| catalogue.find(name).map_err(PairError::NoSuchReader);
        match s.split_once(',') {
            Some((a, b)) => {
                let pair = Pair { from: find(a)?, to: find(b)? };
                if pair.from == pair.to {
                    return Err(PairError::Itself(s.to_owned()));
                }
                Ok(pair)
            }
            None => {
                let r = find(s)?;
                if r == ReaderId::LAST_WINS {
                    return Err(PairError::SeedAlone);
                }
                Ok(Pair { from: r, to: ReaderId::LAST_WINS })
            }
        }
    }
}

/// A comparison that cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PairError {
    /// A name the catalogue does not know.
    #[error("{0}")]
    NoSuchReader(#[from] UnknownReader),
    /// `A,A`.
    #[error("{0:?} compares a reader with itself")]
    Itself(String),
    /// `last-wins` alone: the seed, compared with nothing.
    #[error("last-wins is the seed; name the reader to compare it with")]
    SeedAlone,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_parse_in_either_spelling() {
        let c = Catalogue::builtin();
        let p = Pair::parse(&c, "first-wins").unwrap();
        assert_eq!(p, Pair { from: ReaderId::FIRST_WINS, to: ReaderId::LAST_WINS });
        assert_eq!(p.key(&c), "first-wins");
        assert_eq!(Pair::parse(&c, "first-wins, last-wins").unwrap().key(&c), "first-wins");
        assert_eq!(Pair::parse(&c, "last-wins,first-wins").unwrap().key(&c), "last-wins,first-wins");
        assert_eq!(Pair::parse(&c, "strict-only,narrow-everywhere").unwrap().key(&c), "strict-only,narrow-everywhere");
        assert_eq!(Pair::parse(&c, "last-wins"), Err(PairError::SeedAlone));
        assert!(Pair::parse(&c, "nope").unwrap_err().to_string().contains("first-wins"));
        assert_eq!(
            Pair::parse(&c, "first-wins,first-wins"),
            Err(PairError::Itself("first-wins,first-wins".to_owned()))
        );
        assert_eq!(Pair::defaults(&c).len(), 10);
    }
}
