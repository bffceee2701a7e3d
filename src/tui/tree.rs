//! A value as a collapsible tree of screen rows: containers with their child counts,
//! strings with their lengths, long strings wrapped. Built without recursion (the value is
//! as deep as the reply made it), by both `update` (to move and toggle) and the view (to
//! draw), from the same inputs, so they agree on every row.

use std::collections::HashSet;

use crate::describe::{chars, leaf};
use crate::exact::value::{Value, js_number_to_string};
use crate::visible::visible;

use super::wrap::hard_wrap;

/// Lines of a closed long string that are still shown.
const PREVIEW_LINES: usize = 3;
/// A container with more children than this starts closed.
const BIG: usize = 200;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    /// An object or array: `▾ key: {3 fields}`.
    Container { open: bool },
    /// A number, boolean, null, or a string short enough for one line.
    Scalar,
    /// The head of a long string: `▸ key: 7,121 chars`.
    LongString { open: bool },
    /// A line of a long string's text.
    StringLine,
    /// `… 40 more lines`.
    More,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeRow {
    pub depth: usize,
    /// Child indices from the root; a string's lines share their string's path.
    pub path: Vec<u32>,
    pub kind: RowKind,
    /// The key or index, shown safe (`html`, `[3]`), or empty for the root.
    pub key: String,
    /// What follows the key.
    pub text: String,
    /// A string's length, after a short string.
    pub note: String,
}

impl TreeRow {
    pub fn toggles(&self) -> bool {
        matches!(self.kind, RowKind::Container { .. } | RowKind::LongString { .. } | RowKind::More)
    }
}

fn open_by_default(v: &Value, depth: usize) -> bool {
    match v {
        Value::Object(o) => depth < 2 && o.len() <= BIG,
        Value::Array(a) => depth < 2 && a.len() <= BIG,
        _ => false,
    }
}

/// Whether the node at `path` is open.
pub fn is_open(v: &Value, depth: usize, path: &[u32], toggled: &HashSet<Vec<u32>>) -> bool {
    open_by_default(v, depth) != toggled.contains(path)
}

/// The rows of `value` for a pane `width` cells wide.
pub fn rows(value: &Value, toggled: &HashSet<Vec<u32>>, width: usize) -> Vec<TreeRow> {
    let mut out = Vec::new();
    let mut stack: Vec<(&Value, String, usize, Vec<u32>)> = vec![(value, String::new(), 0, Vec::new())];
    while let Some((v, key, depth, path)) = stack.pop() {
        let indent = depth * 2 + 2;
        match v {
            Value::Object(o) => {
                let open = is_open(v, depth, &path, toggled);
                let count = leaf(v);
                out.push(TreeRow {
                    depth,
                    path: path.clone(),
                    kind: RowKind::Container { open },
                    key,
                    text: count,
                    note: String::new(),
                });
                if open {
                    let children: Vec<_> = o.iter().collect();
                    for (i, (k, child)) in children.into_iter().enumerate().rev() {
                        let mut p = path.clone();
                        p.push(i as u32);
                        stack.push((child, visible(&k.to_string_lossy(), false), depth + 1, p));
                    }
                }
            }
            Value::Array(a) => {
                let open = is_open(v, depth, &path, toggled);
                let count = leaf(v);
                out.push(TreeRow {
                    depth,
                    path: path.clone(),
                    kind: RowKind::Container { open },
                    key,
                    text: count,
                    note: String::new(),
                });
                if open {
                    for (i, child) in a.iter().enumerate().rev() {
                        let mut p = path.clone();
                        p.push(i as u32);
                        stack.push((child, format!("[{i}]"), depth + 1, p));
                    }
                }
            }
            Value::String(s) => {
                let shown = visible(&s.to_string_lossy(), true);
                let room = width.saturating_sub(indent + key.chars().count() + 2);
                let note = chars(s.char_len());
                let one_line =
                    !shown.contains('\n') && shown.chars().count() + 3 + note.len() <= room && s.char_len() <= 80;
                if one_line {
                    let text = format!("\"{shown}\"");
                    out.push(TreeRow { depth, path, kind: RowKind::Scalar, key, text, note });
                    continue;
                }
                let open = toggled.contains(&path);
                let text = chars(s.char_len());
                out.push(TreeRow {
                    depth,
                    path: path.clone(),
                    kind: RowKind::LongString { open },
                    key,
                    text,
                    note: String::new(),
                });
                let room = width.saturating_sub(indent + 2).max(8);
                let mut lines = Vec::new();
                for line in shown.split('\n') {
                    lines.extend(hard_wrap(line, room));
                    if !open && lines.len() > PREVIEW_LINES {
                        break;
                    }
                }
                let total_known = open || lines.len() <= PREVIEW_LINES;
                let shown_lines = if open { lines.len() } else { lines.len().min(PREVIEW_LINES) };
                for line in lines.iter().take(shown_lines) {
                    out.push(TreeRow {
                        depth: depth + 1,
                        path: path.clone(),
                        kind: RowKind::StringLine,
                        key: String::new(),
                        text: line.clone(),
                        note: String::new(),
                    });
                }
                if !total_known {
                    out.push(TreeRow {
                        depth: depth + 1,
                        path,
                        kind: RowKind::More,
                        key: String::new(),
                        text: "… more (Enter shows all)".to_owned(),
                        note: String::new(),
                    });
                }
            }
            scalar => {
                let text = match scalar {
                    Value::Null => "null".to_owned(),
                    Value::Bool(b) => b.to_string(),
                    Value::Number(n) => js_number_to_string(*n),
                    _ => String::new(),
                };
                out.push(TreeRow { depth, path, kind: RowKind::Scalar, key, text, note: String::new() });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::js::parse;

    #[test]
    fn containers_show_counts_and_long_strings_their_length() {
        let long = "x".repeat(300);
        let v = parse(&format!(r#"{{"html":"{long}","log":"ok","n":[1,2]}}"#)).unwrap();
        let rows = rows(&v, &HashSet::new(), 40);
        assert_eq!(rows[0].text, "{3 fields}");
        assert_eq!(rows[1].key, "html");
        assert_eq!(rows[1].text, "300 chars");
        assert_eq!(rows[1].kind, RowKind::LongString { open: false });
        assert_eq!(rows.iter().filter(|r| r.kind == RowKind::StringLine).count(), 3);
        assert!(rows.iter().any(|r| r.kind == RowKind::More));
        assert!(rows.iter().any(|r| r.key == "log" && r.text == "\"ok\"" && r.note == "2 chars"));
        assert!(rows.iter().any(|r| r.key == "n" && r.text == "[2 items]"));
    }

    #[test]
    fn toggling_opens_a_string_and_closes_a_container() {
        let long = "y".repeat(300);
        let v = parse(&format!(r#"{{"html":"{long}"}}"#)).unwrap();
        let mut t = HashSet::new();
        t.insert(vec![0]);
        let open = rows(&v, &t, 40);
        assert!(open.iter().filter(|r| r.kind == RowKind::StringLine).count() > 3);
        t.insert(vec![]);
        assert_eq!(rows(&v, &t, 40).len(), 1);
    }

    #[test]
    fn a_deep_value_does_not_recurse() {
        let deep = "[".repeat(50_000) + &"]".repeat(50_000);
        if let Ok(v) = parse(&deep) {
            assert!(!rows(&v, &HashSet::new(), 80).is_empty());
        }
    }
}
