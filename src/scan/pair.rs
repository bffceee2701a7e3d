//! Two readers compared: an account of a difference reads from `from`'s answer to `to`'s.

use crate::readers::{Catalogue, ReaderId};

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
    pub fn parse(catalogue: &Catalogue, s: &str) -> Result<Pair, String> {
        match s.split_once(',') {
            Some((a, b)) => {
                let find = |s: &str| catalogue.find(s).map_err(|e| e.to_string());
                let pair = Pair { from: find(a)?, to: find(b)? };
                if pair.from == pair.to {
                    return Err(format!("{s:?} compares a reader with itself"));
                }
                Ok(pair)
            }
            None => {
                let r = catalogue.find(s).map_err(|e| e.to_string())?;
                if r == ReaderId::LAST_WINS {
                    return Err("last-wins is the seed; name the reader to compare it with".to_owned());
                }
                Ok(Pair { from: r, to: ReaderId::LAST_WINS })
            }
        }
    }
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
        assert!(Pair::parse(&c, "last-wins").is_err());
        assert!(Pair::parse(&c, "nope").unwrap_err().contains("first-wins"));
        assert!(Pair::parse(&c, "first-wins,first-wins").is_err());
        assert_eq!(Pair::defaults(&c).len(), 10);
    }
}
