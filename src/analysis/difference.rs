//! How two readers' answers differ: its [`Class`] (which of them reads where the other reads
//! nothing) and a one-line account, what a person scanning a list of disagreements needs to
//! see to know which ones matter (`html: 3 chars → 7,121 chars` is a lost page; `log: 12
//! chars → 14 chars` is a draft's note).

use std::cmp::Reverse;
use std::collections::HashMap;

use crate::describe::{chars, plural, thousands};
use crate::exact::value::{JsString, Object, Value};
use crate::visible::visible;

/// At most this many field differences are named; the rest are counted.
const MAX_PARTS: usize = 3;
/// A key longer than this is cut.
const MAX_KEY: usize = 40;

/// Which way two answers that differ differ, read from the first reader to the second, as
/// the seed's comment counts "nine read differently and every one of the nine is a rescue":
/// a reply the second reads and the first does not is gained, the reverse lost, and one both
/// read, each otherwise, changed. Nothing read is nothing read however the caller came to
/// hold nothing (a throw, text that is not JSON, `null`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    /// The second reader reads it, the first reads nothing.
    Gained,
    /// The first reader reads it, the second reads nothing.
    Lost,
    /// Both read it, and read different values.
    Changed,
}

impl Class {
    /// Every class, in the order a report gives them.
    pub const ALL: [Class; 3] = [Class::Gained, Class::Lost, Class::Changed];

    /// Its name in reports and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Class::Gained => "gained",
            Class::Lost => "lost",
            Class::Changed => "changed",
        }
    }

    /// The class of the name, as [`Class::name`] gives it.
    pub fn named(name: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.name() == name)
    }

    pub fn index(self) -> usize {
        self as usize
    }

    /// What it means for a comparison from `first` to `second`, in a few words.
    pub fn meaning(self, first: &str, second: &str) -> String {
        match self {
            Class::Gained => format!("{second} reads, {first} not"),
            Class::Lost => format!("{first} reads, {second} not"),
            Class::Changed => "both read, otherwise".to_owned(),
        }
    }
}

/// How `to` differs from `from`: its class and its [`account`]; `None` when they are equal.
pub fn difference(from: Option<&Value>, to: Option<&Value>) -> Option<(Class, String)> {
    let class = match (from, to) {
        (None, Some(_)) => Class::Gained,
        (Some(_), None) => Class::Lost,
        _ => Class::Changed,
    };
    account(from, to).map(|a| (class, a))
}

/// How `to` differs from `from`, in one line, the most telling difference first; `None`
/// when they are equal. `None` stands for JavaScript's `null`: nothing read.
pub fn account(from: Option<&Value>, to: Option<&Value>) -> Option<String> {
    let parts = parts(from, to);
    if parts.len() <= MAX_PARTS {
        return (!parts.is_empty()).then(|| parts.join("; "));
    }
    let more = parts.len() - MAX_PARTS;
    Some(format!("{}; +{} more", parts[..MAX_PARTS].join("; "), thousands(more)))
}

/// Every difference [`account`] names or counts, most telling first: one for values that
/// are not two objects, one per differing field for two objects (none when equal).
pub fn parts(from: Option<&Value>, to: Option<&Value>) -> Vec<String> {
    match (from, to) {
        (None, None) => Vec::new(),
        (None, Some(v)) => vec![format!("null → value {}", shape(v))],
        (Some(v), None) => vec![format!("value {} → null", shape(v))],
        (Some(a), Some(b)) if a == b => Vec::new(),
        (Some(Value::Object(a)), Some(Value::Object(b))) => objects(a, b),
        (Some(a), Some(b)) => vec![change(a, b).text],
    }
}

/// An object by its keys (the first few), anything else as [`crate::describe::leaf`] says it.
fn shape(v: &Value) -> String {
    match v {
        Value::Object(o) if !o.is_empty() => shape_of(o),
        other => crate::describe::leaf(other),
    }
}

fn shape_of(o: &Object) -> String {
    let mut keys: Vec<String> = o.iter().take(MAX_PARTS + 1).map(|(k, _)| key(&k.to_string_lossy())).collect();
    if o.len() > MAX_PARTS + 1 {
        keys.truncate(MAX_PARTS);
        keys.push(format!("+{} more", thousands(o.len() - MAX_PARTS)));
    }
    format!("{{{}}}", keys.join(", "))
}

fn key(k: &str) -> String {
    let shown = visible(k, false);
    if shown.chars().count() <= MAX_KEY {
        shown
    } else {
        let cut: String = shown.chars().take(MAX_KEY - 1).collect();
        format!("{cut}…")
    }
}

/// How telling a difference is: sorted ascending, the most telling comes first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Weight {
    /// A flag or a number that changed: `faithful: false → true` is the verdict itself.
    Scalar,
    /// A size that changed, a field one answer lacks, another kind of value: by how many
    /// times the larger is the smaller (a missing value counting as size 0), so `html: 3
    /// chars → 7,121 chars` comes before `log: 3 chars → 43 chars`.
    Size(Reverse<usize>),
    /// Same size, other content.
    Content,
}

/// A value's size plus one: characters, entries or fields; 1 for a scalar.
fn magnitude(v: &Value) -> usize {
    1 + match v {
        Value::String(s) => s.char_len(),
        Value::Array(a) => a.len(),
        Value::Object(o) => o.len(),
        _ => 0,
    }
}

/// How many times the larger size is the smaller.
fn ratio(x: usize, y: usize) -> Weight {
    Weight::Size(Reverse(x.max(y) / x.min(y).max(1)))
}

struct Change {
    weight: Weight,
    text: String,
}

/// How `b` differs from `a`, two values known to differ, at the top level only.
fn change(a: &Value, b: &Value) -> Change {
    let sized = |what: &dyn Fn(usize) -> String, x: usize, y: usize, same: &str| {
        if x == y {
            Change { weight: Weight::Content, text: format!("{}, {same}", what(x)) }
        } else {
            Change { weight: ratio(x + 1, y + 1), text: format!("{} → {}", what(x), what(y)) }
        }
    };
    match (a, b) {
        (Value::String(x), Value::String(y)) => sized(&chars, x.char_len(), y.char_len(), "other text"),
        (Value::Array(x), Value::Array(y)) => sized(&items, x.len(), y.len(), "other entries"),
        (Value::Object(x), Value::Object(y)) => sized(&fields, x.len(), y.len(), "other values"),
        _ if a.kind() == b.kind() => Change {
            weight: Weight::Scalar,
            text: format!("{} → {}", crate::describe::leaf(a), crate::describe::leaf(b)),
        },
        _ => Change {
            weight: ratio(magnitude(a), magnitude(b)),
            text: format!("kind changed, {} → {}", a.kind(), b.kind()),
        },
    }
}

fn items(n: usize) -> String {
    plural(n, "item", "items")
}

fn fields(n: usize) -> String {
    plural(n, "field", "fields")
}

/// An object's fields by name. Its keys are the reply's, hashed as the walks' maps hash
/// positions: seeded at random per map, so a reply cannot choose keys that collide.
type Fields<'a> = HashMap<&'a JsString, &'a Value, foldhash::fast::RandomState>;

/// Two objects that differ: the fields that do, most telling first.
fn objects(a: &Object, b: &Object) -> Vec<String> {
    // By key, not by searching: an answer can have as many fields as the reply has bytes.
    let in_a: Fields = a.iter().collect();
    let in_b: Fields = b.iter().collect();
    if !a.iter().any(|(k, _)| in_b.contains_key(k)) {
        // Not one field in common: another object altogether, said by its fields.
        return vec![format!("{} → {}", shape_of(a), shape_of(b))];
    }
    let mut parts: Vec<Change> = Vec::new();
    // A field's name is written only where it differs.
    let name = |k: &JsString| key(&k.to_string_lossy());
    for (k, va) in a.iter() {
        match in_b.get(k) {
            None => parts.push(Change { weight: ratio(magnitude(va), 1), text: format!("{}: gone", name(k)) }),
            Some(&vb) if va != vb => {
                let c = change(va, vb);
                parts.push(Change { text: format!("{}: {}", name(k), c.text), ..c });
            }
            Some(_) => {}
        }
    }
    for (k, vb) in b.iter() {
        if !in_a.contains_key(k) {
            let text = format!("{}: new, {}", name(k), crate::describe::leaf(vb));
            parts.push(Change { weight: ratio(1, magnitude(vb)), text });
        }
    }
    if parts.is_empty() {
        // Equal field by field, unequal as values: only the order of the keys differs.
        return vec!["the same fields in another order".to_owned()];
    }
    // Stable: equally telling differences stay in the order of the fields.
    parts.sort_by_key(|c| c.weight);
    parts.into_iter().map(|c| c.text).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::js::parse;

    fn acc(a: &str, b: &str) -> Option<String> {
        let v = |s: &str| if s == "null" { None } else { Some(parse(s).unwrap()) };
        account(v(a).as_ref(), v(b).as_ref())
    }

    #[test]
    fn a_lost_page_reads_as_its_size() {
        let long = "x".repeat(7121);
        let real = format!(
            r#"{{"html": "{long}", "log": "Page 17. Table 3 continues beyond this page", "suggested_agent": null}}"#
        );
        let template = r#"{ "html": "...", "log": "...", "suggested_agent": null }"#;
        assert_eq!(acc(template, &real).unwrap(), "html: 3 chars → 7,121 chars; log: 3 chars → 43 chars");
    }

    #[test]
    fn a_kind_change_ranks_by_size_too() {
        let long = "x".repeat(6161);
        let real = format!(r#"{{"suggested_agent": "table-agent", "html": "{long}"}}"#);
        assert_eq!(
            acc(r#"{"suggested_agent": null, "html": "..."}"#, &real).unwrap(),
            "html: 3 chars → 6,161 chars; suggested_agent: kind changed, null → string"
        );
    }

    #[test]
    fn a_flipped_flag_comes_before_sizes_and_missing_fields() {
        let decoy = r#"{"faithful": true, "problems": []}"#;
        let verdict = r#"{"faithful": false, "problems": [{"row": 3}], "notes": "I first read it as"}"#;
        assert_eq!(
            acc(decoy, verdict).unwrap(),
            "faithful: true → false; notes: new, \"I first read it as\"; problems: 0 items → 1 item"
        );
        assert_eq!(acc(verdict, decoy).unwrap(), "faithful: false → true; notes: gone; problems: 1 item → 0 items");
    }

    #[test]
    fn an_empty_object_or_array_is_said_as_it_is() {
        assert_eq!(acc("null", "{}").unwrap(), "null → value {}");
        assert_eq!(acc("[]", "null").unwrap(), "value [] → null");
        assert_eq!(acc("{}", r#"{"a":1}"#).unwrap(), "{} → {a}");
        assert_eq!(acc(r#"{"a":1}"#, r#"{"a":1,"b":{},"c":[]}"#).unwrap(), "b: new, {}; c: new, []");
        assert_eq!(acc(r#"{"a":[]}"#, r#"{"a":{}}"#).unwrap(), "a: kind changed, array → object");
    }

    #[test]
    fn null_and_other_kinds() {
        assert_eq!(acc("null", r#"{"issues": [1,2,3,4,5]}"#).unwrap(), "null → value {issues}");
        assert_eq!(acc(r#"{"a":1,"b":2,"c":3,"d":4,"e":5}"#, "null").unwrap(), "value {a, b, c, +2 more} → null");
        assert_eq!(acc("[1]", r#"{"a":1}"#).unwrap(), "kind changed, array → object");
        assert_eq!(acc("[1,2]", "[1]").unwrap(), "2 items → 1 item");
        assert_eq!(acc(r#"{"a":1,"b":2}"#, r#"{"b":2,"a":1}"#).unwrap(), "the same fields in another order");
        assert_eq!(acc(r#"{"a":"xy"}"#, r#"{"a":"yx"}"#).unwrap(), "a: 2 chars, other text");
        assert_eq!(acc(r#"{"a":"x"}"#, r#"{"a":"x"}"#), None);
        assert_eq!(
            acc(r#"{"issue":"x","severity":"low"}"#, r#"{"faithful":false}"#).unwrap(),
            "{issue, severity} → {faithful}"
        );
        assert_eq!(acc("{}", r#"{"a":1}"#).unwrap(), "{} → {a}");
        assert_eq!(acc("null", "null"), None);
    }

    #[test]
    fn each_difference_has_its_class() {
        let v = |s: &str| if s == "null" { None } else { Some(parse(s).unwrap()) };
        let class = |a: &str, b: &str| difference(v(a).as_ref(), v(b).as_ref()).map(|(c, _)| c);
        assert_eq!(class("null", "{}"), Some(Class::Gained));
        assert_eq!(class("[1]", "null"), Some(Class::Lost));
        assert_eq!(class("[1]", "[2]"), Some(Class::Changed));
        assert_eq!(class(r#"{"a":1,"b":2}"#, r#"{"b":2,"a":1}"#), Some(Class::Changed));
        assert_eq!(class("[1]", "[1]"), None);
        assert_eq!(class("null", "null"), None);
        for c in Class::ALL {
            assert_eq!(Class::named(c.name()), Some(c));
            assert_eq!(serde_json::to_string(&c).unwrap(), format!("\"{}\"", c.name()));
        }
    }

    #[test]
    fn many_differences_are_counted_not_listed() {
        let (a, b) = (r#"{"a":1,"b":2,"c":3,"d":4,"e":5}"#, r#"{"a":2,"b":3,"c":4,"d":5,"e":6}"#);
        assert_eq!(acc(a, b).unwrap(), "a: 1 → 2; b: 2 → 3; c: 3 → 4; +2 more");
        let (a, b) = (parse(a).unwrap(), parse(b).unwrap());
        assert_eq!(parts(Some(&a), Some(&b)).len(), 5);
    }
}
