// A bracewalk reader command around any ES module that exports an extractor `(text) => value`:
//
//   bracewalk scan --reader mine='node examples/readers/module.mjs path/to/json.mjs extractJson' \
//       --compare mine,last-wins LOGS
//
// Reads {"id", "text"} lines, answers {"id", "value"} lines in order (JSON.stringify's value:
// `undefined` and `null` are nothing read), or {"id", "error"} when the extractor throws.
// Needs node 18 or later, nothing else.
import { createInterface } from "node:readline";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [path, name = "extractJson"] = process.argv.slice(2);
if (!path) throw new Error("usage: node module.mjs path/to/module.mjs [exportName]");
const extract = (await import(pathToFileURL(resolve(path)).href))[name];
if (typeof extract !== "function") throw new Error(`${path} exports no function ${name}`);

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (!line.trim()) continue;
  const { id, text } = JSON.parse(line);
  let answer;
  try {
    answer = JSON.stringify({ id, value: extract(text) ?? null });
  } catch (e) {
    answer = JSON.stringify({ id, error: String(e?.message ?? e) });
  }
  process.stdout.write(answer + "\n");
}
