//! Reply text made safe and visible for a terminal.
//!
//! Replies are written by models and may carry escape sequences (a window title, the
//! clipboard, a hyperlink), bells, C1 controls, bidi overrides and zero-width characters.
//! None of them may reach the terminal raw. Each is replaced by a visible stand-in of a
//! fixed width, so what is on screen says what is in the reply, and nothing in the reply
//! can act on the terminal.

/// The visible stand-in for `c`, or `None` when `c` is safe to print as itself.
/// `keep_newlines` lets LF through (for multi-line views; a tab is always shown as `→`,
/// so column arithmetic stays simple).
pub fn stand_in(c: char, keep_newlines: bool) -> Option<&'static str> {
    Some(match c {
        '\n' if keep_newlines => return None,
        '\n' => "␤",
        '\t' => "→",
        '\r' => "␍",
        '\u{1b}' => "␛",
        '\u{7}' => "␇",
        '\u{7f}' => "␡",
        '\u{0}'..='\u{1f}' => C0[c as usize],
        '\u{80}'..='\u{9f}' => "⍰",
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}' => "⇄",
        '\u{200b}'..='\u{200d}' | '\u{2060}' | '\u{feff}' | '\u{180e}' | '\u{ad}' => "·",
        '\u{2028}' | '\u{2029}' => "⏎",
        _ => return None,
    })
}

const C0: [&str; 32] = [
    "␀", "␁", "␂", "␃", "␄", "␅", "␆", "␇", "␈", "␉", "␊", "␋", "␌", "␍", "␎", "␏", "␐", "␑", "␒", "␓", "␔", "␕", "␖",
    "␗", "␘", "␙", "␚", "␛", "␜", "␝", "␞", "␟",
];

/// Whether `text` is printable ASCII, which is its own stand-in, a byte a character: most
/// keys and names are nothing else.
pub fn is_printable_ascii(text: &str) -> bool {
    text.bytes().all(|b| (b' '..=b'~').contains(&b))
}

/// `text` with every unsafe character replaced by its stand-in.
pub fn visible(text: &str, keep_newlines: bool) -> String {
    if is_printable_ascii(text) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match stand_in(c, keep_newlines) {
            Some(s) => out.push_str(s),
            None => out.push(c),
        }
    }
    out
}

/// `s` cut to its first `max` characters, with `…` where it was cut: what a message quotes of
/// a line, an id or a command.
pub fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &s[..cut]),
        None => s.to_owned(),
    }
}

/// Whether `text` needs no replacement.
pub fn is_plain(text: &str) -> bool {
    text.chars().all(|c| stand_in(c, false).is_none())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_that_acts_on_a_terminal_survives() {
        let hostile = "a\u{1b}]0;title\u{7}b\u{1b}]52;c;aGk=\u{7}\u{9b}31m\u{202e}x\u{200b}\u{7f}";
        let shown = visible(hostile, false);
        assert!(shown.chars().all(|c| !c.is_control() && !('\u{2066}'..='\u{2069}').contains(&c)));
        assert!(!shown.contains('\u{202e}') && !shown.contains('\u{200b}'));
        assert_eq!(shown, "a␛]0;title␇b␛]52;c;aGk=␇⍰31m⇄x·␡");
    }

    #[test]
    fn every_byte_of_ascii_is_shown_as_its_stand_in_says() {
        for b in 0u8..=0x7f {
            let c = char::from(b);
            let text = format!("key{c}");
            let expected = format!("key{}", stand_in(c, false).map_or_else(|| c.to_string(), str::to_owned));
            assert_eq!(visible(&text, false), expected, "{b:#x}");
        }
    }

    #[test]
    fn newlines_are_kept_only_when_asked() {
        assert_eq!(visible("a\nb\tc", true), "a\nb→c");
        assert_eq!(visible("a\nb", false), "a␤b");
        assert!(is_plain("ordinary text, é 😀"));
    }

    #[test]
    fn a_clip_counts_characters() {
        assert_eq!(clip("héllo", 5), "héllo");
        assert_eq!(clip("héllo", 2), "hé…");
        assert_eq!(clip("", 0), "");
        assert_eq!(clip("a", 0), "…");
    }
}
