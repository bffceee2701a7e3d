//! JSON as Python writes it: `json.dumps` writes a float that is not a number as a bare
//! `NaN`, `Infinity` or `-Infinity`, which JSON has no word for and serde_json refuses.
//! Inspect AI's `.json` logs hold them (a score of NaN), and so may any log a Python tool
//! wrote. This rewrites each, outside strings, to `null` as the bytes stream past, so a
//! document of any size parses in one pass. The two infinities are padded to their own
//! length; `NaN` becomes one byte longer, so on a line holding one, a column serde_json
//! reports after it is one past the byte it means (lines are never moved).

use std::io::{self, BufRead, Read};

const TOKENS: [&[u8]; 3] = [b"NaN", b"Infinity", b"-Infinity"];

/// The rewriting state, fed a byte at a time.
#[derive(Debug, Default)]
struct Rewriter {
    in_string: bool,
    escaped: bool,
    /// Bytes outside a string that may be the start of a token.
    held: Vec<u8>,
}

impl Rewriter {
    fn push(&mut self, b: u8, out: &mut Vec<u8>) {
        if self.in_string {
            out.push(b);
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
            }
            return;
        }
        if !self.held.is_empty() {
            self.held.push(b);
            if let Some(t) = TOKENS.iter().find(|t| **t == self.held.as_slice()) {
                out.extend_from_slice(b"null");
                out.resize(out.len() + t.len().saturating_sub(4), b' ');
                self.held.clear();
                return;
            }
            if TOKENS.iter().any(|t| t.starts_with(&self.held)) {
                return;
            }
            // Not a token after all: the held bytes as they were, and this one afresh.
            self.held.pop();
            out.append(&mut self.held);
        }
        match b {
            b'"' => {
                self.in_string = true;
                out.push(b);
            }
            b'N' | b'I' | b'-' => self.held.push(b),
            _ => out.push(b),
        }
    }

    fn end(&mut self, out: &mut Vec<u8>) {
        out.append(&mut self.held);
    }
}

/// A reader of JSON text with the non-numbers rewritten.
pub(crate) struct Tolerant<R> {
    inner: R,
    rewriter: Rewriter,
    out: Vec<u8>,
    at: usize,
    done: bool,
}

impl<R: BufRead> Tolerant<R> {
    pub fn new(inner: R) -> Tolerant<R> {
        Tolerant { inner, rewriter: Rewriter::default(), out: Vec::with_capacity(1 << 16), at: 0, done: false }
    }
}

impl<R: BufRead> Read for Tolerant<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.out.len() {
            if self.done {
                return Ok(0);
            }
            self.out.clear();
            self.at = 0;
            let chunk = match self.inner.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                self.done = true;
                self.rewriter.end(&mut self.out);
                continue;
            }
            let n = chunk.len();
            for &b in chunk {
                self.rewriter.push(b, &mut self.out);
            }
            self.inner.consume(n);
        }
        let n = buf.len().min(self.out.len() - self.at);
        buf[..n].copy_from_slice(&self.out[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// `bytes` as JSON, with the non-numbers read as `null` when that is what stood in the way.
pub(crate) fn parse(bytes: &[u8]) -> Result<serde_json::Value, serde_json::Error> {
    let err = match serde_json::from_slice(bytes) {
        Ok(v) => return Ok(v),
        Err(e) => e,
    };
    let finder = |needle: &[u8]| memchr::memmem::find(bytes, needle).is_some();
    if !finder(b"NaN") && !finder(b"Infinity") {
        return Err(err);
    }
    let mut rewriter = Rewriter::default();
    let mut out = Vec::with_capacity(bytes.len() + 16);
    for &b in bytes {
        rewriter.push(b, &mut out);
    }
    rewriter.end(&mut out);
    serde_json::from_slice(&out).map_err(|_| err)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(s: &str, chunk: usize) -> String {
        let mut r = Tolerant::new(io::BufReader::with_capacity(chunk, s.as_bytes()));
        let mut out = String::new();
        r.read_to_string(&mut out).unwrap();
        out
    }

    #[test]
    fn non_numbers_outside_strings_become_null_across_any_chunking() {
        let input = r#"{"a": NaN, "b": [Infinity,-Infinity, -1, -0.5], "s": "NaN \"Infinity\" -Infinity", "n": null}"#;
        let want = r#"{"a": null, "b": [null    ,null     , -1, -0.5], "s": "NaN \"Infinity\" -Infinity", "n": null}"#;
        for chunk in [1, 2, 3, 7, 64] {
            assert_eq!(rewrite(input, chunk), want, "chunks of {chunk}");
        }
        assert_eq!(rewrite("[-", 1), "[-");
        let v = parse(input.as_bytes()).unwrap();
        assert_eq!(
            (v["a"].is_null(), v["b"][2].as_i64(), v["s"].as_str()),
            (true, Some(-1), Some("NaN \"Infinity\" -Infinity"))
        );
        assert!(parse(b"{\"a\": Nope}").is_err());
    }
}
