//! The words a risk flag is told in: one sentence per raised flag, with its offsets in
//! bytes, the same in `explain`, the inspector's decision pane and `scan --list`.

use crate::describe::{chars, plural, thousands};
use crate::visible::visible;

use super::{Numbered, Raised};

/// What raised the flag, in a sentence: `kept #3 at byte 221 lies inside #1, 0..290, which
/// no reading could read`.
pub fn explain(raised: &Raised) -> String {
    match raised {
        Raised::InsideUnreadable { kept, inside } => {
            let span = match inside.end {
                Some(end) => format!("{}..{}", thousands(inside.start), thousands(end)),
                None => format!("from byte {} on (its braces never balance)", thousands(inside.start)),
            };
            format!(
                "kept #{} at byte {} lies inside #{}, {span}, which no reading could read; it ends at byte {}, before \
                 the reply does",
                kept.number,
                thousands(kept.start),
                inside.number,
                thousands(kept.end.unwrap_or(kept.start)),
            )
        }
        Raised::SmallerThanSuperseded { kept, superseded, keys } => format!(
            "kept #{} at byte {} ({}) has the {} of #{} at byte {} ({}), which it superseded: under a quarter of its \
             length",
            kept.number,
            thousands(kept.start),
            length(kept),
            plural(*keys, "key", "keys"),
            superseded.number,
            thousands(superseded.start),
            length(superseded),
        ),
        Raised::Placeholder { path, text, answer } => {
            let what = if path.is_empty() { "the answer".to_owned() } else { format!("`{}`", visible(path, false)) };
            format!(
                "{what} is \"{}\", a template's placeholder (the answer is at {}..{})",
                visible(text, false),
                thousands(answer.0),
                thousands(answer.1)
            )
        }
        Raised::ReadFromTruncated { decided_by, answer } => format!(
            "the record says the output ceiling stopped the reply, and {} read an answer anyway, at {}..{}",
            decided_by.name(),
            thousands(answer.0),
            thousands(answer.1)
        ),
        Raised::ReadersDisagree { reader, account } => format!(
            "{} reads it otherwise: {} (from its answer to the seed's)",
            visible(reader, false),
            visible(account, false)
        ),
        Raised::PageShrank { document, page, since, before, after } => {
            let now = match after {
                Some(0) | None => "no page now: it vanished".to_owned(),
                Some(n) => format!("{} now", chars(*n)),
            };
            format!(
                "page {page} of {}: {} in {}, {now}",
                visible(document, false),
                chars(*before),
                visible(since, false)
            )
        }
    }
}

fn length(c: &Numbered) -> String {
    let n = c.end.map_or(0, |e| e - c.start);
    plural(n, "byte", "bytes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sentences_name_the_offsets() {
        let inside = Raised::InsideUnreadable {
            kept: Numbered { number: 3, start: 221, end: Some(260) },
            inside: Numbered { number: 1, start: 0, end: Some(290) },
        };
        assert_eq!(
            explain(&inside),
            "kept #3 at byte 221 lies inside #1, 0..290, which no reading could read; it ends at byte 260, before the \
             reply does"
        );
    }
}
