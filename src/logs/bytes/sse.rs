//! Server-sent events as a capture saves them (`curl -N … > reply.sse`, a proxy's log).
//!
//! The framing is a few rules, so it is written here rather than taken from a crate (the
//! SSE crates are clients that own the connection; this reads a file): lines end in `\n` or
//! `\r\n`; a blank line ends an event; `field: value` sets a field, one space after the
//! colon dropped; several `data:` lines are joined with `\n`; a line opening with `:` is a
//! comment; an event with no data is not dispatched. Each event keeps the line and byte it
//! began at, so a reply from a stream can be named `PATH:LINE`.

use std::io::{self, BufRead};

use crate::logs::bytes::lines::{LineAt, Lines};

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event:` field, when there was one.
    pub name: Option<String>,
    /// The `data:` lines, joined with `\n`.
    pub data: String,
    /// The line of its first field, 1-based, and that line's byte offset.
    pub line: usize,
    pub offset: u64,
}

/// What reading a capture gives.
#[derive(Debug)]
pub(crate) enum Frame {
    Event(SseEvent),
    /// A line over the limit, skipped.
    TooLong(LineAt),
}

pub(crate) struct Events<R> {
    lines: Lines<R>,
    buf: Vec<u8>,
    first: bool,
}

impl<R: BufRead> Events<R> {
    pub fn new(inner: R, max_line: usize) -> Events<R> {
        Events { lines: Lines::new(inner, 0, 0, max_line), buf: Vec::new(), first: true }
    }

    /// The next event, or a line that could not be held; `None` at the end. An event the
    /// file ends in the middle of is dispatched: a capture cut short keeps what arrived.
    pub fn next_frame(&mut self) -> io::Result<Option<Frame>> {
        let mut event: Option<SseEvent> = None;
        let mut has_data = false;
        while let Some(at) = self.lines.next_line(&mut self.buf)? {
            if at.too_long {
                return Ok(Some(Frame::TooLong(at)));
            }
            let mut line = self.buf.as_slice();
            if self.first {
                line = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
                self.first = false;
            }
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.is_empty() {
                if has_data {
                    break;
                }
                event = None;
                continue;
            }
            if line[0] == b':' {
                continue;
            }
            let (field, value) = match memchr::memchr(b':', line) {
                Some(i) => {
                    let v = &line[i + 1..];
                    (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
                }
                None => (line, &b""[..]),
            };
            let e = event.get_or_insert_with(|| SseEvent {
                name: None,
                data: String::new(),
                line: at.number,
                offset: at.offset,
            });
            let value = String::from_utf8_lossy(value);
            match field {
                b"data" => {
                    if has_data {
                        e.data.push('\n');
                    }
                    e.data.push_str(&value);
                    has_data = true;
                }
                b"event" => e.name = Some(value.into_owned()),
                // `id` and `retry` steer a live client's reconnection; a file has none.
                _ => {}
            }
        }
        Ok(event.filter(|_| has_data).map(Frame::Event))
    }
}

/// Whether `head` opens as an event stream: its first line that is not blank is a field
/// (`data:`, `event:`, `id:`, `retry:`) or a comment.
pub(crate) fn looks_like_events(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let Some(line) = head.split(|&b| b == b'\n').find(|l| !l.iter().all(u8::is_ascii_whitespace)) else {
        return false;
    };
    ["data:", "event:", "id:", "retry:", ":"].iter().any(|f| line.starts_with(f.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(input: &str) -> Vec<(Option<String>, String, usize)> {
        let mut ev = Events::new(io::BufReader::with_capacity(5, input.as_bytes()), 1 << 20);
        let mut out = Vec::new();
        while let Some(f) = ev.next_frame().unwrap() {
            if let Frame::Event(e) = f {
                out.push((e.name, e.data, e.line));
            }
        }
        out
    }

    #[test]
    fn crlf_comments_several_data_lines_and_a_cut_end() {
        let got = events(": hi\r\nevent: a\r\ndata: {\"x\":\r\ndata:1}\r\n\r\ndata: [DONE]\n\n\n\nid: 3\n\ndata: cut");
        assert_eq!(
            got,
            [
                (Some("a".to_owned()), "{\"x\":\n1}".to_owned(), 2),
                (None, "[DONE]".to_owned(), 6),
                (None, "cut".to_owned(), 12),
            ]
        );
        assert!(looks_like_events(b"\n\nevent: message_start\n") && !looks_like_events(b"data shows that\n"));
    }
}
