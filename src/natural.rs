//! Natural order: names with numbers in them sorted as a person reads them, `round-2` before
//! `round-10`, `2025-5-9` before `2025-5-12`. Rounds, and the directories they are read
//! from, are ordered so wherever they are listed.
//!
//! Written here rather than taken from a crate: the ones there are (natord, after
//! `strnatcmp.c`) skip whitespace and align leading zeros to the left, which is not a total
//! order, and a sort over an order that is not total may panic. This one is: a run of ASCII
//! digits at the same place in both names is compared as a number (its digits past the
//! leading zeros, shorter first), any other character as itself, and names equal that way
//! are ordered by their bytes. No non-digit character falls between two digits, so a number
//! stands against a character as its first digit would, and the order is the byte order
//! but for the numbers.

use std::cmp::Ordering;
use std::ffi::OsStr;
use std::path::Path;

/// `a` against `b` in natural order.
pub fn cmp(a: &str, b: &str) -> Ordering {
    cmp_bytes(a.as_bytes(), b.as_bytes())
}

/// [`cmp`] of two file names, which may not be UTF-8: their bytes where they have them.
pub fn cmp_os(a: &OsStr, b: &OsStr) -> Ordering {
    cmp_bytes(a.as_encoded_bytes(), b.as_encoded_bytes())
}

/// Two paths, component by component, each in natural order: what a walk that sorts each
/// directory's names naturally finds first.
pub fn cmp_paths(a: &Path, b: &Path) -> Ordering {
    let mut x = a.components();
    let mut y = b.components();
    loop {
        match (x.next(), y.next()) {
            (Some(p), Some(q)) => match cmp_os(p.as_os_str(), q.as_os_str()) {
                Ordering::Equal => {}
                other => return other,
            },
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
        }
    }
}

fn cmp_bytes(a: &[u8], b: &[u8]) -> Ordering {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].is_ascii_digit() && b[j].is_ascii_digit() {
            let (x, next_i) = number(a, i);
            let (y, next_j) = number(b, j);
            // The longer number is the larger; of two as long, the one whose digits are.
            match x.len().cmp(&y.len()).then_with(|| x.cmp(y)) {
                Ordering::Equal => {}
                other => return other,
            }
            (i, j) = (next_i, next_j);
        } else {
            match a[i].cmp(&b[j]) {
                Ordering::Equal => {}
                other => return other,
            }
            i += 1;
            j += 1;
        }
    }
    (a.len() - i).cmp(&(b.len() - j)).then_with(|| a.cmp(b))
}

/// The digits of the number at `at` past its leading zeros, and where the run of digits ends.
fn number(s: &[u8], at: usize) -> (&[u8], usize) {
    let end = at + s[at..].iter().take_while(|c| c.is_ascii_digit()).count();
    let zeros = s[at..end].iter().take_while(|&&c| c == b'0').count();
    (&s[at + zeros..end], end)
}

/// A string ordered naturally: a key for the maps and sorts that order rounds.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Natural(pub String);

impl Ord for Natural {
    fn cmp(&self, other: &Natural) -> Ordering {
        cmp(&self.0, &other.0)
    }
}

impl PartialOrd for Natural {
    fn partial_cmp(&self, other: &Natural) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A JSON value printed with each object's keys in natural order (`round-2` before
/// `round-10`), where a map of JSON values keeps them in byte order: `{}` of it is the
/// value's compact text but for that order.
pub struct Json<'a>(pub &'a serde_json::Value);

impl serde::Serialize for Json<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self.0 {
            serde_json::Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort_by(|a, b| cmp(a, b));
                let mut m = s.serialize_map(Some(keys.len()))?;
                for k in keys {
                    m.serialize_entry(k, &Json(&map[k]))?;
                }
                m.end()
            }
            serde_json::Value::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(&Json(item))?;
                }
                seq.end()
            }
            other => other.serialize(s),
        }
    }
}

impl std::fmt::Display for Json<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = serde_json::to_string(self).map_err(|_| std::fmt::Error)?;
        f.write_str(&text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(names: &[&str]) -> Vec<String> {
        let mut v: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        v.sort_by(|a, b| cmp(a, b));
        v
    }

    #[test]
    fn numbers_in_names_are_numbers() {
        assert_eq!(
            sorted(&["round-10", "round-2", "round-1", "round-9", "round-11"]),
            ["round-1", "round-2", "round-9", "round-10", "round-11"]
        );
        // Dates as numbers, however they are padded.
        assert_eq!(
            sorted(&["bench-2025-5-12", "bench-2025-05-9", "bench-2024-12-31", "bench-2025-5-10"]),
            ["bench-2024-12-31", "bench-2025-05-9", "bench-2025-5-10", "bench-2025-5-12"]
        );
        // Leading zeros: the same number, told apart by the bytes; a longer one is larger.
        assert_eq!(sorted(&["r1", "r01", "r001", "r0010", "r2"]), ["r001", "r01", "r1", "r2", "r0010"]);
        // Names without numbers keep the byte order, and a number stands where its digit would.
        assert_eq!(sorted(&["b", "a-", "a1", "a_", "A", "(none)"]), ["(none)", "A", "a-", "a1", "a_", "b"]);
        assert_eq!(sorted(&["v1.10.2", "v1.9.12", "v1.10"]), ["v1.9.12", "v1.10", "v1.10.2"]);
        // Numbers longer than any integer.
        assert_eq!(cmp("n123456789012345678901234567890", "n99999999999999999999999999999"), Ordering::Greater);
    }

    #[test]
    fn only_a_name_equals_itself() {
        assert_eq!(cmp("round-01", "round-1"), Ordering::Less);
        assert_eq!(cmp("round-1", "round-1"), Ordering::Equal);
        assert_eq!(cmp("a b", "ab"), Ordering::Less);
        assert_eq!(cmp("", "0"), Ordering::Less);
    }

    #[test]
    fn paths_by_their_components() {
        let mut v = vec![
            Path::new("c/round-10/a/log.jsonl"),
            Path::new("c/round-2/b/log.jsonl"),
            Path::new("c/round-2/a/log.jsonl"),
            Path::new("c/round-2.txt"),
            Path::new("c/round-1/z/log.jsonl"),
        ];
        v.sort_by(|a, b| cmp_paths(a, b));
        assert_eq!(
            v,
            [
                Path::new("c/round-1/z/log.jsonl"),
                Path::new("c/round-2/a/log.jsonl"),
                Path::new("c/round-2/b/log.jsonl"),
                Path::new("c/round-2.txt"),
                Path::new("c/round-10/a/log.jsonl"),
            ]
        );
    }

    #[test]
    fn json_keys_in_natural_order_and_nothing_else_changed() {
        let v = serde_json::json!({"by_round": {"round-10": 1, "round-2": [{"b": 2, "a": "x\u{1}"}]}, "a": 1.5});
        assert_eq!(Json(&v).to_string(), r#"{"a":1.5,"by_round":{"round-2":[{"a":"x\u0001","b":2}],"round-10":1}}"#);
        let plain = serde_json::json!({"b": [1, null, true], "a": {"c": "d"}});
        assert_eq!(Json(&plain).to_string(), plain.to_string());
    }

    /// A sort may rely on it: antisymmetric and transitive over names built of the parts
    /// where orders of this kind go wrong (digits, zeros, characters below and above them).
    #[test]
    fn it_is_a_total_order() {
        let parts = ["", "0", "00", "1", "01", "9", "10", "a", "-", "_", " ", "é"];
        let mut names = Vec::new();
        for a in parts {
            for b in parts {
                for c in ["", "1", "x"] {
                    names.push(format!("{a}{b}{c}"));
                }
            }
        }
        for x in &names {
            for y in &names {
                assert_eq!(cmp(x, y), cmp(y, x).reverse(), "{x:?} {y:?}");
                assert_eq!(cmp(x, y) == Ordering::Equal, x == y, "{x:?} {y:?}");
            }
        }
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        sorted.sort_by(|a, b| cmp(a, b));
        for w in sorted.windows(2) {
            assert_eq!(cmp(&w[0], &w[1]), Ordering::Less);
        }
        for (i, x) in sorted.iter().enumerate() {
            for y in &sorted[i + 1..] {
                assert_eq!(cmp(x, y), Ordering::Less, "{x:?} {y:?}");
            }
        }
    }
}
