//! Bytes as JSON and as text: a line parsed (Python's `NaN` tolerated, bad UTF-8 decoded
//! lossily and said so), a line told cut short from broken, and serde_json's errors worded
//! in the terms of a line.

use std::io;

use serde::de::IgnoredAny;
use serde_json::Value;

use crate::logs::bytes::lines::LineAt;
use crate::logs::bytes::nan;
use crate::logs::model::diagnostic::Problem;

/// A line as JSON. Invalid UTF-8 is decoded lossily and said so, at its byte in the file.
pub(crate) fn parse_line(buf: &[u8], at: &LineAt) -> Result<(Value, Option<Problem>), Problem> {
    match nan::parse(buf) {
        Ok(v) => Ok((v, None)),
        Err(e) if std::str::from_utf8(buf).is_ok() => Err(Problem::MalformedJson(json_error(&e))),
        Err(_) => {
            let (text, bad) = decode(buf.to_vec());
            let value = nan::parse(text.as_bytes()).map_err(|e| Problem::MalformedJson(json_error(&e)))?;
            Ok((value, bad.map(|(first, count)| Problem::InvalidUtf8 { first: at.offset + first, count })))
        }
    }
}

/// Whether `line` is JSON cut short: what a line still being written is. (Every prefix of
/// a JSON text fails, if it fails, at its end.)
pub(crate) fn cut_short(line: &[u8]) -> bool {
    serde_json::from_slice::<IgnoredAny>(line).is_err_and(|e| e.is_eof())
}

/// Steps past a UTF-8 byte order mark, which JSON parsers refuse.
pub(crate) fn skip_bom(input: &mut impl io::BufRead) -> io::Result<()> {
    if input.fill_buf()?.starts_with(b"\xef\xbb\xbf") {
        input.consume(3);
    }
    Ok(())
}

/// serde_json's message, with the position said once and in the terms of a line.
pub(crate) fn json_error(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let message = full.rsplit_once(" at line ").map_or(full.as_str(), |(m, _)| m);
    if e.line() <= 1 {
        format!("{message} at column {}", e.column())
    } else {
        format!("{message} at line {} column {}", e.line(), e.column())
    }
}

/// Text from bytes, lossily; the offset of the first bad byte and the number of bad
/// sequences when there were any.
pub(crate) fn decode(bytes: Vec<u8>) -> (String, Option<(u64, usize)>) {
    match String::from_utf8(bytes) {
        Ok(s) => (s, None),
        Err(e) => {
            let bytes = e.into_bytes();
            let (mut first, mut count, mut at) = (None, 0, 0usize);
            for chunk in bytes.utf8_chunks() {
                at += chunk.valid().len();
                if !chunk.invalid().is_empty() {
                    first.get_or_insert(at);
                    count += 1;
                }
                at += chunk.invalid().len();
            }
            let text = String::from_utf8_lossy(&bytes).into_owned();
            (text, Some((first.unwrap_or(0) as u64, count)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lossy_decoding_reports_the_first_bad_byte_and_the_count() {
        let (text, bad) = decode(b"ok \xff then \xc3( end".to_vec());
        assert_eq!(text, "ok \u{fffd} then \u{fffd}( end");
        assert_eq!(bad, Some((3, 2)));
    }

    #[test]
    fn json_errors_name_the_column() {
        let e = serde_json::from_str::<Value>("{\"a\": tru}").unwrap_err();
        assert_eq!(json_error(&e), "expected ident at column 10");
    }
}
