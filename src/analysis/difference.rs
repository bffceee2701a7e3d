//! How two readers' answers differ: its [`Class`] (which of them reads where the other reads
//! nothing) and a one-line account, what a person scanning a list of disagreements needs to
//! see to know which ones matter (`html: 3 chars → 7,121 chars` is a lost page; `log: 12
//! chars → 14 chars` is a draft's note).

use std::cmp::Reverse;
use std::collections::HashMap;

use crate::describe::{push_plural, push_thousands};
use crate::exact::value::{JsString, Object, Value};
use crate::visible::{is_printable_ascii, visible};

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
///
/// Only the differences named are written: a scan writes an account for every reply two
/// readers read differently (9,900 over the 2,949 replies of a round of the hard campaign),
/// each onto one string.
pub fn account(from: Option<&Value>, to: Option<&Value>) -> Option<String> {
    let found = found(from, to);
    if found.is_empty() {
        return None;
    }
    let mut out = String::new();
    for (i, part) in found.iter().take(MAX_PARTS).enumerate() {
        if i > 0 {
            out.push_str("; ");
        }
        part.write(&mut out);
    }
    if found.len() > MAX_PARTS {
        out.push_str("; +");
        push_thousands(&mut out, found.len() - MAX_PARTS);
        out.push_str(" more");
    }
    Some(out)
}

/// Every difference [`account`] names or counts, most telling first: one for values that
/// are not two objects, one per differing field for two objects (none when equal).
pub fn parts(from: Option<&Value>, to: Option<&Value>) -> Vec<String> {
    found(from, to)
        .iter()
        .map(|part| {
            let mut text = String::new();
            part.write(&mut text);
            text
        })
        .collect()
}

/// The differences of [`parts`], most telling first, not yet written.
fn found<'v>(from: Option<&'v Value>, to: Option<&'v Value>) -> Vec<Part<'v>> {
    match (from, to) {
        (None, None) => Vec::new(),
        (None, Some(v)) => vec![Part::Gained(v)],
        (Some(v), None) => vec![Part::Lost(v)],
        (Some(a), Some(b)) if a == b => Vec::new(),
        (Some(Value::Object(a)), Some(Value::Object(b))) => objects(a, b),
        (Some(a), Some(b)) => vec![Part::Changed(None, change(a, b))],
    }
}

/// One difference, as [`Part::write`] says it.
enum Part<'v> {
    /// `null → value {a, b}`: the second reads, the first does not.
    Gained(&'v Value),
    /// `value {a, b} → null`.
    Lost(&'v Value),
    /// Two objects without a field in common, by their fields.
    Shapes(&'v Object, &'v Object),
    /// Two objects equal field by field, their keys in another order.
    Reordered,
    /// Two values that differ, the whole answers' (no key) or a field's.
    Changed(Option<&'v JsString>, Change<'v>),
    /// A field only the first has.
    Gone(&'v JsString),
    /// A field only the second has.
    New(&'v JsString, &'v Value),
}

impl Part<'_> {
    fn write(&self, out: &mut String) {
        match self {
            Part::Gained(v) => {
                out.push_str("null → value ");
                push_shape(out, v);
            }
            Part::Lost(v) => {
                out.push_str("value ");
                push_shape(out, v);
                out.push_str(" → null");
            }
            Part::Shapes(a, b) => {
                push_shape_of(out, a);
                out.push_str(" → ");
                push_shape_of(out, b);
            }
            Part::Reordered => out.push_str("the same fields in another order"),
            Part::Changed(k, c) => {
                if let Some(k) = k {
                    push_key(out, k);
                    out.push_str(": ");
                }
                c.write(out);
            }
            Part::Gone(k) => {
                push_key(out, k);
                out.push_str(": gone");
            }
            Part::New(k, v) => {
                push_key(out, k);
                out.push_str(": new, ");
                out.push_str(&crate::describe::leaf(v));
            }
        }
    }
}

/// An object by its keys (the first few), anything else as [`crate::describe::leaf`] says it.
fn push_shape(out: &mut String, v: &Value) {
    match v {
        Value::Object(o) if !o.is_empty() => push_shape_of(out, o),
        other => out.push_str(&crate::describe::leaf(other)),
    }
}

fn push_shape_of(out: &mut String, o: &Object) {
    out.push('{');
    // Four keys where it has four, else three and a count of the rest.
    let shown = if o.len() > MAX_PARTS + 1 { MAX_PARTS } else { o.len() };
    for (i, (k, _)) in o.iter().take(shown).enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        push_key(out, k);
    }
    if o.len() > shown {
        out.push_str(", +");
        push_thousands(out, o.len() - MAX_PARTS);
        out.push_str(" more");
    }
    out.push('}');
}

/// A key as a person can read it ([`visible`]), cut past [`MAX_KEY`] characters.
fn push_key(out: &mut String, k: &JsString) {
    // Most keys are a few letters of printable ASCII: cut by bytes, shown as they are.
    if let Some(k) = k.as_str().filter(|k| is_printable_ascii(k)) {
        match k.get(..MAX_KEY - 1).filter(|_| k.len() > MAX_KEY) {
            Some(cut) => {
                out.push_str(cut);
                out.push('…');
            }
            None => out.push_str(k),
        }
        return;
    }
    let shown = visible(&k.to_string_lossy(), false);
    match shown.char_indices().nth(MAX_KEY - 1).filter(|_| shown.chars().count() > MAX_KEY) {
        Some((cut, _)) => {
            out.push_str(&shown[..cut]);
            out.push('…');
        }
        None => out.push_str(&shown),
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

/// How two values known to differ differ, at the top level only.
struct Change<'v> {
    weight: Weight,
    how: How<'v>,
}

enum How<'v> {
    /// Two strings, arrays or objects, by their sizes.
    Sized { x: usize, y: usize, unit: Unit },
    /// Two scalars of one kind, as they are.
    Scalar(&'v Value, &'v Value),
    /// Two kinds of value.
    Kind(&'v Value, &'v Value),
}

#[derive(Clone, Copy)]
enum Unit {
    Chars,
    Items,
    Fields,
}

impl Unit {
    fn push(self, out: &mut String, n: usize) {
        match self {
            Unit::Chars => push_plural(out, n, "char", "chars"),
            Unit::Items => push_plural(out, n, "item", "items"),
            Unit::Fields => push_plural(out, n, "field", "fields"),
        }
    }

    /// What differs where the sizes are the same.
    fn other(self) -> &'static str {
        match self {
            Unit::Chars => "other text",
            Unit::Items => "other entries",
            Unit::Fields => "other values",
        }
    }
}

/// How `b` differs from `a`, two values known to differ, at the top level only.
fn change<'v>(a: &'v Value, b: &'v Value) -> Change<'v> {
    let sized = |x: usize, y: usize, unit: Unit| Change {
        weight: if x == y { Weight::Content } else { ratio(x + 1, y + 1) },
        how: How::Sized { x, y, unit },
    };
    match (a, b) {
        (Value::String(x), Value::String(y)) => sized(x.char_len(), y.char_len(), Unit::Chars),
        (Value::Array(x), Value::Array(y)) => sized(x.len(), y.len(), Unit::Items),
        (Value::Object(x), Value::Object(y)) => sized(x.len(), y.len(), Unit::Fields),
        _ if a.kind() == b.kind() => Change { weight: Weight::Scalar, how: How::Scalar(a, b) },
        _ => Change { weight: ratio(magnitude(a), magnitude(b)), how: How::Kind(a, b) },
    }
}

impl Change<'_> {
    fn write(&self, out: &mut String) {
        match self.how {
            How::Sized { x, y, unit } if x == y => {
                unit.push(out, x);
                out.push_str(", ");
                out.push_str(unit.other());
            }
            How::Sized { x, y, unit } => {
                unit.push(out, x);
                out.push_str(" → ");
                unit.push(out, y);
            }
            How::Scalar(a, b) => {
                out.push_str(&crate::describe::leaf(a));
                out.push_str(" → ");
                out.push_str(&crate::describe::leaf(b));
            }
            How::Kind(a, b) => {
                out.push_str("kind changed, ");
                out.push_str(a.kind());
                out.push_str(" → ");
                out.push_str(b.kind());
            }
        }
    }
}

/// An object's fields by name. Its keys are the reply's, hashed as the walks' maps hash
/// positions: seeded at random per map, so a reply cannot choose keys that collide.
type Fields<'a> = HashMap<&'a JsString, &'a Value, foldhash::fast::RandomState>;

/// An object's fields, looked up: by key in a map where the object is large, by a search
/// where it is small (most answers have a few fields, where building a map costs more than
/// searching). A key that repeats is its last field, as in a map built in order.
enum Lookup<'a> {
    Search(&'a Object),
    Map(Fields<'a>),
}

/// The most fields of two objects compared by searching, multiplied.
const SEARCHED: usize = 64;

impl<'a> Lookup<'a> {
    fn of(o: &'a Object, other: &Object) -> Lookup<'a> {
        // By key, not by searching, where both are large: an answer can have as many fields as
        // the reply has bytes.
        if o.len().saturating_mul(other.len()) <= SEARCHED {
            Lookup::Search(o)
        } else {
            Lookup::Map(o.iter().collect())
        }
    }

    fn get(&self, k: &JsString) -> Option<&'a Value> {
        match self {
            Lookup::Search(o) => o.iter().rev().find(|(key, _)| *key == k).map(|(_, v)| v),
            Lookup::Map(m) => m.get(k).copied(),
        }
    }
}

/// Two objects that differ: the fields that do, most telling first.
fn objects<'v>(a: &'v Object, b: &'v Object) -> Vec<Part<'v>> {
    let in_a = Lookup::of(a, b);
    let in_b = Lookup::of(b, a);
    if !a.iter().any(|(k, _)| in_b.get(k).is_some()) {
        // Not one field in common: another object altogether, said by its fields.
        return vec![Part::Shapes(a, b)];
    }
    // Each with how telling it is.
    let mut parts: Vec<(Weight, Part)> = Vec::new();
    for (k, va) in a.iter() {
        match in_b.get(k) {
            None => parts.push((ratio(magnitude(va), 1), Part::Gone(k))),
            Some(vb) if va != vb => {
                let c = change(va, vb);
                parts.push((c.weight, Part::Changed(Some(k), c)));
            }
            Some(_) => {}
        }
    }
    for (k, vb) in b.iter() {
        if in_a.get(k).is_none() {
            parts.push((ratio(1, magnitude(vb)), Part::New(k, vb)));
        }
    }
    if parts.is_empty() {
        // Equal field by field, unequal as values: only the order of the keys differs.
        return vec![Part::Reordered];
    }
    // Stable: equally telling differences stay in the order of the fields.
    parts.sort_by_key(|(weight, _)| *weight);
    parts.into_iter().map(|(_, part)| part).collect()
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
    fn keys_are_shown_as_a_person_reads_them_and_cut() {
        let long = "k".repeat(45);
        assert_eq!(
            acc(&format!(r#"{{"{long}": 1}}"#), &format!(r#"{{"{long}": 2}}"#)).unwrap(),
            format!("{}…: 1 → 2", "k".repeat(39))
        );
        let forty = "k".repeat(40);
        assert_eq!(acc(&format!(r#"{{"{forty}": 1, "a": 1}}"#), r#"{"a": 1}"#).unwrap(), format!("{forty}: gone"));
        let accented = "é".repeat(41);
        assert_eq!(
            acc(&format!(r#"{{"{accented}": 1}}"#), &format!(r#"{{"{accented}": 2}}"#)).unwrap(),
            format!("{}…: 1 → 2", "é".repeat(39))
        );
        assert_eq!(acc(r#"{"a\u0001": 1, "b": 1}"#, r#"{"b": 1}"#).unwrap(), "a␁: gone");
        assert_eq!(acc(r#"{"a\nb": true, "c": 1}"#, r#"{"a\nb": false, "c": 1}"#).unwrap(), "a␤b: true → false");
        assert_eq!(acc(r#"{"a":1,"b":2,"c":3,"d":4}"#, "null").unwrap(), "value {a, b, c, d} → null");
    }

    #[test]
    fn large_objects_read_the_same_as_small_ones() {
        // Past the fields compared by searching, looked up by key: the same account.
        let fields = |n: usize, changed: usize| {
            let body: Vec<String> =
                (0..n).map(|i| format!(r#""f{i}": {}"#, if i == changed { 2 } else { 1 })).collect();
            format!("{{{}}}", body.join(", "))
        };
        for n in [2, 8, 9, 30] {
            assert_eq!(acc(&fields(n, usize::MAX), &fields(n, n / 2)).unwrap(), format!("f{}: 1 → 2", n / 2), "{n}");
            let fewer = fields(n - 1, usize::MAX);
            assert_eq!(acc(&fields(n, usize::MAX), &fewer).unwrap(), format!("f{}: gone", n - 1), "{n}");
            assert_eq!(acc(&fewer, &fields(n, usize::MAX)).unwrap(), format!("f{}: new, 1", n - 1), "{n}");
        }
        let many: Vec<String> = (0..1000).map(|i| format!(r#""k{i}": {i}"#)).collect();
        let other: Vec<String> = (0..1000).map(|i| format!(r#""j{i}": {i}"#)).collect();
        assert_eq!(
            acc(&format!("{{{}}}", many.join(",")), &format!("{{{}}}", other.join(","))).unwrap(),
            "{k0, k1, k2, +997 more} → {j0, j1, j2, +997 more}"
        );
    }

    #[test]
    fn many_differences_are_counted_not_listed() {
        let (a, b) = (r#"{"a":1,"b":2,"c":3,"d":4,"e":5}"#, r#"{"a":2,"b":3,"c":4,"d":5,"e":6}"#);
        assert_eq!(acc(a, b).unwrap(), "a: 1 → 2; b: 2 → 3; c: 3 → 4; +2 more");
        let (a, b) = (parse(a).unwrap(), parse(b).unwrap());
        assert_eq!(parts(Some(&a), Some(&b)).len(), 5);
    }
}
