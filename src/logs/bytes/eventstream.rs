//! The AWS event-stream framing (`application/vnd.amazon.eventstream`), as Bedrock's
//! streaming APIs write it and a capture of their body saves it: a run of messages, each
//!
//! ```text
//! total length u32 | headers length u32 | prelude CRC u32 | headers | payload | message CRC u32
//! ```
//!
//! big-endian, the prelude CRC a CRC-32 of the first 8 bytes and the message CRC one of
//! everything before it. A header is a name (u8 length) and a typed value.
//!
//! Written here rather than taken from `aws-smithy-eventstream`: that crate is the SDK's own
//! (its README advises against using it directly), brings some twenty crates (http, time,
//! base64-simd, …) and asks for a newer Rust than this project builds with, for a framing that
//! is this page. The CRCs are `crc32fast`'s.

use std::io::{self, Read};

use crate::logs::model::diagnostic::Problem;

/// The most a frame's headers may take (the SDKs' limit).
const MAX_HEADERS: usize = 128 * 1024;

/// One message of the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Message {
    /// The byte its frame begins at.
    pub offset: u64,
    pub headers: Vec<(String, Header)>,
    pub payload: Vec<u8>,
}

/// A header's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Header {
    Bool(bool),
    Int(i64),
    Bytes(Vec<u8>),
    String(String),
    /// Milliseconds since the epoch.
    Timestamp(i64),
    Uuid([u8; 16]),
}

impl Message {
    /// The string header `name` (`:event-type`, `:message-type`, …).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).and_then(|(_, v)| match v {
            Header::String(s) => Some(s.as_str()),
            _ => None,
        })
    }
}

/// Whether `head` opens with a frame: its prelude CRC holds, and an event-stream header name
/// follows. (No text file and no other format opens so.)
pub(crate) fn opens_a_frame(head: &[u8]) -> bool {
    let Some(prelude) = head.get(..12) else { return false };
    let total = be32(&prelude[0..4]) as usize;
    let headers = be32(&prelude[4..8]) as usize;
    if total < 16 || headers > total - 16 || be32(&prelude[8..12]) != crc32fast::hash(&prelude[..8]) {
        return false;
    }
    let names = &head[12..head.len().min(12 + headers)];
    [&b":event-type"[..], b":message-type", b":content-type"].iter().any(|n| memchr::memmem::find(names, n).is_some())
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

/// What reading the next frame found.
#[derive(Debug)]
pub(crate) enum EventFrame {
    Message(Message),
    /// A frame that could not be read, at `offset`. When its prelude is wrong, or the file
    /// ends inside it, nothing after it can be found, and it is the last.
    Bad {
        offset: u64,
        problem: Problem,
    },
}

/// The frames of a stream, read one at a time: memory is the largest frame.
pub(crate) struct Frames<R> {
    inner: R,
    offset: u64,
    /// The largest frame read.
    max: usize,
    done: bool,
}

impl<R: Read> Frames<R> {
    pub fn new(inner: R, max: usize) -> Frames<R> {
        Frames { inner, offset: 0, max, done: false }
    }

    /// The next frame; `None` at the end (or after a frame nothing follows).
    pub fn next_frame(&mut self) -> io::Result<Option<EventFrame>> {
        if self.done {
            return Ok(None);
        }
        let at = self.offset;
        let mut prelude = [0u8; 12];
        let got = read_full(&mut self.inner, &mut prelude)?;
        if got == 0 {
            return Ok(None);
        }
        let bad = |this: &mut Self, what: String| {
            this.done = true;
            Ok(Some(EventFrame::Bad { offset: at, problem: Problem::BadRecord(what) }))
        };
        if got < 12 {
            return bad(self, format!("the stream ends inside a frame's prelude at byte {at} (a capture cut short)"));
        }
        let total = be32(&prelude[0..4]) as usize;
        let headers = be32(&prelude[4..8]) as usize;
        if be32(&prelude[8..12]) != crc32fast::hash(&prelude[..8]) {
            return bad(
                self,
                format!("the frame at byte {at} fails its prelude CRC: not an event stream from there on"),
            );
        }
        if total < 16 || headers > total - 16 || headers > MAX_HEADERS || total > self.max {
            return bad(self, format!("the frame at byte {at} says it is {total} bytes with {headers} of headers"));
        }
        let mut frame = vec![0u8; total];
        frame[..12].copy_from_slice(&prelude);
        let got = read_full(&mut self.inner, &mut frame[12..])?;
        self.offset += (12 + got) as u64;
        if got < total - 12 {
            return bad(self, format!("the stream ends inside the frame at byte {at} (a capture cut short)"));
        }
        let crc = be32(&frame[total - 4..]);
        if crc != crc32fast::hash(&frame[..total - 4]) {
            let problem = Problem::BadRecord(format!("the frame at byte {at} fails its message CRC; skipped"));
            return Ok(Some(EventFrame::Bad { offset: at, problem }));
        }
        let payload = frame[12 + headers..total - 4].to_vec();
        match parse_headers(&frame[12..12 + headers]) {
            Ok(headers) => Ok(Some(EventFrame::Message(Message { offset: at, headers, payload }))),
            Err(what) => {
                let problem =
                    Problem::BadRecord(format!("the frame at byte {at} has headers that do not read: {what}"));
                Ok(Some(EventFrame::Bad { offset: at, problem }))
            }
        }
    }
}

/// Fills `buf` as far as the input goes; how much it got.
fn read_full(inner: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match inner.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// Why a frame's headers do not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum HeaderError {
    #[error("a header runs past the headers")]
    Overrun,
    #[error("a header's name or string is not UTF-8")]
    NotUtf8,
    #[error("a header of unknown type {0}")]
    UnknownType(u8),
}

/// A frame's headers: each a name (u8 length), a type byte, a value.
fn parse_headers(mut b: &[u8]) -> Result<Vec<(String, Header)>, HeaderError> {
    let take = |n: usize, b: &mut &[u8]| -> Result<Vec<u8>, HeaderError> {
        let (head, rest) = b.split_at_checked(n).ok_or(HeaderError::Overrun)?;
        *b = rest;
        Ok(head.to_vec())
    };
    let mut headers = Vec::new();
    while !b.is_empty() {
        let len = take(1, &mut b)?[0] as usize;
        let name = String::from_utf8(take(len, &mut b)?).map_err(|_| HeaderError::NotUtf8)?;
        let kind = take(1, &mut b)?[0];
        let int = |bytes: Vec<u8>| bytes.iter().fold(0i64, |n, &x| (n << 8) | i64::from(x));
        let signed = |bytes: Vec<u8>, bits: u32| {
            let n = int(bytes);
            (n << (64 - bits)) >> (64 - bits)
        };
        let value = match kind {
            0 => Header::Bool(true),
            1 => Header::Bool(false),
            2 => Header::Int(signed(take(1, &mut b)?, 8)),
            3 => Header::Int(signed(take(2, &mut b)?, 16)),
            4 => Header::Int(signed(take(4, &mut b)?, 32)),
            5 => Header::Int(int(take(8, &mut b)?)),
            6 | 7 => {
                let len = take(2, &mut b)?;
                let value = take(usize::from(u16::from_be_bytes([len[0], len[1]])), &mut b)?;
                if kind == 6 {
                    Header::Bytes(value)
                } else {
                    Header::String(String::from_utf8(value).map_err(|_| HeaderError::NotUtf8)?)
                }
            }
            8 => Header::Timestamp(int(take(8, &mut b)?)),
            9 => {
                let mut uuid = [0u8; 16];
                uuid.copy_from_slice(&take(16, &mut b)?);
                Header::Uuid(uuid)
            }
            other => return Err(HeaderError::UnknownType(other)),
        };
        headers.push((name, value));
    }
    Ok(headers)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One frame with string headers, as the service writes them.
    fn frame(headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
        let mut h = Vec::new();
        for (name, value) in headers {
            h.push(name.len() as u8);
            h.extend_from_slice(name.as_bytes());
            h.push(7);
            h.extend_from_slice(&(value.len() as u16).to_be_bytes());
            h.extend_from_slice(value.as_bytes());
        }
        let total = 12 + h.len() + payload.len() + 4;
        let mut f = Vec::new();
        f.extend_from_slice(&(total as u32).to_be_bytes());
        f.extend_from_slice(&(h.len() as u32).to_be_bytes());
        f.extend_from_slice(&crc32fast::hash(&f).to_be_bytes());
        f.extend_from_slice(&h);
        f.extend_from_slice(payload);
        f.extend_from_slice(&crc32fast::hash(&f).to_be_bytes());
        f
    }

    fn read_all(bytes: &[u8]) -> Vec<EventFrame> {
        let mut frames = Frames::new(bytes, 1 << 20);
        let mut got = Vec::new();
        while let Some(f) = frames.next_frame().unwrap() {
            got.push(f);
        }
        got
    }

    /// A frame whose CRCs were computed apart from this code (Python's `zlib.crc32`).
    #[test]
    fn a_frame_checked_by_an_independent_crc_reads() {
        let mut bytes = vec![0x00, 0x00, 0x00, 0x45, 0x00, 0x00, 0x00, 0x1a, 0x08, 0x53, 0xf1, 0x2a];
        bytes.extend_from_slice(b"\x0b:event-type\x07\x00\x0bmessageStop");
        bytes.extend_from_slice(br#"{"stopReason":"max_tokens"}"#);
        bytes.extend_from_slice(&[0x4d, 0x45, 0xea, 0xed]);
        assert_eq!(bytes, frame(&[(":event-type", "messageStop")], br#"{"stopReason":"max_tokens"}"#));
        assert!(opens_a_frame(&bytes));
        let [EventFrame::Message(m)] = &read_all(&bytes)[..] else { panic!("one message") };
        assert_eq!(
            (m.header(":event-type"), m.payload.as_slice()),
            (Some("messageStop"), &br#"{"stopReason":"max_tokens"}"#[..])
        );
    }

    #[test]
    fn a_bad_message_crc_skips_its_frame_and_a_bad_prelude_ends_the_stream() {
        let one = frame(&[(":message-type", "event")], b"{}");
        let mut bad = one.clone();
        let last = bad.len() - 5;
        bad[last] ^= 1;
        let stream = [one.clone(), bad, one.clone()].concat();
        let got = read_all(&stream);
        assert!(
            matches!(&got[..], [EventFrame::Message(_), EventFrame::Bad { .. }, EventFrame::Message(m)] if m.offset == 2 * one.len() as u64)
        );
        let mut broken = one.clone();
        broken[9] ^= 1;
        let got = read_all(&[one.clone(), broken, one.clone()].concat());
        assert!(matches!(&got[..], [EventFrame::Message(_), EventFrame::Bad { .. }]));
        let got = read_all(&one[..one.len() - 3]);
        let [EventFrame::Bad { problem, .. }] = &got[..] else { panic!("{got:?}") };
        assert!(problem.to_string().contains("cut short"), "{problem}");
        assert!(!opens_a_frame(b"{\"data\": 1}\n") && !opens_a_frame(&broken_prelude()));
    }

    fn broken_prelude() -> Vec<u8> {
        let mut f = frame(&[(":event-type", "chunk")], b"{}");
        f[8] ^= 0xff;
        f
    }
}
