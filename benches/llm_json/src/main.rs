//! `llm-json-jsonl FILE`: for each JSONL record `{"id", "text"}`, `{"id", "extract_json"}`
//! with llm_json's repaired value of the text (`null` where it gives none).

use std::io::{BufRead, BufReader, BufWriter, Write};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: llm-json-jsonl FILE")?;
    let input = BufReader::new(std::fs::File::open(path)?);
    let mut out = BufWriter::new(std::io::stdout().lock());
    let options = llm_json::RepairOptions::default();
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let record: serde_json::Value = serde_json::from_str(&line)?;
        let text = record.get("text").and_then(serde_json::Value::as_str).unwrap_or_default();
        let value = llm_json::loads(text, &options).unwrap_or(serde_json::Value::Null);
        let printed = serde_json::json!({"id": record.get("id"), "extract_json": value});
        writeln!(out, "{printed}")?;
    }
    out.flush()?;
    Ok(())
}
