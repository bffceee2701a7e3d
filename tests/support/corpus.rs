//! The deterministic corpus of LLM replies that bracewalk's readers are compared against.
//!
//! Every reply here is generated from a seed by a hand-written splitmix64, with no crate in the
//! loop, because `tests/golden/expected.jsonl` is what the seed oracle (node, `shared/oracle`)
//! printed for exactly these bytes: a generator whose output drifted with a dependency bump would
//! silently turn every golden into a comparison against nothing. Each shape draws from its own
//! stream (the seed mixed with the shape's name), so adding a shape leaves the others unchanged.
//!
//! The shapes are the catalogue in the seed comments (`shared/seeds/000_*`): scratch templates
//! before the answer, drafts, unescaped quotes followed by every kind of character, restarts
//! mid-string, quoted decoys, truncation, JavaScript whitespace; plus the readers of seeds 001
//! (bounded first-wins) and 002 (leading values, JSON cut short). Ids are `<shape>-<n>`, so a
//! failing id says which shape broke. See `tests/golden/README.md`.
//!
//! Used by `examples/corpus.rs` (which prints it) and by tests that `#[path]`-include it.
#![allow(dead_code)]

use std::collections::BTreeMap;

/// One reply and the fields `readArrayPrefix` is asked about (`None`: the oracle's default,
/// `["edits"]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub id: String,
    pub text: String,
    pub fields: Option<Vec<String>>,
}

/// The seed the checked-in goldens were generated from.
pub const GOLDEN_SEED: u64 = 0x6272_6163_6577_616c; // "bracewal"

/// The brace-laden families `adversarial` builds, for benchmarks and the golden corpus.
pub const ADVERSARIAL_FAMILIES: &[&str] = &[
    "open-brace",
    "key-colon",
    "key-colon-quote",
    "quote-brace",
    "nested-error",
    "brace-bracket",
    "escaped-quotes",
    "valid-then-braces",
    "empty-objects",
    "quote-colon",
    "small-objects",
];

/// Sizes at which the adversarial families enter the golden corpus. The seed walk is quadratic
/// in the number of `{`, so these stay small; benchmarks ask `adversarial` for bigger ones.
pub const GOLDEN_ADVERSARIAL_SIZES: &[usize] = &[2048, 4096, 8192];

/// The limits of seed 001 (`extractJsonObject`), in UTF-16 code units and attempts.
pub const SEED001_MAX_INPUT: usize = 256 * 1024;
pub const SEED001_MAX_ATTEMPTS: usize = 50;

/// The 62-character scratch template of issue #170: pretty-printed, two-space indent.
pub const TEMPLATE: &str = "{\n  \"html\": \"...\",\n  \"log\": \"...\",\n  \"suggested_agent\": null\n}";
/// The same template on one line (56 characters).
pub const TEMPLATE_ONE_LINE: &str = r#"{ "html": "...", "log": "...", "suggested_agent": null }"#;

// ---------------------------------------------------------------------------------------------
// The generator's randomness: splitmix64, written out so it can never change under us.

/// splitmix64 (Steele, Lea, Flood 2014), the whole of the corpus's randomness.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng { state: seed }
    }

    /// A stream for one named purpose, independent of every other name's.
    pub fn for_name(seed: u64, name: &str) -> Self {
        // FNV-1a over the name, then mixed with the seed.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in name.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        let mut r = Rng::new(seed ^ h);
        r.next_u64();
        r
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (0 when `n` is 0). The modulo bias is irrelevant at these sizes.
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next_u64() % n as u64) as usize }
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        if hi <= lo { lo } else { lo + self.below(hi - lo + 1) }
    }

    /// A size in `lo..=hi` that is mostly near `lo`: each doubling is half as likely as the last.
    pub fn size(&mut self, lo: usize, hi: usize) -> usize {
        let lo = lo.max(1);
        let mut x = lo;
        let mut top = lo;
        while top < hi {
            top = (top * 2).min(hi);
            if self.chance(1, 2) {
                x = top;
            } else {
                break;
            }
        }
        let floor = if x == lo { lo } else { x / 2 };
        self.range(floor, x)
    }

    /// A size in `lo..=hi` spread evenly over its octaves (`lo..2lo`, `2lo..4lo`, ...).
    pub fn octave(&mut self, lo: usize, hi: usize) -> usize {
        let lo = lo.max(1);
        let mut octaves = vec![lo];
        while let Some(&top) = octaves.last() {
            if top >= hi {
                break;
            }
            octaves.push((top * 2).min(hi));
        }
        let i = self.below(octaves.len().saturating_sub(1).max(1));
        let a = octaves[i];
        let b = octaves.get(i + 1).copied().unwrap_or(a);
        self.range(a, b)
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        den != 0 && self.next_u64() % den < num
    }

    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

// ---------------------------------------------------------------------------------------------
// Vocabulary.

const WORDS: &[&str] = &[
    "revenue",
    "table",
    "fiscal",
    "district",
    "page",
    "total",
    "county",
    "sales",
    "receipts",
    "general",
    "fund",
    "Southeast",
    "row",
    "column",
    "continues",
    "footnote",
    "estimated",
    "percent",
    "schedule",
    "appropriation",
    "balance",
    "transfer",
    "annual",
    "report",
    "section",
    "income",
    "property",
    "tax",
    "levy",
    "assessed",
    "valuation",
    "school",
    "board",
    "capital",
    "outlay",
    "debt",
    "service",
    "interest",
    "principal",
    "bond",
    "issue",
    "series",
    "maturity",
    "federal",
    "state",
    "local",
    "grant",
    "program",
    "expenditure",
    "personnel",
    "benefits",
    "contract",
    "services",
    "supplies",
    "equipment",
    "other",
    "net",
    "change",
    "beginning",
    "ending",
    "year",
    "quarter",
    "month",
    "adopted",
    "amended",
    "actual",
    "variance",
    "budget",
    "selective",
    "gross",
    "operating",
    "special",
    "enterprise",
    "water",
    "sewer",
    "transit",
    "library",
    "parks",
    "police",
    "fire",
    "health",
    "housing",
    "region",
    "Northwest",
    "Central",
    "the",
    "of",
    "and",
    "in",
    "for",
    "to",
    "a",
    "is",
    "on",
    "by",
    "with",
    "as",
    "from",
    "at",
    "this",
    "that",
    "which",
    "each",
    "all",
    "not",
    "was",
    "are",
    "be",
    "its",
    "per",
    "into",
];

const UNICODE_WORDS: &[&str] = &[
    "税収",
    "東京都",
    "表3",
    "合計",
    "歳入",
    "한국어",
    "합계",
    "Ωμέγα",
    "naïve",
    "café",
    "Zoë",
    "e\u{301}",
    "a\u{308}\u{304}",
    "n\u{303}o",
    "\u{1F600}",
    "\u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467}",
    "\u{1D518}\u{1D52B}\u{1D526}",
    "\u{1F1EB}\u{1F1F7}",
    "\u{FB01}nance",
    "İstanbul",
    "Straße",
    "\u{05E9}\u{05DC}\u{05D5}\u{05DD}",
    "\u{0645}\u{0631}\u{062D}\u{0628}\u{0627}",
    "\u{2603}",
    "\u{10348}",
    "\u{1F4C8}",
    "\u{20AC}12",
    "\u{00BD}",
    "\u{2014}",
    "\u{2026}",
];

const LOGS: &[&str] = &[
    "Page 17. Table 3 continues beyond this page",
    "Transcribed page; two-column layout merged into reading order",
    "Converted table with 6 columns; header row repeated from previous page",
    "Footnotes moved to the end of the section",
    "Chart described in alt text; values read from the axis labels",
    "Page is blank except for the running header",
    "Corrected three values flagged by the checker",
    "Merged the continuation of Table 3 from page 16",
    "ok",
    "done",
];

const DRAFT_LOGS: &[&str] = &[
    "RESTART",
    "Intermediate attempt abandoned \u{2014} column count in the Southeast row does not match",
    "Draft 1 \u{2014} abandoned",
    "first pass, superseded below",
    "abandoned: merged cells read wrong",
];

const AGENTS: &[&str] = &["null", "\"table-agent\"", "\"figure-agent\"", "\"math-agent\"", "null", "null"];

/// JavaScript's `\s` / `String.prototype.trim` set, beyond ASCII.
pub const JS_SPACE: &[char] = &[
    '\u{0009}', '\u{000B}', '\u{000C}', '\u{0020}', '\u{00A0}', '\u{1680}', '\u{2000}', '\u{2001}', '\u{2002}',
    '\u{2003}', '\u{2004}', '\u{2005}', '\u{2006}', '\u{2007}', '\u{2008}', '\u{2009}', '\u{200A}', '\u{2028}',
    '\u{2029}', '\u{202F}', '\u{205F}', '\u{3000}', '\u{FEFF}', '\n', '\r',
];
/// Characters that look like whitespace and are not in JavaScript's set.
pub const NOT_JS_SPACE: &[char] = &['\u{0085}', '\u{180E}', '\u{200B}', '\u{200C}', '\u{2060}'];

// ---------------------------------------------------------------------------------------------
// Small text helpers.

/// A JSON string literal for `s`, escaped by serde_json.
pub fn q(s: &str) -> String {
    serde_json::Value::String(s.to_owned()).to_string()
}

/// A string literal written the way a careless model writes one: no escaping at all.
fn raw(s: &str) -> String {
    format!("\"{s}\"")
}

/// The largest char boundary at or below `i`.
pub fn floor_boundary(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn cut(s: &str, i: usize) -> String {
    s[..floor_boundary(s, i)].to_owned()
}

fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

fn repeat_to(unit: &str, size: usize) -> String {
    let mut s = unit.repeat(size / unit.len().max(1) + 1);
    s.truncate(floor_boundary(&s, size));
    s
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    Compact,
    Spaced,
    Pretty,
    PrettyCrlf,
}

/// An object from keys (written as given, unescaped) and value texts (written as given).
fn obj(layout: Layout, fields: &[(&str, String)]) -> String {
    let mut s = String::new();
    match layout {
        Layout::Compact => {
            s.push('{');
            for (i, (k, v)) in fields.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                s.push_str(&format!("\"{k}\":{v}"));
            }
            s.push('}');
        }
        Layout::Spaced => {
            s.push_str("{ ");
            for (i, (k, v)) in fields.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                s.push_str(&format!("\"{k}\": {v}"));
            }
            s.push_str(" }");
        }
        Layout::Pretty | Layout::PrettyCrlf => {
            let nl = if layout == Layout::Pretty { "\n" } else { "\r\n" };
            s.push('{');
            s.push_str(nl);
            for (i, (k, v)) in fields.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                    s.push_str(nl);
                }
                s.push_str(&format!("  \"{k}\": {v}"));
            }
            s.push_str(nl);
            s.push('}');
        }
    }
    s
}

/// A JSON array of value texts.
fn arr(layout: Layout, items: &[String]) -> String {
    match layout {
        Layout::Compact => format!("[{}]", items.join(",")),
        Layout::Spaced => format!("[{}]", items.join(", ")),
        Layout::Pretty => format!("[\n    {}\n  ]", items.join(",\n    ")),
        Layout::PrettyCrlf => format!("[\r\n    {}\r\n  ]", items.join(",\r\n    ")),
    }
}

fn env(layout: Layout, html: String, log: String, agent: &str) -> String {
    obj(layout, &[("html", html), ("log", log), ("suggested_agent", agent.to_owned())])
}

// ---------------------------------------------------------------------------------------------
// The text generator: words, prose, pages, envelopes.

struct G {
    rng: Rng,
}

impl G {
    fn new(seed: u64, name: &str) -> Self {
        G { rng: Rng::for_name(seed, name) }
    }

    fn chance(&mut self, num: u64, den: u64) -> bool {
        self.rng.chance(num, den)
    }

    fn range(&mut self, lo: usize, hi: usize) -> usize {
        self.rng.range(lo, hi)
    }

    fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        self.rng.pick(xs).clone()
    }

    fn word(&mut self) -> &'static str {
        let pool = if self.rng.chance(1, 40) { UNICODE_WORDS } else { WORDS };
        pool[self.rng.below(pool.len())]
    }

    fn words(&mut self, n: usize) -> String {
        let mut s = String::new();
        for i in 0..n {
            if i > 0 {
                s.push(' ');
            }
            s.push_str(self.word());
        }
        s
    }

    fn sentence(&mut self) -> String {
        let n = self.range(4, 14);
        let mut s = self.words(n);
        if let Some(c) = s.chars().next()
            && c.is_ascii_lowercase()
        {
            let up = c.to_ascii_uppercase().to_string();
            s.replace_range(..1, &up);
        }
        s.push(*self.rng.pick(&['.', '.', '.', ':', '?', '!']));
        s
    }

    /// Prose of at least `len` bytes in ASCII only.
    fn ascii_prose(&mut self, len: usize) -> String {
        let mut s = String::new();
        while s.len() < len {
            s.push_str(WORDS[self.rng.below(WORDS.len())]);
            s.push(if self.chance(1, 12) { '\n' } else { ' ' });
        }
        s
    }

    /// Prose of at least `len` bytes with no braces, brackets or quotes in it.
    fn prose(&mut self, len: usize) -> String {
        let mut s = String::new();
        while s.len() < len {
            if !s.is_empty() {
                s.push_str(if self.chance(1, 5) { "\n\n" } else { " " });
            }
            s.push_str(&self.sentence());
        }
        s
    }

    fn cell(&mut self) -> String {
        match self.rng.below(7) {
            0 => format!("{}", self.rng.below(100_000)),
            1 => format!("{},{:03}", self.range(1, 999), self.rng.below(1000)),
            2 => format!("${}.{} million", self.range(1, 900), self.rng.below(10)),
            3 => format!("{}.{}%", self.rng.below(100), self.rng.below(10)),
            4 => format!("({})", self.range(1, 9999)),
            5 => "\u{2014}".to_owned(),
            _ => {
                let n = self.rng.range(1, 3);
                self.words(n)
            }
        }
    }

    fn table(&mut self, rows: usize, cols: usize) -> String {
        let mut s = String::from("<table><thead><tr>");
        for _ in 0..cols {
            s.push_str(&format!("<th>{}</th>", {
                let n = self.rng.range(1, 3);
                self.words(n)
            }));
        }
        s.push_str("</tr></thead><tbody>");
        for _ in 0..rows {
            s.push_str("<tr>");
            for c in 0..cols {
                let v = if c == 0 {
                    {
                        let n = self.rng.range(1, 4);
                        self.words(n)
                    }
                } else {
                    self.cell()
                };
                s.push_str(&format!("<td>{v}</td>"));
            }
            s.push_str("</tr>");
        }
        s.push_str("</tbody></table>");
        s
    }

    /// An HTML page of roughly `target` bytes, with no quotes or braces in it.
    fn page(&mut self, target: usize) -> String {
        let mut s = String::new();
        if self.chance(1, 2) {
            s.push_str(&format!("<h2>{}</h2>", {
                let n = self.rng.range(2, 6);
                self.words(n)
            }));
        }
        while s.len() < target {
            let room = target - s.len();
            match self.rng.below(6) {
                0..=2 => {
                    let n = self.rng.range(20, 400).min(room.max(20));
                    let p = self.prose(n);
                    s.push_str(&format!("<p>{p}</p>"));
                }
                3 => {
                    let mut l = String::from("<ul>");
                    for _ in 0..self.rng.range(2, 5) {
                        l.push_str(&format!("<li>{}</li>", self.sentence()));
                    }
                    l.push_str("</ul>");
                    s.push_str(&l);
                }
                4 if room > 300 => {
                    let cols = self.rng.range(2, 7);
                    let rows = (room / (cols * 18)).clamp(1, 40);
                    let rows = self.rng.range(1, rows);
                    s.push_str(&self.table(rows, cols));
                }
                _ => s.push_str(&format!("<h3>{}</h3>", {
                    let n = self.rng.range(1, 5);
                    self.words(n)
                })),
            }
        }
        s
    }

    /// A page that is mostly one table, about `target` bytes.
    fn table_page(&mut self, target: usize) -> String {
        let cols = self.rng.range(4, 7);
        let mut s = format!("<h2>Table 3. {}</h2>", self.words(4));
        let mut rows = 4;
        let mut t = self.table(rows, cols);
        while s.len() + t.len() < target {
            rows += 4;
            t = self.table(rows, cols);
        }
        s.push_str(&t);
        s
    }

    fn layout(&mut self) -> Layout {
        match self.rng.below(10) {
            0..=2 => Layout::Compact,
            3..=5 => Layout::Spaced,
            6..=8 => Layout::Pretty,
            _ => Layout::PrettyCrlf,
        }
    }

    fn log(&mut self) -> String {
        if self.chance(1, 3) { self.sentence() } else { self.pick(LOGS).to_owned() }
    }

    fn agent(&mut self) -> String {
        self.pick(AGENTS).to_owned()
    }

    /// A well-formed envelope around a page of about `size` bytes.
    fn envelope(&mut self, size: usize) -> String {
        let l = self.layout();
        let html = self.page(size);
        let log = self.log();
        let agent = self.agent();
        env(l, q(&html), q(&log), &agent)
    }

    fn ascii_space(&mut self) -> &'static str {
        self.pick(&["", "", "", "\n", "\n\n", " ", "  \n", "\r\n", "\t", " \n \n"])
    }

    fn fence_open(&mut self) -> &'static str {
        self.pick(&["```json\n", "```json\n", "```JSON\n", "```\n", "~~~json\n", "```json\r\n", "``` json\n"])
    }

    fn fenced(&mut self, body: &str) -> String {
        let open = self.fence_open();
        let close = if open.starts_with('~') { "\n~~~" } else { "\n```" };
        format!("{open}{body}{close}")
    }

    fn preamble(&mut self) -> String {
        let lead = self.pick(&[
            "Here is the corrected page:",
            "I'll carefully re-read the image for all the flagged values.",
            "Looking at the page image, the table has six columns.",
            "Sure. The transcription follows.",
            "Verdict:",
            "After checking every row against the image:",
        ]);
        let more = if self.chance(1, 2) {
            let n = self.rng.size(40, 1500);
            format!(" {}", self.prose(n))
        } else {
            String::new()
        };
        format!("{lead}{more}")
    }

    fn wrap_context(&mut self, body: &str) -> (String, &'static str) {
        match self.rng.below(6) {
            0..=2 => (body.to_owned(), "whole"),
            3 => {
                let p = self.preamble();
                let sep = self.pick(&["\n\n", "\n", " "]);
                (format!("{p}{sep}{body}"), "preamble")
            }
            4 => {
                let f = self.fenced(body);
                if self.chance(1, 2) {
                    let p = self.preamble();
                    (format!("{p}\n\n{f}"), "fenced")
                } else {
                    (f, "fenced")
                }
            }
            _ => {
                let p = self.preamble();
                let t = {
                    let n = self.rng.range(20, 200);
                    self.prose(n)
                };
                (format!("{p}\n\n{body}\n\n{t}"), "trailing")
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The corpus being built.

struct Corpus {
    records: Vec<Record>,
    counts: BTreeMap<String, usize>,
}

impl Corpus {
    fn new() -> Self {
        Corpus { records: Vec::new(), counts: BTreeMap::new() }
    }

    fn add(&mut self, shape: &str, text: String) {
        self.add_fields(shape, text, None);
    }

    fn add_fields(&mut self, shape: &str, text: String, fields: Option<&[&str]>) {
        let n = self.counts.entry(shape.to_owned()).or_insert(0);
        let id = format!("{shape}-{n}");
        *n += 1;
        self.records.push(Record { id, text, fields: fields.map(|f| f.iter().map(|s| (*s).to_owned()).collect()) });
    }
}

// ---------------------------------------------------------------------------------------------
// The shapes. Each takes its own stream.

/// The envelope alone, as the prompt asks: the whole text parses.
fn shape_plain(c: &mut Corpus, seed: u64) {
    let mut g = G::new(seed, "plain");
    for _ in 0..250 {
        let n = g.rng.size(40, 4000);
        let e = g.envelope(n);
        let (a, b) = (g.ascii_space(), g.ascii_space());
        c.add("plain", format!("{a}{e}{b}"));
    }
}

/// The envelope in a markdown fence, with and without prose around it.
fn shape_fenced(c: &mut Corpus, seed: u64) {
    let mut g = G::new(seed, "fenced");
    for _ in 0..200 {
        let n = g.rng.size(40, 3000);
        let e = g.envelope(n);
        let f = g.fenced(&e);
        let pre = if g.chance(2, 3) { format!("{}\n\n", g.preamble()) } else { String::new() };
        let post = if g.chance(1, 3) { format!("\n\n{}", g.prose(80)) } else { String::new() };
        c.add("fenced", format!("{pre}{f}{post}"));
    }
}

/// Prose, then the envelope, sometimes prose after it.
fn shape_preamble(c: &mut Corpus, seed: u64) {
    let mut g = G::new(seed, "preamble");
    for _ in 0..200 {
        let n = g.rng.size(40, 3000);
        let e = g.envelope(n);
        let p = g.preamble();
        let post = if g.chance(1, 3) { format!("\n\n{}", g.prose(60)) } else { g.ascii_space().to_owned() };
        c.add("preamble", format!("{p}\n\n{e}{post}"));
    }
}

/// Issue #170: a parseable scratch template while thinking, the real envelope later.
fn shape_scratch_template(c: &mut Corpus, seed: u64) {
    let mut g = G::new(seed, "scratch-template");
    for i in 0..150 {
        let tpl = if g.chance(1, 2) { TEMPLATE } else { TEMPLATE_ONE_LINE };
        let n = g.rng.size(200, 3000);
        let mut t = if i % 6 == 5 {
            // The reply opens with the template itself.
            format!("{tpl}\n\nActually, filling it in properly: ")
        } else {
            format!(
                "I'll carefully re-read the image for all the flagged values. {}\n\nThe output has to be:\n\n{tpl}\n\n{}\n\n",
                g.prose(n),
                g.prose(100)
            )
        };
        let m = g.rng.size(100, 4000);
        let real = g.envelope(m);
        match i % 6 {
            0 | 5 => t.push_str(&real),
            1 => t.push_str(&g.fenced(&real)),
            2 => t.push_str("I will stop here; the page is unreadable."),
            3 => {
                let k = g.range(real.len() / 3, real.len().saturating_sub(2));
                t.push_str(&cut(&real, k));
            }
            _ => {
                // The real one needs the quote repair.
                let html = format!("<p>The sign reads \"CLOSED\" today</p>{}", g.page(m));
                t.push_str(&env(g.layout(), raw(&html), q(&g.log()), "null"));
            }
        }
        if g.chance(1, 4) {
            t.push_str(g.ascii_space());
        }
        c.add("scratch-template", t);
    }
}

/// Several fenced drafts; the last is the answer (and may be shorter than the one before).
fn shape_drafts(c: &mut Corpus, seed: u64) {
    let mut g = G::new(seed, "drafts");
    for _ in 0..150 {
        let k = g.range(2, 5);
        let mut t = g.preamble();
        for d in 0..k {
            let last = d + 1 == k;
            let log = if last { g.log() } else { g.pick(DRAFT_LOGS).to_owned() };
            let n = g.rng.size(200, 2500);
            let html = g.page(n);
            let e = env(g.layout(), q(&html), q(&log), &g.agent());
            t.push_str("\n\n");
            if !last && g.chance(1, 4) {
                let k = g.range(10, e.len() - 1);
                t.push_str(g.fence_open());
                t.push_str(&cut(&e, k));
                t.push_str("\n\nRESTART\n");
            } else {
                t.push_str(&g.fenced(&e));
                if !last {
                    t.push_str(&format!("\n\n{}", g.prose(60)));
                }
            }
        }
        if g.chance(1, 3) {
            t.push_str("\n\nThis version fixes the column count.");
        }
        c.add("drafts", t);
    }
}

/// What follows an unescaped `"` inside a string decides what the repair makes of it.
const FOLLOWERS: &[(&str, &str)] = &[
    ("letter", "hello there"),
    ("space", " world"),
    ("comma", ", he replied"),
    ("brace", "} of the set"),
    ("bracket", "] in the list"),
    ("colon", ": 5 units"),
    ("quote", "\" twice"),
    ("newline", "\nnext line"),
    ("crlf", "\r\nnext line"),
    ("tab", "\tnext cell"),
    ("nbsp-comma", "\u{00A0}, then"),
    ("ideo-colon", "\u{3000}: then"),
    ("nel", "\u{0085}, then"),
    ("eot", ""),
];

fn shape_unescaped_quote(c: &mut Corpus, seed: u64) {
    let mut g = G::new(seed, "quote");
    for (kind, follow) in FOLLOWERS {
        let shape = format!("quote-then-{kind}");
        for i in 0..40 {
            let n = g.rng.size(20, 600);
            let page = g.page(n);
            let log = g.log();
            let l = g.layout();
            if *kind == "eot" {
                // The text ends on the quote.
                let t = match i % 4 {
                    0 => "{\"html\": \"<p>She said \"".to_owned(),
                    1 => format!("{{\"html\": {}, \"log\": \"he wrote \"", q(&page)),
                    2 => format!("{}\n\n{{\"log\": {}, \"html\": \"{page} \"", g.preamble(), q(&log)),
                    _ => format!("{{\"html\": \"{page}\"\"",),
                };
                c.add(&shape, t);
                continue;
            }
            let inner = match i % 5 {
                0 => format!("<p>She said \"{follow} and left.</p>{page}"),
                1 => format!("{page}<p>He wrote \"quoted\"{follow} again</p>"),
                2 => format!("<p>Use {{ to open; \"{follow}</p>{page}"),
                3 => format!("<p>Totals \"{follow}</p>"),
                _ => format!("{page}<blockquote><p>\"(1) bring together{follow}</p></blockquote>"),
            };
            let e = if i % 7 == 6 {
                env(l, q(&page), raw(&format!("{log} \"{follow}")), "null")
            } else {
                env(l, raw(&inner), q(&log), &g.agent())
            };
            let (t, _) = if i % 3 == 0 { (e, "whole") } else { g.wrap_context(&e) };
            c.add(&shape, t);
        }
    }
}

/// Raw control characters inside strings: newlines, CR, tabs (repaired) and others (not).
fn shape_raw_control(c: &mut Corpus, seed: u64) {
    let mut g = G::new(seed, "raw-control");
    let controls = ["\n", "\r\n", "\t", "\r", "\n\n", "\u{0001}", "\u{000B}", "\u{000C}", "\u{0000}", "\u{001F}"];
    for i in 0..150 {
        let ctl = if i % 5 == 4 { g.pick(&controls[5..]) } else { g.pick(&controls[..5]) };
        let n = g.rng.size(40, 1500);
        let mut html = g.page(n);
        for _ in 0..g.range(1, 6) {
            let at = floor_boundary(&html, g.rng.below(html.len()));
            html.insert_str(at, ctl);
        }
        let log = if g.chance(1, 3) { format!("line one{ctl}line two") } else { g.log() };
        let e = env(g.layout(), raw(&html), raw(&log), "null");
        let (t, _) = g.wrap_context(&e);
        c.add("raw-control", t);
    }
}

const BACKSLASHES: &[&str] = &[
    "(visible as '\\' before 'MEASURES')",
    "C:\\new\\folder",
    "C:\\Users\\q",
    "a \\q b",
    "code \\u12 end",
    "\\u12G4",
    "caf\\u00e9",
    "CAF\\u00C9",
    "\\\\server\\share",
    "1\\/2",
    "\\x41",
    "\\0",
    "it\\'s",
    "\\U00e9",
    "\\u{1F600}",
    "\\ud83d\\ude00",
    "\\ud800 alone",
    "ends with \\",
    "\\\\",
    "\\\\\\",
    "\\u00",
    "\\uD83D",
    "\\b\\f\\n\\r\\t",
    "50\\% off",
];

fn shape_backslash(c: &mut Corpus, seed: u64) {
    let mut g = G::new(seed, "backslash");
    for i in 0..250 {
        let b = BACKSLASHES[i % BACKSLASHES.len()];
        let n = g.rng.size(20, 800);
        let page = g.page(n);
        let html = match g.rng.below(3) {
            0 => format!("<p>{b}</p>{page}"),
            1 => format!("{page}<p>{b}</p>"),
            _ => format!("{page}{b}"),
        };
        let e = if g.chance(1, 5) {
            env(g.layout(), q(&page), raw(b), "null")
        } else {
            env(g.layout(), raw(&html), q(&g.log()), &g.agent())
        };
        let t = if i % 25 == 24 {
            // A backslash as the reply's last character.
            format!("{}\\", cut(&e, e.len() / 2))
        } else {
            g.wrap_context(&e).0
        };
        c.add("backslash", t);
    }
}

const DECOYS: &[&str] = &[
    "{html, log, suggested_agent}",
    "{ html, log, suggested_agent }",
    "{html: string, log: string, suggested_agent: string | null}",
    "{\"html\": <the page>, \"log\": <notes>}",
    "{...}",
    "{{html}}",
    "${html}",
    "{x}",
    "{",
    "}",
    "{}",
    "{ \"html\": \"...\", \"log\": \"...\" }",
];

/// Feedback verdicts of #168: the first `{` is a decoy quoted in prose.
fn shape_decoy_prose(c: &mut Corpus, seed: u64) {
    let mut g = G::new(seed, "decoy-prose");
    for i in 0..150 {
        let d = DECOYS[i % DECOYS.len()];
        let n = g.rng.size(40, 1500);
        let e = g.envelope(n);
        let lead = format!("The contract is {d}, so the reply must carry all three fields. {}", g.prose(60));
        let t = match g.rng.below(5) {
            0..=2 => format!("{lead}\n\n{e}"),
            3 => format!("{lead}\n\n{}", g.fenced(&e)),
            // The traded case: a decoy AFTER the answer.
            _ => format!("{e}\n\nAs required by {d}."),
        };
        c.add("decoy-prose", t);
    }
}

fn problems(g: &mut G, k: usize) -> String {
    let mut items = Vec::new();
    for _ in 0..k {
        let l = if g.chance(1, 2) { Layout::Compact } else { Layout::Spaced };
        let row = format!("{}", g.range(1, 40));
        let issue = q(&g.sentence());
        items.push(obj(l, &[("row", row), ("issue", issue)]));
    }
    arr(Layout::Spaced, &items)
}

const QUOTED_NO_STRINGS: &[&str] = &[
    "{ \"faithful\": true, \"problems\": [] }",
    "{\"faithful\": true, \"problems\": []}",
    "{ \"faithful\": true, \"problems\": [], \"score\": 0.9 }",
    "{ \"faithful\": true }",
    "{ \"faithful\": true, \"problems\": [ { \"row\": 3 } ] }",
    "{ \"problems\": [], \"faithful\": true, \"unjudged\": false }",
];
const QUOTED_WITH_STRINGS: &[&str] = &[
    "{ \"faithful\": true, \"problems\": [], \"notes\": \"\" }",
    "{ \"faithful\": true, \"problems\": [\"none\"] }",
    "{\"faithful\": true, \"notes\": \"ok\"}",
    "{ \"faithful\": true, \"problems\": [{ \"row\": 3, \"issue\": \"missing\" }] }",
];

fn verdict_with_notes(g: &mut G, notes: &str) -> String {
    let k = g.range(0, 3);
    let p = problems(g, k);
    let l = if g.chance(1, 4) { Layout::Pretty } else { Layout::Spaced };
    obj(l, &[("faithful", "false".to_owned()), ("problems", p), ("notes", raw(notes))])
}

fn notes_quoting(g: &mut G, decoy: &str) -> String {
    match g.rng.below(4) {
        0 => format!("I first read the contract as {decoy}; it is not."),
        1 => format!("At first I thought {decoy} was right, but row 3 is missing."),
        2 => format!("{decoy} would be the answer if the totals matched"),
        _ => format!("Not {decoy}. {}", g.sentence()),
    }
}

/// Issue #339 and its residuals: a verdict whose notes quote the contract back.
fn shape_verdicts(c: &mut Corpus, seed: u64) {
    let mut g = G::new(seed, "verdict");
    for _ in 0..80 {
        let k = g.range(0, 4);
        let p = problems(&mut g, k);
        let f = if k == 0 { "true" } else { "false" };
        let l = g.layout();
        let notes = q(&g.sentence());
        let v = obj(l, &[("faithful", f.to_owned()), ("problems", p), ("notes", notes)]);
        let t = g.wrap_context(&v).0;
        c.add_fields("verdict-plain", t, Some(&["problems", "edits"]));
    }
    for i in 0..120 {
        let d = QUOTED_NO_STRINGS[i % QUOTED_NO_STRINGS.len()];
        let notes = notes_quoting(&mut g, d);
        let v = verdict_with_notes(&mut g, &notes);
        let (a, b) = if i % 4 == 3 {
            (g.pick(JS_SPACE).to_string(), g.pick(JS_SPACE).to_string())
        } else {
            (String::new(), g.ascii_space().to_owned())
        };
        c.add_fields("verdict-quote", format!("{a}{v}{b}"), if i % 3 == 0 { Some(&["problems"]) } else { None });
    }
    for i in 0..60 {
        let d = QUOTED_WITH_STRINGS[i % QUOTED_WITH_STRINGS.len()];
        let notes = notes_quoting(&mut g, d);
        let v = verdict_with_notes(&mut g, &notes);
        c.add("verdict-quote-str", v);
    }
    for i in 0..50 {
        let d = QUOTED_NO_STRINGS[i % QUOTED_NO_STRINGS.len()];
        let notes = notes_quoting(&mut g, d);
        let v = verdict_with_notes(&mut g, &notes);
        let p = g.preamble();
        c.add("verdict-quote-preamble", format!("{p}\n\n{v}"));
    }
    for i in 0..50 {
        let d = QUOTED_NO_STRINGS[i % QUOTED_NO_STRINGS.len()];
        let notes = notes_quoting(&mut g, d);
        let v = verdict_with_notes(&mut g, &notes);
        c.add("verdict-quote-fenced", g.fenced(&v));
    }
    for i in 0..40 {
        let d = QUOTED_NO_STRINGS[i % QUOTED_NO_STRINGS.len()];
        let notes = match i % 3 {
            0 => format!("The fields \"faithful\", \"problems\" and \"notes\" are required; I first read it as {d}."),
            1 => "I checked \"faithful\", then the rest.".to_owned(),
            _ => format!("Keys \"faithful\" , \"problems\": both present; {d} was my first reading"),
        };
        let v = verdict_with_notes(&mut g, &notes);
        c.add("verdict-quote-comma", v);
    }
    for i in 0..40 {
        // `}` where `]` belongs.
        let k = g.range(1, 3);
        let p = problems(&mut g, k);
        let p = match i % 3 {
            0 => format!("{}}}", &p[..p.len() - 1]),
            1 => p.replacen(']', "}", 1),
            _ => p.replace(']', ""),
        };
        let v = obj(g.layout(), &[("faithful", "false".to_owned()), ("problems", p), ("notes", q(&g.sentence()))]);
        let t = if i % 2 == 0 { v } else { format!("{}\n{v}", g.preamble()) };
        c.add_fields("verdict-bracket", t, Some(&["problems"]));
    }
    for i in 0..40 {
        // `{issues: [...]}` whose issues need the quote repair.
        let mut items = Vec::new();
        for j in 0..g.range(1, 6) {
            let text =
                if j % 2 == 0 { raw(&format!("The label \"{}\" is misspelt", g.words(2))) } else { q(&g.sentence()) };
            items.push(obj(Layout::Spaced, &[("issue", text), ("row", format!("{j}"))]));
        }
        let v = obj(g.layout(), &[("issues", arr(Layout::Pretty, &items)), ("faithful", "false".to_owned())]);
        let t = if i % 2 == 0 { v } else { g.wrap_context(&v).0 };
        c.add_fields("verdict-issues", t, Some(&["issues", "problems"]));
    }
}

/// A draft abandoned mid-string and restarted inline (#168), in its variants.
fn shape_restarts(c: &mut Corpus, seed: u64) {
    let mut g = G::new(seed, "restart");
    let tables = |g: &mut G| {
        let n = g.rng.size(60, 1200);
        g.table_page(n)
    };
    for i in 0..300 {
        let abandoned = match i % 4 {
            0 => "<p>Table 3 continues".to_owned(),
            1 => format!("<p>{}", g.prose(40)),
            2 => format!("<h2>{}</h2><p>{}", g.words(3), g.words(5)),
            _ => format!("{}<p>draft continues", g.page(120)),
        };
        let sep = g.pick(&["\n", "\n\n", " ", "", "\r\n"]);
        let opener =
            if i % 9 == 8 { "{\"log\": \"draft\", \"html\": \"".to_owned() } else { "{\"html\": \"".to_owned() };
        let (shape, restarted) = match i % 6 {
            0 | 1 => ("restart", tables(&mut g)),
            2 => ("restart-brace", format!("<p>use the }} token</p>{}", tables(&mut g))),
            3 => ("restart-unreadable", format!("<p>Note \"Total\": 5</p>{}", tables(&mut g))),
            4 => ("restart-nested", format!("<p>Note \"Total\": 5</p>{}", tables(&mut g))),
            _ => ("restart-tail", tables(&mut g)),
        };
        let agent = if shape == "restart-nested" {
            "{\"name\": \"table-agent\", \"reason\": \"continuation\"}".to_owned()
        } else {
            g.agent()
        };
        let l = if g.chance(1, 2) { Layout::Spaced } else { Layout::Compact };
        let rest = env(l, raw(&restarted), q(&g.log()), &agent);
        let mut t = format!("{opener}{abandoned}{sep}{rest}");
        if shape == "restart-tail" {
            t.push_str(&format!("\n\n{}", g.sentence()));
        } else if g.chance(1, 4) {
            t.push_str(g.ascii_space());
        }
        c.add(shape, t);
    }
}

/// Reader verdicts that quote `{"html":"…` in prose ahead of the real answer.
fn shape_reader_quote(c: &mut Corpus, seed: u64) {
    let mut g = G::new(seed, "reader-quote");
    for i in 0..150 {
        let page = {
            let n = g.rng.size(30, 400);
            g.page(n)
        };
        let log = g.log();
        let quoted = match i % 4 {
            0 => format!(
                "The agent returned {{\"html\":\"{page}\", and its \"log\": \"{log}\", with \"suggested_agent\": null}}."
            ),
            1 => format!("It wrote {{\"html\":\"<table>\u{2026}</table>\" and then \"log\": \"{log}\"."),
            2 => "The reply opened {\"html\":\"<p>Section 4\" but then stopped.".to_owned(),
            _ => {
                format!("Its envelope {{\"html\":\"{page}\",\"log\":\"{log}\",\"suggested_agent\":null}} drops row 4.")
            }
        };
        let mut issues = Vec::new();
        for j in 0..5 {
            let issue = q(&format!("Row {} {}", j + 1, g.sentence()));
            issues.push(obj(Layout::Spaced, &[("row", format!("{}", j + 1)), ("issue", issue)]));
        }
        let ans = obj(g.layout(), &[("issues", arr(Layout::Pretty, &issues)), ("faithful", "false".to_owned())]);
        let t = format!("{}\n\n{quoted}\n\n{}\n\n{ans}", g.preamble(), g.prose(80));
        c.add_fields("reader-quote", t, if i % 2 == 0 { Some(&["issues"]) } else { None });
    }
}

/// `}` where `]` belongs, and other mismatched brackets.
fn shape_bracket_mismatch(c: &mut Corpus, seed: u64) {
    let mut g = G::new(seed, "bracket-mismatch");
    let forms = [
        "{\"problems\": [{\"a\": 1}, {\"b\": 2}}, \"notes\": \"x\"}",
        "{\"a\": [1, 2}",
        "{\"a\": {\"b\": [1}}",
        "{\"a\": [1, 2]]}",
        "{\"a\": 1]",
        "[{\"a\": 1}}",
        "{\"edits\": [{\"find\": \"a\", \"replace\": \"b\"}}, \"x\": 1}",
        "{\"fragments\": [{\"id\": 1}, {\"id\": 2}}}",
    ];
    for i in 0..100 {
        let base = forms[i % forms.len()];
        let t = match g.rng.below(3) {
            0 => base.to_owned(),
            1 => format!("{}\n\n{base}", g.preamble()),
            _ => format!("{base}\n{}", g.sentence()),
        };
        c.add_fields("bracket-mismatch", t, if i % 2 == 0 { Some(&["problems", "edits", "fragments"]) } else { None });
    }
}

/// Page replies that are bare HTML: not one brace.
fn shape_bare_html(c: &mut Corpus, seed: u64) {
    let mut g = G::new(seed, "bare-html");
    for i in 0..100 {
        let n = g.rng.size(40, 3000);
        let mut t = g.page(n);
        if i % 4 == 0 {
            let k = g.range(1, t.len());
            t = cut(&t, k);
        }
        if i % 5 == 0 {
            t = format!("<p>She said \"no\" and left; &#123; is a brace.</p>{t}");
        }
        if i % 7 == 0 {
            t = g.prose(200);
        }
        c.add("bare-html", t);
    }
}

fn edits_entries(g: &mut G, k: usize) -> Vec<String> {
    (0..k)
        .map(|_| {
            let l = if g.chance(1, 2) { Layout::Compact } else { Layout::Spaced };
            let find = {
                let n = g.rng.range(1, 6);
                g.words(n)
            };
            let repl = {
                let n = g.rng.range(1, 6);
                g.words(n)
            };
            if g.chance(1, 12) {
                obj(l, &[("find", raw(&format!("the \"{find}\" label"))), ("replace", q(&repl))])
            } else {
                obj(l, &[("find", q(&find)), ("replace", q(&repl))])
            }
        })
        .collect()
}

fn edits_reply(g: &mut G, k: usize) -> String {
    let e = edits_entries(g, k);
    let l = g.layout();
    let summary = q(&g.sentence());
    obj(l, &[("edits", arr(l, &e)), ("summary", summary)])
}

const FIELD_SETS: &[&[&str]] =
    &[&["edits", "problems", "fragments"], &["edits"], &["fragments"], &["problems", "issues"], &[], &["edits", "a.b"]];

/// Copy Editor rounds: `edits` arrays complete, cut mid-entry, quoted, repeated.
fn shape_edits(c: &mut Corpus, seed: u64) {
    let mut g = G::new(seed, "edits");
    for i in 0..400 {
        let fields = if i % 3 == 0 { Some(FIELD_SETS[(i / 3) % FIELD_SETS.len()]) } else { None };
        let k = g.range(1, 12);
        let reply = edits_reply(&mut g, k);
        let (shape, t) = match i % 8 {
            0 => ("edits-complete", g.wrap_context(&reply).0),
            1 | 2 => {
                // Cut somewhere inside the array, usually mid-entry.
                let open = reply.find('[').unwrap_or(0);
                let close = reply.rfind(']').unwrap_or(reply.len());
                let k = g.range(open + 1, close);
                let pre = if g.chance(1, 3) { format!("{}\n", g.preamble()) } else { String::new() };
                ("edits-cut", format!("{pre}{}", cut(&reply, k)))
            }
            3 => {
                let close = reply.rfind(']').unwrap_or(0);
                let k = g.range(close + 1, reply.len().saturating_sub(1));
                ("edits-closed-cut", cut(&reply, k))
            }
            4 => {
                // A page that prints JSON: the key is quoted, with a backslash in front.
                let quoted = "<pre>{\\\"edits\\\": [{\\\"find\\\": \\\"a\\\", \\\"replace\\\": \\\"b\\\"}]}</pre>";
                let e = env(g.layout(), raw(quoted), q(&g.log()), "null");
                if g.chance(1, 2) { ("edits-escaped-key", e) } else { ("edits-escaped-key", format!("{e}\n\n{reply}")) }
            }
            5 => {
                let k2 = g.range(1, 5);
                let draft = edits_reply(&mut g, k2);
                let close = reply.rfind(']').unwrap_or(reply.len());
                let final_ = if g.chance(1, 2) { reply.clone() } else { cut(&reply, g.range(close / 2, close)) };
                ("edits-multi", format!("Draft:\n{draft}\n\nFinal:\n{final_}"))
            }
            6 => {
                let odd = [
                    "{\"edits\": []}",
                    "{\"edits\" : [ \"s/a/b/\", {\"find\": \"a\"} ]}",
                    "{\"edits\":[{\"find\":\"a\",\"replace\":\"b\"} {\"find\":\"c\",\"replace\":\"d\"}]}",
                    "{\"edits\":\u{00A0}[\u{3000}{\"find\":\"a\",\"replace\":\"b\"}\u{2028},\u{FEFF}{\"find\":\"c\",\"replace\":\"d\"}\u{0085},{\"find\":\"e\"}]}",
                    "{\"edits\":\n[\n,,{\"find\":\"a\"},,\n]}",
                    "{\"Edits\": [{\"find\": \"a\"}]}",
                    "{\"edits\": null}",
                    "{\"edits\":[{\"find\":\"x\",\"repl",
                    "{\"edits\":[{\"find\":\"a\",\"replace\":\"b\"},{\"find\":\"x\",\"repl",
                    "{\"edits\":[{\"find\":\"a\"}],\"edits\":[{\"find\":\"b\"},{\"find\":",
                    "\\\"edits\\\": [{\"find\": \"a\"}]",
                    "{\"edits\":[{\"find\":\"a\"}]}\\\"edits\": [{\"find\": \"z\"}]",
                    "{\"edits\": [{\"find\": \"a {\", \"replace\": \"}\"}, {\"find\": \"q\"",
                    "{\"edits\":[ {\"find\":\"a\"}, [1], {\"find\":\"b\"}]}",
                    "{\"a.b\": [{\"x\": 1}], \"aXb\": [{\"y\": 2}]}",
                ];
                ("edits-odd", odd[(i / 8) % odd.len()].to_owned())
            }
            _ => {
                // Fragments, cut mid-way: the walk can return one complete child.
                let mut fr = Vec::new();
                for j in 0..g.range(1, 5) {
                    let h = {
                        let n = g.rng.size(20, 300);
                        g.page(n)
                    };
                    fr.push(obj(Layout::Spaced, &[("id", format!("{j}")), ("html", q(&h))]));
                }
                let r = obj(g.layout(), &[("fragments", arr(Layout::Spaced, &fr)), ("log", q("ok"))]);
                let close = r.rfind(']').unwrap_or(r.len());
                let k = g.range(close / 2, r.len());
                ("edits-fragments", cut(&r, k))
            }
        };
        c.add_fields(shape, t, fields);
    }
}

/// Envelopes and other replies cut at many positions.
fn shape_truncated(c: &mut Corpus, seed: u64) {
    let mut g = G::new(seed, "truncated");
    for i in 0..45 {
        let base = match i % 5 {
            0 | 1 => {
                let n = g.rng.size(40, 1500);
                g.envelope(n)
            }
            2 => {
                let k = g.range(1, 4);
                let p = problems(&mut g, k);
                obj(g.layout(), &[("faithful", "false".to_owned()), ("problems", p), ("notes", q(&g.sentence()))])
            }
            3 => {
                let html = {
                    let n = g.rng.size(40, 800);
                    g.page(n)
                };
                obj(
                    g.layout(),
                    &[
                        ("html", q(&html)),
                        ("log", q(&g.log())),
                        ("suggested_agent", "{\"name\": \"table-agent\", \"meta\": {\"page\": 17}}".to_owned()),
                    ],
                )
            }
            _ => {
                let html = format!("<p>caf\\u00e9 \\ud83d\\ude00 tab\\there \\\"q\\\"</p>{}", g.page(200));
                env(g.layout(), raw(&html), q(&g.log()), "null")
            }
        };
        let pre = if i % 3 == 0 { format!("{}\n\n", g.preamble()) } else { String::new() };
        let mut cuts: Vec<usize> = (0..8).map(|_| g.range(1, base.len() - 1)).collect();
        cuts.push(1);
        cuts.push(base.len() - 1);
        cuts.sort_unstable();
        cuts.dedup();
        for k in cuts {
            c.add_fields(
                "truncated",
                format!("{pre}{}", cut(&base, k)),
                if i % 5 == 2 { Some(&["problems"]) } else { None },
            );
        }
    }
}

/// JSON5-isms a model writes: single quotes, trailing commas, comments, bare keys, NaN, hex.
fn shape_json5(c: &mut Corpus, seed: u64) {
    let mut g = G::new(seed, "json5");
    for i in 0..200 {
        let page = {
            let n = g.rng.size(20, 500);
            g.page(n)
        };
        let log = g.log();
        let body = match i % 12 {
            0 => format!("{{'html': '{page}', 'log': '{log}', 'suggested_agent': null}}"),
            1 => format!("{{\"html\": '<p>She said \"hi\"</p>', \"log\": \"{log}\"}}"),
            2 => format!("{{\"html\": {}, \"log\": {}, \"suggested_agent\": null,}}", q(&page), q(&log)),
            3 => format!("{{\n  // the page\n  \"html\": {},\n  /* notes */ \"log\": {}\n}}", q(&page), q(&log)),
            4 => format!("{{html: {}, log: {}, suggested_agent: null}}", q(&page), q(&log)),
            5 => format!("{{\"html\": {}, \"score\": NaN, \"max\": Infinity, \"min\": -Infinity}}", q(&page)),
            6 => format!("{{\"html\": {}, \"color\": 0x1F, \"n\": +1, \"f\": .5, \"g\": 5.}}", q(&page)),
            7 => format!("{{\"html\": {}, \"values\": [1, 2, 3,], \"log\": {}}}", q(&page), q(&log)),
            8 => format!("{{\"html\": \"line one\\\nline two\", \"log\": {}}}", q(&log)),
            9 => format!("/* reply */ {{\"html\": {}, \"log\": {}}} // end", q(&page), q(&log)),
            10 => format!("{{\"html\": {}, \"agent\": undefined, \"n\": 1_000}}", q(&page)),
            _ => format!("{{`html`: `{page}`, \"log\": {}}}", q(&log)),
        };
        let t = if i % 3 == 0 { g.wrap_context(&body).0 } else { body };
        c.add("json5", t);
    }
}

/// Several objects, one a line.
fn shape_jsonl(c: &mut Corpus, seed: u64) {
    let mut g = G::new(seed, "jsonl");
    for i in 0..100 {
        let k = g.range(2, 8);
        let nl = if i % 5 == 4 { "\r\n" } else { "\n" };
        let mut lines = Vec::new();
        for j in 0..k {
            let ev = q(&g.words(2));
            let line = if i % 7 == 3 && j == k / 2 {
                "{\"id\": 3, \"event\": broken}".to_owned()
            } else if i % 9 == 4 && j == 1 {
                format!("[{j}, {ev}]")
            } else {
                obj(Layout::Compact, &[("id", format!("{j}")), ("event", ev), ("ok", "true".to_owned())])
            };
            lines.push(line);
        }
        let mut t = lines.join(if i % 6 == 5 { "\n\n" } else { nl });
        if i % 4 == 1 {
            t.push_str(&format!("{nl}[identical call: {}]", g.words(3)));
        }
        if i % 3 == 2 {
            t.push_str(nl);
        }
        c.add("jsonl", t);
    }
}

/// Envelopes with nested objects that are not later answers.
fn shape_nested(c: &mut Corpus, seed: u64) {
    let mut g = G::new(seed, "nested-agent");
    for i in 0..100 {
        let html = {
            let n = g.rng.size(40, 1200);
            g.page(n)
        };
        let agent = match i % 3 {
            0 => "{\"name\": \"table-agent\"}".to_owned(),
            1 => "{\"name\": \"table-agent\", \"reason\": \"Table 3 continues\", \"pages\": [16, 17]}".to_owned(),
            _ => "{\"name\": \"figure-agent\", \"meta\": {\"page\": 17, \"box\": {\"x\": 1, \"y\": 2}}}".to_owned(),
        };
        let e = obj(g.layout(), &[("html", q(&html)), ("log", q(&g.log())), ("suggested_agent", agent)]);
        let t = match i % 5 {
            4 => {
                // Cut after the nested object closed: the walk reads the child.
                let at = e.rfind('}').unwrap_or(e.len());
                cut(&e, at)
            }
            _ => g.wrap_context(&e).0,
        };
        c.add("nested-agent", t);
    }
}

const ESCAPES: &[&str] = &[
    "\\u00e9",
    "\\u4e2d\\u6587",
    "\\ud83d\\ude00",
    "\\ud800",
    "\\udfff",
    "\\ude00\\ud83d",
    "\\uD800\\u0041",
    "\\ud83d",
    "\\u0000",
    "\\u001f",
    "\\u2028\\u2029",
    "\\uFEFF",
    "\\u0022",
    "\\u005c",
    "\\u007b\\u007d",
];

fn shape_unicode(c: &mut Corpus, seed: u64) {
    let mut g = G::new(seed, "unicode");
    for i in 0..250 {
        let words: String = (0..g.range(3, 30)).map(|_| *g.rng.pick(UNICODE_WORDS)).collect::<Vec<_>>().join(" ");
        let (shape, t) = match i % 5 {
            0 | 1 => {
                // Astral characters before the object move every UTF-16 offset.
                let e = env(g.layout(), q(&format!("<p>{words}</p>")), q(&g.log()), "null");
                let lead = if i % 2 == 0 { format!("{words}\n\n") } else { String::new() };
                ("unicode-raw", format!("{lead}{e}"))
            }
            2 | 3 => {
                let esc = ESCAPES[i % ESCAPES.len()];
                let e = env(g.layout(), raw(&format!("<p>{words} {esc}</p>")), q(&g.log()), "null");
                ("unicode-escape", g.wrap_context(&e).0)
            }
            _ => {
                // Unescaped quote followed by an astral char or a combining mark.
                let follow = g.pick(&["\u{1F600}", "\u{301}x", "\u{200B},", "\u{FEFF},", "\u{3000}}"]);
                let e = env(g.layout(), raw(&format!("<p>{words} \"{follow} end</p>")), q(&g.log()), "null");
                ("unicode-quote", format!("{words}{e}"))
            }
        };
        c.add(shape, t);
    }
}

fn spaces(g: &mut G, pool: &[char], n: usize) -> String {
    (0..n).map(|_| *g.rng.pick(pool)).collect()
}

/// JavaScript whitespace at both edges of the reply, and inside the repair's lookahead.
fn shape_js_space(c: &mut Corpus, seed: u64) {
    let mut g = G::new(seed, "js-space");
    for i in 0..300 {
        let n1 = g.range(0, 3);
        let n2 = g.range(0, 3);
        let (lead, trail) = match i % 4 {
            0 | 1 => (spaces(&mut g, JS_SPACE, n1.max(1)), spaces(&mut g, JS_SPACE, n2)),
            2 => (spaces(&mut g, NOT_JS_SPACE, 1), spaces(&mut g, JS_SPACE, n2)),
            _ => (
                spaces(&mut g, JS_SPACE, n1),
                format!("{}{}", spaces(&mut g, JS_SPACE, n2), spaces(&mut g, NOT_JS_SPACE, 1)),
            ),
        };
        let body = match (i / 4) % 6 {
            0 => {
                let n = g.rng.size(20, 600);
                g.envelope(n)
            }
            1 => {
                let d = QUOTED_NO_STRINGS[i % QUOTED_NO_STRINGS.len()];
                let n = notes_quoting(&mut g, d);
                verdict_with_notes(&mut g, &n)
            }
            2 => {
                let page = {
                    let n = g.rng.size(20, 400);
                    g.page(n)
                };
                env(g.layout(), raw(&format!("<p>She said \"hi\" twice</p>{page}")), q(&g.log()), "null")
            }
            3 => {
                // JS whitespace between the quote and what decides it.
                let ws = spaces(&mut g, JS_SPACE, 1);
                let f = g.pick(&[",", "}", "]", ":", "x"]);
                let page = {
                    let n = g.rng.size(20, 300);
                    g.page(n)
                };
                format!("{{\"html\": \"{page} \"{ws}{f} more\", \"log\": {}}}", q(&g.log()))
            }
            4 => {
                // JS whitespace between tokens, where JSON allows only four.
                let ws = spaces(&mut g, JS_SPACE, 1);
                format!("{{\"html\":{ws}{},{ws}\"log\":{ws}\"ok\"{ws}}}", q(&g.page(100)))
            }
            _ => format!("{{\"id\":{}}}\n{{\"id\":{}}}", g.range(1, 9999), g.range(1, 9999)),
        };
        c.add("js-space", format!("{lead}{body}{trail}"));
    }
}

const NUMBERS_VALID: &[&str] = &[
    "1e400",
    "-1e400",
    "-0",
    "-0.0",
    "12345678901234567890",
    "5e-324",
    "2e-324",
    "1e21",
    "1e20",
    "1e-7",
    "1e-6",
    "0.1",
    "-1.5E+3",
    "0.30000000000000004",
    "1.7976931348623157e308",
    "9007199254740993",
    "123456789012345680000",
    "1E400",
    "-1e-400",
    "0",
    "100",
    "2.5e+0",
    "1e0",
    "0.000001",
    "4294967295",
];
const NUMBERS_INVALID: &[&str] =
    &["012", "-012", "00", "01.5", "1.", ".5", "+1", "1e", "-", "0x10", "1e+", "--1", "1.2.3"];

fn shape_numbers(c: &mut Corpus, seed: u64) {
    let mut g = G::new(seed, "numbers");
    for i in 0..200 {
        let k = g.range(1, 8);
        let mut vals: Vec<String> = (0..k).map(|_| g.pick(NUMBERS_VALID).to_owned()).collect();
        let shape = if i % 4 == 3 {
            let at = g.rng.below(vals.len());
            vals[at] = g.pick(NUMBERS_INVALID).to_owned();
            "numbers-invalid"
        } else {
            "numbers"
        };
        let l = g.layout();
        let first = vals[0].clone();
        let o = obj(l, &[("values", arr(Layout::Spaced, &vals)), ("total", first), ("log", q(&g.log()))]);
        let t = match i % 3 {
            0 => o,
            1 => g.wrap_context(&o).0,
            _ => {
                // Cut after a number: seed 002 reads the leaves before it.
                let at = o.find(']').unwrap_or(o.len());
                cut(&o, at)
            }
        };
        c.add(shape, t);
    }
}

const KEY_OBJECTS: &[(&str, &str)] = &[
    ("keys-dup", "{\"a\": 1, \"a\": 2}"),
    ("keys-dup", "{\"html\": \"first\", \"log\": \"ok\", \"html\": \"second\"}"),
    ("keys-dup", "{\"a\": 1, \"\\u0061\": 2}"),
    ("keys-dup", "{\"a\": {\"x\": 1}, \"a\": [1, 2]}"),
    ("keys-int", "{\"b\":1,\"2\":2,\"a\":3,\"1\":4}"),
    ("keys-int", "{\"z\":0,\"10\":1,\"9\":2,\"01\":3,\"-1\":4,\"1.0\":5,\"4294967294\":6,\"4294967295\":7,\"0\":8}"),
    ("keys-int", "{\"html\":\"x\",\"3\":\"c\",\"log\":\"ok\",\"1\":\"a\",\"2\":\"b\"}"),
    ("keys-int", "{\"9007199254740993\":1,\"18446744073709551616\":2,\"5\":3,\" 1\":4,\"1 \":5}"),
    ("keys-proto", "{\"__proto__\": {\"polluted\": true}, \"a\": 1}"),
    ("keys-proto", "{\"a\": {\"__proto__\": null, \"b\": 2}}"),
    ("keys-proto", "{\"__proto__\": 1, \"constructor\": 2, \"toString\": 3, \"hasOwnProperty\": 4}"),
    ("keys-proto", "{\"__proto__\": [1, 2], \"__proto__\": \"x\"}"),
    ("keys-empty", "{\"\": 1, \" \": 2, \"\\u0000\": 3}"),
];

fn shape_keys(c: &mut Corpus, seed: u64) {
    let mut g = G::new(seed, "keys");
    for i in 0..156 {
        let (shape, o) = KEY_OBJECTS[i % KEY_OBJECTS.len()];
        let t = match (i / KEY_OBJECTS.len()) % 4 {
            0 => o.to_owned(),
            1 => format!("{}\n\n{o}", g.preamble()),
            2 => format!("{o}\n{o}"),
            _ => format!("{}{o}", cut(o, o.len() / 2)),
        };
        c.add(shape, t);
    }
}

/// Deep nesting, up to depth 2000.
fn shape_deep(c: &mut Corpus, seed: u64) {
    let mut g = G::new(seed, "deep");
    for &d in &[2usize, 10, 64, 100, 257, 500, 1000, 1500, 2000] {
        let o = format!("{}1{}", "{\"a\":".repeat(d), "}".repeat(d));
        c.add("deep-object", o.clone());
        let a = format!("{{\"a\": {}1{}}}", "[".repeat(d), "]".repeat(d));
        c.add("deep-array", a.clone());
        c.add("deep-array", format!("{}{}", "[".repeat(d), "]".repeat(d)));
        if d <= 500 {
            c.add("deep-object", format!("{}\n{o}", g.preamble()));
        }
        if d <= 600 {
            // Every level fails the wide rule; the narrow whole-reply reading recurses to the
            // bottom (the seed's `stringsAreSelfContained` overflows the stack near depth 5000).
            c.add("deep-whole-reply", format!("{}\"note \"Total\": 5\"{}", "{\"a\":".repeat(d), "}".repeat(d)));
            // A syntax error innermost: every level is a candidate that fails.
            c.add("deep-error", format!("{}tru{}", "{\"a\":".repeat(d), "}".repeat(d)));
        }
        // Cut short: open all the way down.
        c.add("deep-cut", format!("[{}", "[1,".repeat(d.min(1000))));
        if d <= 600 {
            c.add("deep-cut", cut(&o, o.len() - d / 2 - 1));
        }
        c.add("deep-cut", cut(&a, a.len() - d / 3 - 1));
    }
}

/// Seed 002: JSON values followed by notes, JSON cut short, text that is not JSON.
fn shape_served(c: &mut Corpus, seed: u64) {
    let mut g = G::new(seed, "served");
    let tool = |g: &mut G| -> String {
        let n = g.range(1, 5);
        let mut hosts = Vec::new();
        for _ in 0..n {
            let num = if g.chance(1, 4) { g.pick(NUMBERS_VALID).to_owned() } else { format!("{}", g.range(1, 9999)) };
            let up = g.pick(&["true", "false", "null"]).to_owned();
            let name = q(&format!("host-{} {}", g.range(1, 99), {
                let n = g.range(1, 4);
                g.words(n)
            }));
            hosts.push(obj(Layout::Compact, &[("id", num), ("up", up), ("name", name)]));
        }
        obj(Layout::Compact, &[("hosts", arr(Layout::Compact, &hosts)), ("count", format!("{n}"))])
    };
    for i in 0..100 {
        let k = g.range(1, 4);
        let vals: Vec<String> = (0..k)
            .map(|j| {
                if (i + j) % 3 == 2 {
                    format!("[{},{}]", g.range(1, 99), q(&g.words(2)))
                } else {
                    format!("{{\"id\":{}}}", g.range(1, 9999))
                }
            })
            .collect();
        let sep = g.pick(&["\n", "\n\n", " ", "", "\t", "\r\n", "\u{00A0}"]);
        let rest = g.pick(&[
            "[identical call: \u{2026}]",
            "Step 2/3: fetch hosts",
            "[effect] wrote 2 files",
            "",
            "{\"id\": 3",
            "note: {brace} in prose",
        ]);
        let sep2 = g.pick(&["\n\n", "\n", " ", ""]);
        c.add("served-values", format!("{}{}{sep2}{rest}", g.ascii_space(), vals.join(sep)));
    }
    for _ in 0..150 {
        let t = tool(&mut g);
        let k = g.range(1, t.len() - 1);
        c.add("served-cut", cut(&t, k));
    }
    for i in 0..100 {
        let body = match i % 6 {
            0 => "disk full on host-7 and mo".to_owned(),
            1 => g.words(1),
            2 => format!("{} ", {
                let n = g.range(2, 8);
                g.words(n)
            }),
            3 => "line\\nbreak and \\\"quote\\\" then wor".to_owned(),
            4 => "bad \\q escape then more wor".to_owned(),
            _ => {
                format!("{} \\u00e9t\u{00E9} {}", g.words(2), g.pick(&["\\u00", "\\", "\\ud83d", "x", "\\ud83d\\ude"]))
            }
        };
        let head = if i % 2 == 0 { format!("{{\"id\":{},\"msg\":\"", g.range(1, 9999)) } else { "[\"".to_owned() };
        c.add("served-cut-string", format!("{head}{body}"));
    }
    let texts = [
        "[INFO] starting worker 3",
        "{level=info msg=started}",
        "[2024-05-01T10:00:00Z] ok",
        "{\"a\":1} tail",
        "[1, 2, three]",
        "{\"a\":tru",
        "{\"a\":nul",
        "{\"a\":-",
        "{\"a\":1.5e",
        "{\"a\":1.5e-",
        "{\"a\":01",
        "{\"a\":1,}",
        "{\"a\":1}",
        "[]",
        "{",
        "[",
        "   {\"a\": [1, 2, 3], \"b\": {\"c\": \"d\"",
        "{\"a\":truex",
        "{'a': 1",
        "{a: 1",
        "{\"a\" 1",
        "[1 2 3",
        "{\"a\":1e400,\"b\":-0,\"c\":5e-324,\"d\":1e21,\"e\":0.1,\"f\":12345678901234567890,\"g\":1",
    ];
    for i in 0..60 {
        let t = texts[i % texts.len()];
        let t = if i >= texts.len() { format!("{}{t}", g.ascii_space()) } else { t.to_owned() };
        c.add("served-text", t);
    }
    let mismatch =
        ["{\"a\":[1,2}", "[1,2}", "{\"a\":1]", "[{\"a\":1]", "{\"a\":[{\"b\":2}}", "[[1]]]", "{\"a\":{}}}", "[}"];
    for i in 0..48 {
        let m = mismatch[i % mismatch.len()];
        let tail = if i >= mismatch.len() { format!(",\"x\":{}", g.range(1, 9)) } else { String::new() };
        c.add("served-mismatch", format!("{m}{tail}"));
    }
    let cuts =
        ["\\", "\\u", "\\u1", "\\u12", "\\u123", "\\ud83d", "\\ud83d\\", "\\ud83d\\u", "\\ud83d\\ude0", "\\\\", "\\\""];
    for i in 0..55 {
        let e = cuts[i % cuts.len()];
        let pre = if i % 2 == 0 { format!("{} ", g.words(2)) } else { String::new() };
        let head = if (i / cuts.len()).is_multiple_of(2) { "{\"msg\":\"" } else { "[\"a\",\"" };
        c.add("served-escape-cut", format!("{head}{pre}{e}"));
    }
}

/// Seed 001's bounds: more than 50 candidates, and replies straddling 256 KiB.
fn shape_bounded(c: &mut Corpus, seed: u64) {
    let mut g = G::new(seed, "bounded");
    for n in 40..=60 {
        let mut t = String::new();
        for j in 0..n {
            t.push_str(g.pick(&["{x} ", "{html, log} ", "see {note}. ", "{a:1} ", "{'a': 1} "]));
            if j % 7 == 6 {
                t.push('\n');
            }
        }
        t.push_str("\n{\"answer\": 42, \"ok\": true}");
        c.add("bounded-attempts", t);
    }
    for n in [45usize, 49, 50, 51, 55] {
        // Decoys that never close: every attempt scans to the end.
        let mut t = "{ ".repeat(n);
        t.push_str("{\"answer\": 1}");
        c.add("bounded-attempts", t);
    }
    let obj_tail = "\n{\"answer\": 42, \"ok\": true}";
    let tail16 = utf16_len(obj_tail);
    // Exactly at the limit, and one over, in ASCII.
    for total in [SEED001_MAX_INPUT, SEED001_MAX_INPUT + 1] {
        let mut t = String::new();
        while t.len() < total - tail16 {
            t.push_str(&g.ascii_prose(2000));
        }
        t.truncate(total - tail16);
        t.push_str(obj_tail);
        c.add("bounded-size", t);
    }
    // Under the limit in UTF-16 units, over it in bytes (CJK is 3 bytes, 1 unit).
    {
        let target = SEED001_MAX_INPUT - tail16;
        let mut t = String::new();
        let mut units = 0;
        while units < target {
            let ch = if units % 10 == 0 { '税' } else { 'a' };
            t.push(ch);
            units += 1;
        }
        t.push_str(obj_tail);
        c.add("bounded-size", t);
    }
    // Over the limit in UTF-16 units, under it in chars (an emoji is 2 units, 1 char).
    {
        let target = SEED001_MAX_INPUT + 6 - tail16;
        let mut t = String::new();
        let mut units = 0;
        let mut i = 0;
        while units < target {
            if i % 12 == 0 && units + 2 <= target {
                t.push('\u{1F600}');
                units += 2;
            } else {
                t.push('b');
                units += 1;
            }
            i += 1;
        }
        t.push_str(obj_tail);
        c.add("bounded-size", t);
    }
}

/// The 62 kB correction of #170: seven envelopes, the first the template, the seventh the page.
fn correction(g: &mut G, variant: usize) -> String {
    let mut t = String::from("I'll carefully re-read the image for all the flagged values and correct each one.\n\n");
    while t.len() < 33_700 {
        t.push_str(&g.prose(600));
        t.push_str("\n\n");
    }
    t.push_str("The envelope is:\n\n");
    t.push_str(TEMPLATE);
    t.push_str("\n\n");
    for k in 2..=6 {
        t.push_str(&g.prose(300));
        t.push_str("\n\n");
        let html = {
            let n = g.rng.range(500, 2500);
            g.page(n)
        };
        let log = if k % 2 == 0 { "RESTART".to_owned() } else { g.pick(DRAFT_LOGS).to_owned() };
        let e = env(Layout::Pretty, q(&html), q(&log), "null");
        t.push_str(&if k == 4 { g.fenced(&e) } else { e });
        t.push_str("\n\n");
    }
    // The seventh: about 7,100 characters of table, with the attribute quotes escaped, placed so
    // the reply comes to about 62,017 characters as #170's did.
    let html = g
        .table_page(6_600)
        .replace("<table>", "<table class=\"data\" border=\"1\">")
        .replace("<th>", "<th scope=\"col\">");
    let last = env(Layout::Pretty, q(&html), q("Page 17. Table 3 continues beyond this page"), "null");
    while t.len() + last.len() < 62_017 {
        t.push_str(&g.prose(200));
        t.push_str("\n\n");
    }
    match variant {
        0 => t.push_str(&last),
        1 => t.push_str(&g.fenced(&last)),
        _ => {
            t.push_str(&last);
            t.push_str("\n\nAll flagged values are now corrected.");
        }
    }
    t
}

fn shape_large(c: &mut Corpus, seed: u64) {
    let mut g = G::new(seed, "large");
    for v in 0..3 {
        let t = correction(&mut g, v);
        c.add("large-correction", t);
    }
    // Four fenced envelopes, the first three abandoned drafts (2,253 -> 13,182).
    {
        let mut t = g.preamble();
        for (k, size) in [(0, 2_253usize), (1, 4_000), (2, 6_000), (3, 13_182)] {
            let log = if k < 3 { g.pick(DRAFT_LOGS).to_owned() } else { g.log() };
            let html = g.table_page(size);
            t.push_str("\n\n");
            t.push_str(&g.fenced(&env(Layout::Pretty, q(&html), q(&log), "null")));
        }
        c.add("large-drafts", t);
    }
    for _ in 0..3 {
        let k = g.range(120, 250);
        let r = edits_reply(&mut g, k);
        c.add_fields("large-edits", r, Some(&["edits", "problems", "fragments"]));
    }
    for i in 0..3 {
        let html = {
            let n = g.rng.range(20_000, 60_000);
            g.page(n)
        };
        let e = env(Layout::Pretty, q(&html), q(&g.log()), "null");
        let t = match i {
            0 => e,
            1 => format!("{}\n\n{}", g.preamble(), g.fenced(&e)),
            _ => cut(&e, e.len() - 100),
        };
        c.add("large-page", t);
    }
}

/// Byte-level damage to replies already generated, kept on char boundaries.
fn shape_mutations(c: &mut Corpus, seed: u64, n: usize) {
    let mut g = G::new(seed, "mutation");
    let pool: Vec<String> = c.records.iter().filter(|r| r.text.len() <= 3000).map(|r| r.text.clone()).collect();
    if pool.is_empty() {
        return;
    }
    for _ in 0..n {
        let mut t = g.pick(&pool);
        for _ in 0..g.range(1, 3) {
            if t.is_empty() {
                break;
            }
            let a = floor_boundary(&t, g.rng.below(t.len() + 1));
            let b = floor_boundary(&t, (a + g.rng.size(1, 200)).min(t.len()));
            match g.rng.below(5) {
                0 => {
                    let other = g.pick(&pool);
                    let x = floor_boundary(&other, g.rng.below(other.len() + 1));
                    let y = floor_boundary(&other, (x + g.rng.size(1, 300)).min(other.len()));
                    t.insert_str(a, &other[x..y]);
                }
                1 => {
                    t.replace_range(a..b, "");
                }
                2 => {
                    let d = t[a..b].to_owned();
                    t.insert_str(b, &d);
                }
                3 => t.truncate(a),
                _ => {
                    let ch = g.pick(&["{", "}", "\"", "\\", "[", "]", ":", ",", "\n", "\u{00A0}", "\u{1F600}"]);
                    t.insert_str(a, ch);
                }
            }
        }
        c.add("mutation", t);
    }
}

/// The golden corpus: every shape above, the mutations, and the adversarial families at
/// `GOLDEN_ADVERSARIAL_SIZES`.
pub fn golden_corpus(seed: u64) -> Vec<Record> {
    let mut c = Corpus::new();
    shape_plain(&mut c, seed);
    shape_fenced(&mut c, seed);
    shape_preamble(&mut c, seed);
    shape_scratch_template(&mut c, seed);
    shape_drafts(&mut c, seed);
    shape_unescaped_quote(&mut c, seed);
    shape_raw_control(&mut c, seed);
    shape_backslash(&mut c, seed);
    shape_decoy_prose(&mut c, seed);
    shape_verdicts(&mut c, seed);
    shape_restarts(&mut c, seed);
    shape_reader_quote(&mut c, seed);
    shape_bracket_mismatch(&mut c, seed);
    shape_bare_html(&mut c, seed);
    shape_edits(&mut c, seed);
    shape_truncated(&mut c, seed);
    shape_json5(&mut c, seed);
    shape_jsonl(&mut c, seed);
    shape_nested(&mut c, seed);
    shape_unicode(&mut c, seed);
    shape_js_space(&mut c, seed);
    shape_numbers(&mut c, seed);
    shape_keys(&mut c, seed);
    shape_deep(&mut c, seed);
    shape_served(&mut c, seed);
    shape_mutations(&mut c, seed, 400);
    shape_bounded(&mut c, seed);
    shape_large(&mut c, seed);
    for family in ADVERSARIAL_FAMILIES {
        for &size in GOLDEN_ADVERSARIAL_SIZES {
            c.records.push(Record {
                id: format!("adv-{family}-{size}"),
                text: adversarial(family, size),
                fields: None,
            });
        }
    }
    c.records
}

/// The fence-first reader's regex, `` /```(?:json)?\s*([\s\S]*?)```/i ``, at its edges: every
/// spelling of the tag and what may follow it (JavaScript whitespace, and look-alikes that are
/// not), blocks that hold JSON, a template, prose, a first balanced `{` or nothing, fences that
/// never close or come twice, and text around them. No randomness: the product of the parts,
/// in order.
pub fn fence_corpus() -> Vec<Record> {
    const TAGS: &[&str] = &["", "json", "JSON", "Json", "jSoN", "js", "jsonc", "j\u{17f}on", "JSONL"];
    const AFTER: &[&str] =
        &["", " ", "\n", "\r\n", "\t", "\u{feff}", "\u{a0}", "\u{2028}", "\u{3000}", "\u{85}", "\u{200b}", "\n\n  "];
    const BODIES: &[&str] = &[
        r#"{"html": "<p>x</p>", "log": "ok"}"#,
        TEMPLATE,
        "[1, 2, 3]",
        r#"{"a": 1,}"#,
        r#"note {"a": "}"} then {"b": 2}"#,
        "{html, log} then {\"b\": 2}",
        "",
        "  null  ",
        r#"{"a": "x\"}\"", "b": [1]} tail"#,
    ];
    let mut records = Vec::new();
    let mut push = |text: String| {
        let id = format!("fence-{}", records.len());
        records.push(Record { id, text, fields: None });
    };
    for tag in TAGS {
        for after in AFTER {
            for body in BODIES {
                push(format!("```{tag}{after}{body}\n```"));
            }
        }
    }
    let real = r#"{"html": "<table><tr><td>7,121</td></tr></table>", "log": "Page 17."}"#;
    for body in BODIES {
        for (before, between, after) in [
            ("Template:\n", "\n\nAnswer:\n", ""),
            ("{\"lead\": 1}\n", "", ""),
            ("prose {not json} ", " more ", " tail {\"z\": 0}"),
            ("", "", "\n```"),
        ] {
            push(format!("{before}```json\n{body}\n```{between}```json\n{real}\n```{after}"));
        }
        // Unclosed, closed by another fence, a fence in a string, four backticks, no fence.
        push(format!("```json\n{body}"));
        push(format!("~~~json\n{body}\n~~~"));
        push(format!("````json\n{body}\n````"));
        push(format!("{{\"s\": \"```\"}} {body} ```"));
        push(format!("text ``` {body} ``` and ```json\n{real}\n```"));
        push(format!("\u{feff} {body} \u{2029}"));
    }
    records
}

/// Realistic replies of 2-60 kB in the typical shapes, until `target_bytes` of text.
pub fn typical_mix(seed: u64, target_bytes: usize) -> Vec<String> {
    let mut replies = Typical::new(seed);
    let mut out = Vec::new();
    let mut total = 0;
    while total < target_bytes {
        let t = replies.reply();
        total += t.len();
        out.push(t);
    }
    out
}

/// The replies of [`typical_mix`], one at a time, for writers that want a count of them
/// rather than a size (a campaign's documents).
pub struct Typical {
    g: G,
}

impl Typical {
    pub fn new(seed: u64) -> Typical {
        Typical { g: G::new(seed, "typical") }
    }

    /// The next reply of the mix.
    pub fn reply(&mut self) -> String {
        let size = self.g.rng.octave(2_000, 58_000);
        self.reply_of(size)
    }

    /// The next reply of the mix, of about `size` bytes.
    pub fn reply_of(&mut self, size: usize) -> String {
        let g = &mut self.g;
        match g.rng.below(8) {
            0 | 1 => g.envelope(size),
            2 => {
                let e = g.envelope(size);
                let p = g.preamble();
                format!("{p}\n\n{}", g.fenced(&e))
            }
            3 => {
                let e = g.envelope(size);
                format!("{}\n\n{e}", g.preamble())
            }
            4 => {
                let mut t = g.preamble();
                let k = g.range(2, 4);
                for d in 0..k {
                    let log = if d + 1 == k { g.log() } else { g.pick(DRAFT_LOGS).to_owned() };
                    let html = g.page(size / k + 200);
                    t.push_str("\n\n");
                    let e = env(g.layout(), q(&html), q(&log), "null");
                    t.push_str(&g.fenced(&e));
                }
                t
            }
            5 => {
                let mut t = format!("{}\n\n{TEMPLATE}\n\n", g.prose(size / 3));
                t.push_str(&g.envelope(size * 2 / 3));
                t
            }
            6 => {
                let k = (size / 150).max(1);
                let p = problems(g, k);
                let d = QUOTED_NO_STRINGS[g.rng.below(QUOTED_NO_STRINGS.len())];
                let notes = format!("I first read the contract as {d}; it is not. {}", g.prose(size / 3));
                obj(Layout::Pretty, &[("faithful", "false".to_owned()), ("problems", p), ("notes", raw(&notes))])
            }
            _ => edits_reply(g, (size / 70).max(1)),
        }
    }
}

/// The replies of the hard mix, one at a time: what a model that reasons before it answers
/// writes when it corrects a page or judges one, as the seed's comments describe it (the 62 kB
/// correction of #170, the verdicts of #168 and #339): prose with decoys quoted in it
/// (`the contract is {html, log, suggested_agent}`), scratch templates, complete envelopes
/// marked as drafts, fenced or not, envelopes whose page carries unescaped quotes, drafts
/// abandoned mid-string and restarted inline, `{"html":"…` quoted in a verdict, verdicts with
/// their `problems`, `edits` arrays complete and cut, and at the end the answer. Several of
/// each per reply, so a reply of 33 kB carries some 90 `{`. Its own stream (`hard`), so the
/// typical mix is unchanged by it.
pub struct Hard {
    g: G,
}

impl Hard {
    pub fn new(seed: u64) -> Hard {
        Hard { g: G::new(seed, "hard") }
    }

    /// One piece of reasoning: one of the hard shapes and prose after it, some 500-5,000 bytes.
    fn piece(&mut self, t: &mut String) {
        let g = &mut self.g;
        match g.rng.below(12) {
            0 => {
                let d = DECOYS[g.rng.below(DECOYS.len())];
                let more = g.prose(120);
                t.push_str(&format!("The contract is {d}, so the reply must carry all three fields. {more}"));
            }
            1 => {
                let tpl = if g.chance(1, 2) { TEMPLATE } else { TEMPLATE_ONE_LINE };
                t.push_str(&format!("The output has to be:\n\n{tpl}\n\n{}", g.prose(100)));
            }
            2 | 3 => {
                // A complete envelope the model then abandons, fenced or not.
                let n = g.rng.size(150, 2_000);
                let html = g.page(n);
                let log = g.pick(DRAFT_LOGS).to_owned();
                let e = env(g.layout(), q(&html), q(&log), &g.agent());
                let e = if g.chance(1, 2) { g.fenced(&e) } else { e };
                t.push_str(&format!("First attempt:\n\n{e}\n\n{}", g.prose(80)));
            }
            4 => {
                // The page carries quotes the model did not escape.
                let n = g.rng.size(150, 1_500);
                let html = format!("<p>The sign reads \"CLOSED\" today</p>{}", g.page(n));
                t.push_str(&env(g.layout(), raw(&html), q(&g.log()), "null"));
                t.push_str(&format!("\n\n{}", g.prose(60)));
            }
            5 => {
                // A draft abandoned mid-string and restarted inline.
                let n = g.rng.size(100, 1_200);
                let page = g.table_page(n);
                let abandoned = g.prose(40);
                let rest = env(Layout::Spaced, raw(&format!("<p>use the }} token</p>{page}")), q(&g.log()), "null");
                t.push_str(&format!("{{\"html\": \"<p>{abandoned}\n{rest}\n\n{}", g.prose(60)));
            }
            6 => {
                // A verdict quoting the agent's envelope, `{"html":"…` and all.
                let n = g.rng.size(30, 400);
                let page = g.page(n);
                let log = g.log();
                t.push_str(&format!(
                    "The agent returned {{\"html\":\"{page}\", and its \"log\": \"{log}\", with \"suggested_agent\": null}}. {}",
                    g.prose(60)
                ));
            }
            7 | 8 => {
                // A verdict with its problems, its notes quoting the contract back.
                let k = g.range(2, 7);
                let d = QUOTED_NO_STRINGS[g.rng.below(QUOTED_NO_STRINGS.len())];
                let notes = notes_quoting(g, d);
                let p = problems(g, k);
                let v = obj(g.layout(), &[("faithful", "false".to_owned()), ("problems", p), ("notes", raw(&notes))]);
                t.push_str(&format!("Checking it as the reviewer would:\n\n{v}\n\n{}", g.prose(60)));
            }
            9 => {
                let k = g.range(3, 10);
                let r = edits_reply(g, k);
                t.push_str(&format!("The edits so far:\n\n{r}\n\n{}", g.prose(60)));
            }
            10 => {
                // An edits array cut mid-entry, then taken up again.
                let k = g.range(3, 10);
                let r = edits_reply(g, k);
                let open = r.find('[').unwrap_or(0);
                let close = r.rfind(']').unwrap_or(r.len());
                let at = g.range(open + 1, close);
                t.push_str(&format!("{}\n\nRESTART\n\n{}", cut(&r, at), g.prose(60)));
            }
            _ => {
                let n = g.rng.size(200, 1_500);
                t.push_str(&g.prose(n));
            }
        }
        t.push_str("\n\n");
        let n = g.rng.size(180, 1_400);
        t.push_str(&g.prose(n));
        t.push_str("\n\n");
    }

    /// The next reply of the hard mix, of about `size` bytes: reasoning until the answer's
    /// room is left, then the answer (an envelope, fenced or not, a verdict, or edits).
    pub fn reply_of(&mut self, size: usize) -> String {
        let answer_size = self.g.rng.size(size / 10 + 50, size / 4 + 100);
        let mut t =
            String::from("I'll carefully re-read the image for all the flagged values and correct each one.\n\n");
        while t.len() + answer_size < size {
            self.piece(&mut t);
        }
        let g = &mut self.g;
        match g.rng.below(6) {
            0 | 1 => t.push_str(&g.envelope(answer_size)),
            2 => {
                let e = g.envelope(answer_size);
                t.push_str(&g.fenced(&e));
            }
            3 => {
                let k = (answer_size / 400).max(1);
                let p = problems(g, k);
                let notes = q(&g.sentence());
                t.push_str(&obj(g.layout(), &[("faithful", "false".to_owned()), ("problems", p), ("notes", notes)]));
            }
            4 => t.push_str(&edits_reply(g, (answer_size / 250).max(1))),
            _ => {
                let e = g.envelope(answer_size);
                t.push_str(&format!("{e}\n\nAll flagged values are now corrected."));
            }
        }
        t
    }
}

/// A brace-laden text of about `size` bytes in one of `ADVERSARIAL_FAMILIES` (empty for an
/// unknown family).
pub fn adversarial(family: &str, size: usize) -> String {
    match family {
        "open-brace" => repeat_to("{", size),
        "key-colon" => repeat_to("{\"a\":", size),
        "key-colon-quote" => repeat_to("{\"a\":\"", size),
        "quote-brace" => repeat_to("\"{", size),
        "nested-error" => {
            let depth = size.saturating_sub(1) / 6;
            let mut s = "{\"a\":".repeat(depth);
            s.push('x');
            s.push_str(&"}".repeat(depth));
            s
        }
        "brace-bracket" => repeat_to("{[", size),
        "escaped-quotes" => {
            let head = "{\"html\": \"";
            let tail = "\", \"log\": \"ok\", \"suggested_agent\": null}";
            let n = size.saturating_sub(head.len() + tail.len()) / 2;
            format!("{head}{}{tail}", "\\\"".repeat(n))
        }
        "valid-then-braces" => {
            let half = size / 2;
            let head = "{\"html\": \"";
            let tail = "\", \"log\": \"ok\", \"suggested_agent\": null}";
            let body = repeat_to("<p>valid</p>", half.saturating_sub(head.len() + tail.len()));
            let mut s = format!("{head}{body}{tail}");
            let rest = size.saturating_sub(s.len());
            s.push_str(&"{".repeat(rest));
            s
        }
        "empty-objects" => repeat_to("{}", size),
        "quote-colon" => {
            let head = "{\"html\": \"";
            let tail = "\"}";
            let body = repeat_to("\":\"", size.saturating_sub(head.len() + tail.len()));
            format!("{head}{body}{tail}")
        }
        "small-objects" => repeat_to("{\"a\":1}", size),
        _ => String::new(),
    }
}

/// One `{"id","text","fields"?}` line per record, as the oracle reads them.
pub fn to_jsonl(records: &[Record]) -> String {
    let mut out = String::new();
    for r in records {
        out.push_str("{\"id\":");
        out.push_str(&q(&r.id));
        out.push_str(",\"text\":");
        out.push_str(&q(&r.text));
        if let Some(f) = &r.fields {
            let items: Vec<String> = f.iter().map(|s| q(s)).collect();
            out.push_str(",\"fields\":[");
            out.push_str(&items.join(","));
            out.push(']');
        }
        out.push_str("}\n");
    }
    out
}
