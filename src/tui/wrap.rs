//! Reply text laid out in terminal cells.
//!
//! Every character a reply shows goes through [`visible::stand_in`](crate::visible::stand_in):
//! a control character becomes one visible cell, so a highlight computed on byte offsets
//! stays over the characters it names. A line feed ends a row; anything else takes the
//! cells `unicode-width` gives it, and a wide character that would straddle the edge starts
//! the next row.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::visible::stand_in;

/// The cells `c` takes on screen (its stand-in's, when it has one).
pub fn cells(c: char) -> usize {
    match stand_in(c, false) {
        Some(s) => s.width(),
        None => c.width().unwrap_or(0),
    }
}

/// How reply text is broken into rows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Wrapping {
    /// After the last space that fits, as a reader expects ("budgeted", not "bud|geted"); a
    /// word longer than the row is cut at the column.
    #[default]
    Words,
    /// At the column, whatever is there: every row full, offsets easy to count.
    Hard,
}

impl Wrapping {
    pub fn toggled(self) -> Wrapping {
        match self {
            Wrapping::Words => Wrapping::Hard,
            Wrapping::Hard => Wrapping::Words,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Wrapping::Words => "at words",
            Wrapping::Hard => "hard, at the column",
        }
    }
}

/// Where each row of `text` starts, wrapped at `width` cells. A line feed ends its row and
/// belongs to it; there is always at least one row. Every byte is in exactly one row either
/// way (a space a row breaks after ends that row), so a highlight placed by byte offsets
/// lands on the characters it names.
pub fn rows(text: &str, width: usize, how: Wrapping) -> Vec<usize> {
    let width = width.max(1);
    let mut rows = vec![0];
    let mut used = 0;
    // Where the row could break at a word: the byte after its last space, and the cells
    // used up to there.
    let mut space: Option<(usize, usize)> = None;
    for (i, c) in text.char_indices() {
        if c == '\n' {
            if i + 1 < text.len() {
                rows.push(i + 1);
            } else {
                rows.push(text.len());
            }
            used = 0;
            space = None;
            continue;
        }
        let w = cells(c);
        if how == Wrapping::Words && (c == ' ' || c == '\t') {
            // A space never starts a row: past the edge, it ends the row it follows.
            used += w;
            space = Some((i + c.len_utf8(), used));
            continue;
        }
        if used + w > width && used > 0 {
            match space.take() {
                Some((at, before)) => {
                    rows.push(at);
                    used = used.saturating_sub(before);
                }
                None => {
                    rows.push(i);
                    used = 0;
                }
            }
        }
        used += w;
    }
    rows
}

/// The row holding byte `at`.
pub fn row_of(rows: &[usize], at: usize) -> usize {
    rows.partition_point(|&start| start <= at).saturating_sub(1)
}

/// `s` (already safe to show) cut into pieces of at most `width` cells.
pub fn hard_wrap(s: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > width && used > 0 {
            out.push(std::mem::take(&mut cur));
            used = 0;
        }
        cur.push(c);
        used += w;
    }
    if !cur.is_empty() || out.is_empty() {
        out.push(cur);
    }
    out
}

/// `s` (already safe to show) in lines of at most `width` cells, broken after spaces where
/// a line has one, else anywhere.
pub fn word_wrap(s: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out = Vec::new();
    let mut rest = s;
    while rest.width() > width {
        let mut used = 0;
        let mut cut = 0;
        let mut space = None;
        for (i, c) in rest.char_indices() {
            let w = c.width().unwrap_or(0);
            if used + w > width {
                break;
            }
            used += w;
            cut = i + c.len_utf8();
            if c == ' ' {
                space = Some(cut);
            }
        }
        let at = match space {
            Some(sp) if sp > width / 3 => sp,
            _ if cut == 0 => rest.chars().next().map_or(rest.len(), char::len_utf8),
            _ => cut,
        };
        out.push(rest[..at].trim_end().to_owned());
        rest = &rest[at..];
    }
    if !rest.is_empty() || out.is_empty() {
        out.push(rest.to_owned());
    }
    out
}

/// `s` (already safe to show) in at most `width` cells, `…` where it was cut.
pub fn fit(s: &str, width: usize) -> String {
    if s.width() <= width {
        return s.to_owned();
    }
    if width == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}

/// `s` in at most `width` cells, its start replaced by `…` when cut (the end of a path or
/// a `file:line` is the part that tells entries apart).
pub fn fit_end(s: &str, width: usize) -> String {
    if s.width() <= width {
        return s.to_owned();
    }
    if width == 0 {
        return String::new();
    }
    let mut kept: Vec<char> = Vec::new();
    let mut used = 0;
    for c in s.chars().rev() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        kept.push(c);
        used += w;
    }
    let mut out = String::from("…");
    out.extend(kept.into_iter().rev());
    out
}

/// `s` padded with spaces to `width` cells (or fitted to it).
pub fn pad(s: &str, width: usize) -> String {
    let s = fit(s, width);
    let w = s.width();
    format!("{s}{}", " ".repeat(width.saturating_sub(w)))
}

/// `s` right-aligned in `width` cells.
pub fn pad_left(s: &str, width: usize) -> String {
    let s = fit(s, width);
    let w = s.width();
    format!("{}{s}", " ".repeat(width.saturating_sub(w)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_break_at_line_feeds_and_the_width() {
        for how in [Wrapping::Words, Wrapping::Hard] {
            assert_eq!(rows("abcdef", 4, how), vec![0, 4]);
            assert_eq!(rows("ab\ncd", 10, how), vec![0, 3]);
            assert_eq!(rows("ab\n", 10, how), vec![0, 3]);
            assert_eq!(rows("", 10, how), vec![0]);
            // A control character is one cell, shown by its stand-in.
            assert_eq!(rows("\u{1b}[31m", 2, how), vec![0, 2, 4]);
            // A wide character does not straddle the edge.
            assert_eq!(rows("a😀b", 2, how), vec![0, 1, 5]);
        }
    }

    #[test]
    fn words_wrap_after_a_space_and_hard_wrap_at_the_column() {
        let text = "the budgeted sum";
        assert_eq!(rows(text, 8, Wrapping::Hard), vec![0, 8]);
        // "the " | "budgeted " | "sum": no word is cut.
        assert_eq!(rows(text, 9, Wrapping::Words), vec![0, 4, 13]);
        // A space just past the edge ends the row it follows.
        assert_eq!(rows("abcd efgh", 4, Wrapping::Words), vec![0, 5]);
        // A word longer than the row is cut at the column.
        assert_eq!(rows("a abcdefghij", 4, Wrapping::Words), vec![0, 2, 6, 10]);
        // The rows cover every byte once, in order, either way.
        let long = "Page 17. Table 3 continues beyond this page; budgeted  amounts\nfollow here.";
        for w in 1..30 {
            for how in [Wrapping::Words, Wrapping::Hard] {
                let r = rows(long, w, how);
                assert!(r.windows(2).all(|p| p[0] < p[1]), "{w} {how:?} {r:?}");
                for p in r.windows(2) {
                    let row: usize = long[p[0]..p[1]].trim_end_matches(['\n', ' ']).chars().map(cells).sum();
                    assert!(row <= w, "{w} {how:?}: {:?}", &long[p[0]..p[1]]);
                }
            }
        }
    }

    #[test]
    fn the_row_of_an_offset() {
        let r = rows("abcd\nefgh", 2, Wrapping::Hard);
        assert_eq!(r, vec![0, 2, 5, 7]);
        assert_eq!(row_of(&r, 0), 0);
        assert_eq!(row_of(&r, 4), 1);
        assert_eq!(row_of(&r, 6), 2);
        assert_eq!(row_of(&r, 8), 3);
    }

    #[test]
    fn fitting_and_padding_count_cells() {
        assert_eq!(fit("abcdef", 4), "abc…");
        assert_eq!(fit_end("abcdef", 4), "…def");
        assert_eq!(pad("ab", 4), "ab  ");
        assert_eq!(pad_left("ab", 4), "  ab");
        assert_eq!(hard_wrap("abcde", 2), vec!["ab", "cd", "e"]);
        assert_eq!(word_wrap("span 1..2 (3 B)", 10), vec!["span 1..2", "(3 B)"]);
        assert_eq!(word_wrap("abcdefgh", 3), vec!["abc", "def", "gh"]);
    }
}
