// The seed's extractJson as a whole process over a JSONL corpus, printing {"id",
// "extract_json"} per record: what `bracewalk extract --jsonl FILE --keys id,extract_json`
// prints, to time the two side by side (README, Performance).
//
//   node scripts/seed-extract.mjs FILE     (ORACLE: the oracle's directory, ../shared/oracle)
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const oracle = resolve(process.env.ORACLE ?? new URL("../../shared/oracle", import.meta.url).pathname);
const { extractJson } = await import(pathToFileURL(`${oracle}/seed_json.mjs`).href);
const lines = createInterface({ input: createReadStream(process.argv[2]), crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  const record = JSON.parse(line);
  process.stdout.write(JSON.stringify({ id: record.id, extract_json: extractJson(record.text) }) + "\n");
}
