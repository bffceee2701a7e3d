//! The strict span: the balanced object at a `{`, where a `"` opens or closes a string,
//! full stop (seed 000 `strictSpan`; seed 001's scan is the same walk).
//!
//! The walk runs over bytes. Every byte it acts on (`"`, `\`, `{`, `}`) is ASCII, and the
//! byte after a backslash that it skips is either ASCII or the lead byte of a character
//! whose continuation bytes it then passes over as ordinary text, exactly as JavaScript
//! passes over the low half of a surrogate pair.

/// The end (exclusive, in bytes) of the balanced object opening at `start`, or `None` when
/// the braces never balance (an object cut off, or a `{` in prose).
pub fn strict_span(text: &str, start: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth: usize = 0;
    let mut i = start;
    // Only quotes, backslashes and braces act, so the bytes between them are skipped in bulk.
    loop {
        i += memchr::memchr3(b'"', b'{', b'}', bytes.get(i..)?)?;
        match bytes[i] {
            b'"' => {
                // A string: to its closing quote, passing over every escaped byte.
                i += 1;
                loop {
                    i += memchr::memchr2(b'"', b'\\', bytes.get(i..)?)?;
                    if bytes[i] == b'"' {
                        break;
                    }
                    i += 2;
                }
            }
            b'{' => depth += 1,
            _ => {
                // Only reachable with depth ≥ 1: the walk starts on a `{`.
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(i + 1);
                }
            }
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balances_outside_strings_only() {
        let t = r#"x {"a": "}\"}", "b": {"c": 1}} tail"#;
        assert_eq!(strict_span(t, 2), Some(t.len() - 5));
        assert_eq!(strict_span("{ \"open", 0), None);
        assert_eq!(strict_span("{{}", 0), None);
        assert_eq!(strict_span("{{}", 1), Some(3));
    }

    #[test]
    fn an_escape_before_a_multibyte_character_skips_only_its_lead_byte() {
        let t = "{\"\\é\"}";
        assert_eq!(strict_span(t, 0), Some(t.len()));
    }
}
