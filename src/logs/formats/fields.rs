//! Reading fields off a JSON record: the small readers every format uses. Nothing here knows
//! a format; the formats know these.

use serde_json::{Map, Value};

use crate::logs::model::names::Name;
use crate::logs::model::reply::StopReason;

/// Whether `key` holds something other than null.
pub(crate) fn has(o: &Map<String, Value>, key: &str) -> bool {
    o.get(key).is_some_and(|v| !v.is_null())
}

/// Whether `key` holds the string `want`.
pub(crate) fn is_str(o: &Map<String, Value>, key: &str, want: &str) -> bool {
    o.get(key).and_then(Value::as_str) == Some(want)
}

/// Whether `key` holds an array.
pub(crate) fn is_array(o: &Map<String, Value>, key: &str) -> bool {
    o.get(key).is_some_and(Value::is_array)
}

/// Whether `key` holds an object.
pub(crate) fn is_object(o: &Map<String, Value>, key: &str) -> bool {
    o.get(key).is_some_and(Value::is_object)
}

/// The string at `key`, taken out of the record (the record is not read again).
pub(crate) fn take_string(o: &mut Map<String, Value>, key: &str) -> Option<String> {
    match o.get_mut(key) {
        Some(Value::String(s)) => Some(std::mem::take(s)),
        _ => None,
    }
}

pub(crate) fn string(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// The string at `key`, as a name of the reply's metadata.
pub(crate) fn name(v: &Value, key: &str) -> Option<Name> {
    v.get(key).and_then(Value::as_str).map(Name::from)
}

pub(crate) fn uint(v: &Value, key: &str) -> Option<u64> {
    v.get(key).and_then(Value::as_u64)
}

/// A few words on a record nothing recognizes: its kind, or its first keys.
pub(crate) fn describe(record: &Value) -> String {
    match record {
        Value::Object(o) if o.is_empty() => "an empty object".to_owned(),
        Value::Object(o) => {
            let keys: Vec<&str> = o.keys().take(6).map(String::as_str).collect();
            let more = if o.len() > 6 { ", …" } else { "" };
            format!("keys {}{more}", keys.join(", "))
        }
        Value::Array(a) => format!("an array of {}", a.len()),
        Value::String(_) => "a string".to_owned(),
        Value::Number(_) => "a number".to_owned(),
        Value::Bool(_) => "a boolean".to_owned(),
        Value::Null => "null".to_owned(),
    }
}

/// The `text` of every block in `content` whose `type` is one of `types` (a block with no
/// `type` but a `text` counts too, as Bedrock Converse writes them), concatenated; and how
/// many blocks gave text. The strings are taken out of the record.
pub(crate) fn join_text(content: Option<&mut Value>, types: &[&str], field: &str) -> (String, usize) {
    let mut text = String::new();
    let mut blocks = 0;
    if let Some(Value::Array(items)) = content {
        for block in items.iter_mut() {
            let Some(o) = block.as_object_mut() else { continue };
            let typed = match o.get("type").and_then(Value::as_str) {
                Some(t) => types.contains(&t),
                None => true,
            };
            if !typed {
                continue;
            }
            if let Some(s) = take_string(o, field) {
                if blocks == 0 {
                    text = s;
                } else {
                    text.push_str(&s);
                }
                blocks += 1;
            }
        }
    }
    (text, blocks)
}

/// What `name` says of each block of `content` whose `type` is `kind`.
pub(crate) fn block_names(content: Option<&Value>, kind: &str, name: impl Fn(&Value) -> Option<String>) -> Vec<String> {
    let Some(Value::Array(blocks)) = content else { return Vec::new() };
    blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str).is_some_and(|t| t == kind))
        .map(|b| name(b).unwrap_or_else(|| kind.to_owned()))
        .collect()
}

/// A stop reason in any provider's words.
pub(crate) fn stop_from_word(word: &str) -> StopReason {
    match word {
        "end_turn" | "stop_sequence" | "stop" | "completed" | "finished" | "STOP" | "COMPLETE" | "STOP_SEQUENCE" => {
            StopReason::Finished
        }
        "max_tokens" | "length" | "incomplete" | "truncated" | "max_output_tokens" | "MAX_TOKENS" => {
            StopReason::Truncated
        }
        "" => StopReason::Unknown,
        _ => StopReason::Other,
    }
}

/// The page number in a page image's name: `annual-report-p17.png` → 17.
pub(crate) fn page_of_image(image: &str) -> Option<u32> {
    let name = image.rsplit(['/', '\\']).next().unwrap_or(image);
    let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
    let (_, digits) = stem.rsplit_once("-p")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// `1718000000000000000` nanoseconds as `2024-06-10T06:13:20.000Z`.
pub(crate) fn iso(ns: u64) -> String {
    let (secs, ms) = (ns / 1_000_000_000, (ns / 1_000_000) % 1000);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Days to a civil date (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{ms:03}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_numbers_come_from_the_image_name() {
        assert_eq!(page_of_image("annual-report-2023-p17.png"), Some(17));
        assert_eq!(page_of_image("pages/x-p003.png"), Some(3));
        assert_eq!(page_of_image("cover.png"), None);
        assert_eq!(page_of_image("x-pages.png"), None);
    }

    #[test]
    fn nanoseconds_read_as_a_utc_time() {
        assert_eq!(iso(1_718_000_000_000_000_000), "2024-06-10T06:13:20.000Z");
        assert_eq!(iso(951_782_400_123_000_000), "2000-02-29T00:00:00.123Z");
    }
}
