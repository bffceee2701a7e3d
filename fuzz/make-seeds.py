#!/usr/bin/env python3
"""Writes the committed seed corpus, fuzz/seeds/<target>/, from the golden replies and the
sample logs, plus adversarial shapes. Deterministic: rerunning it rewrites the same files.

Seeds whose name starts with `regression-` are minimized findings, kept by hand: this
script leaves them alone. `tests/readers/fuzz.rs` replays every seed through its target's
checks on stable, so each one is also a regression test that `cargo test` runs.
"""
import hashlib
import json
import os
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
SEEDS = ROOT / "fuzz" / "seeds"
LIMIT = 4096


def write(target, data, name=None):
    d = SEEDS / target
    d.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    name = name or hashlib.sha1(data).hexdigest()[:16]
    (d / name).write_bytes(data)


def clear(target):
    d = SEEDS / target
    if d.exists():
        for f in d.iterdir():
            if not f.name.startswith("regression-"):
                f.unlink()


def golden(per_shape):
    """Up to `per_shape` replies under LIMIT bytes of each golden shape, in file order."""
    seen = {}
    with open(ROOT / "tests" / "golden" / "replies.jsonl", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            shape = r["id"].rsplit("-", 1)[0]
            text = r["text"].encode("utf-8", "surrogatepass")
            # Deep and adversarial shapes are kept short: the recorded walk of a deep reply is quadratic (every
            # candidate's reading holds the rest of the nest), and the fuzzer grows them anyway.
            limit = LIMIT // 4 if shape.startswith(("deep", "adv")) else LIMIT
            if len(text) < limit and seen.get(shape, 0) < per_shape:
                seen[shape] = seen.get(shape, 0) + 1
                yield text


# Shapes that have stressed the readers: deep nesting, brace and quote soups, cut strings,
# JavaScript-only whitespace, lone surrogates, control characters, escapes for a terminal.
ADVERSARIAL = [
    "{" * 600,
    "[" * 600,
    "{\"a\":" * 200 + "1" + "}" * 200,
    "[" * 300 + "]" * 300,
    "{\"" * 300,
    "\"{" * 300,
    "{\"a\":\"" * 150,
    "{}" * 300,
    "{[" * 300,
    "\\\"{" * 200,
    "{\"k\": \"v\"} " * 100,
    "{\"html\": \"<a href=\"x\">y</a>\", \"log\": \"z\"}",
    "{\"a\": \"\\ud800\", \"b\": \"\\udc00x\", \"c\": \"\\ud83d\\ude00\"}",
    "\u00a0\ufeff\u2028{\"a\":1}\u3000\u0085",
    "{\"edits\": [{\"op\": \"replace\", \"at\": 1}, {\"op\": \"ins",
    "```json\n{\"a\": 1}\n```\n```json\n{\"a\": 2,\n```",
    "{\"a\": \"\x1b]0;title\x07\", \"b\": \"\u202etxet\"}\x1b[2J\x9b1m\u200b",
    "{\"n\": [1e400, -0, 0.1e-400, 123456789012345678901234567890, 5e-324]}",
    "{\"__proto__\": 1, \"0\": 2, \"4294967295\": 3, \"4294967294\": 4, \"\": 5}",
]

JSON = [
    "null", "true", "false", "0", "-0", "1e400", "-1e400", "1.7976931348623157e308", "5e-324",
    "2.2250738585072011e-308", "0.1", "123456789012345678901234567890", "18446744073709551616",
    "-9223372036854775809", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud83d\\ude00\"", "\"\\ud800\\u0041\"",
    "\"\\ud800x\"", "\"\\u0000\\b\\f\\n\\r\\t\\/\\\\\\\"\"", "[1,2,[3,{\"a\":[]}]]",
    "{\"a\":1,\"a\":2,\"1\":3,\"0\":4}", "{\"__proto__\":{\"x\":1}}", " \t\r\n[ ] ", "[" * 127 + "]" * 127,
    "[" * 129 + "]" * 129, "{\"a\":" * 130 + "0" + "}" * 130, "\ufeff{}", "[1,]", "{\"a\" 1}", "01", "1.",
    "-", "\"\x01\"", "\"\u2028\u00e9\U0001F600\"",
]


def main():
    for t in ["readers", "explain", "json_parse", "loader"]:
        clear(t)

    for text in golden(2):
        write("readers", text)
    for text in golden(1):
        write("explain", text)
    for text in ADVERSARIAL:
        write("readers", text)
        write("explain", text)

    for text in JSON:
        write("json_parse", text)
    for text in ADVERSARIAL:
        write("json_parse", text)
    # The JSON inside golden replies that are JSON whole, and some that are not.
    for text in golden(1):
        write("json_parse", text.strip())

    # The loader: one byte of name and directory (see fuzz_targets/loader.rs), the bytes,
    # and 0xFF between files.
    names = ["log.jsonl", "a.json", "b.txt", "c.jsonl", "ledger.jsonl", "d.md", "meta.json", "status.json",
             "diagnostics.json", "output.html", "reply.html", "page.png", "README.md", ".hidden.jsonl", "noext",
             "e.JSONL"]

    def head(name, d):
        return bytes([names.index(name) | (d << 4)])

    samples = ROOT / "sample-logs"
    for path in sorted(samples.rglob("*")):
        if not path.is_file() or path.stat().st_size >= LIMIT or path.name.lower().startswith("readme"):
            continue
        data = path.read_bytes()
        for guess in (path.name, "a.json" if path.suffix == ".json" else "c.jsonl"):
            if guess in names:
                write("loader", head(guess, 0) + data)
                break
        else:
            write("loader", head("b.txt", 0) + data)
    # A campaign: a ledger at the root, a document's run log and context files beside it.
    round5 = samples / "round-5"
    ledger = (round5 / "ledger.jsonl").read_bytes()
    doc = round5 / "5be7f03a21c6d9e4"
    parts = [head("ledger.jsonl", 0) + ledger]
    for name in ["meta.json", "status.json", "diagnostics.json"]:
        parts.append(head(name, 2) + (doc / name).read_bytes())
    log = (doc / "log.jsonl").read_bytes()
    parts.append(head("log.jsonl", 2) + log[: LIMIT * 2])
    write("loader", b"\xff".join(parts), "campaign")
    write("loader", b"\x80" + b"\xff".join(parts), "campaign-small-limits")
    write("loader", head("log.jsonl", 1) + b"{\"type\":\"agent_call\",\"ts\":\"t\",\"agent\":\"page.md\",\"output\":\"{}\"}", "unterminated")
    write("loader", head("b.txt", 1) + b"\xc3\x28 \xed\xa0\x80 {\"a\":1}\n", "invalid-utf8")
    write("loader", b"", "empty")


if __name__ == "__main__":
    main()
