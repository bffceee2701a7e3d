// A bracewalk reader command for the npm `jsonrepair` package: what JSON.parse(jsonrepair(text))
// holds for each reply, nothing where jsonrepair throws (a caller that catches holds nothing).
//
//   npm install jsonrepair        # here, in a directory above, or -g with NODE_PATH="$(npm root -g)"
//   bracewalk scan --reader jsonrepair='node examples/readers/jsonrepair.mjs' --compare jsonrepair,last-wins LOGS
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const { jsonrepair } = await import("jsonrepair").catch(() =>
  // Where ES modules do not look: NODE_PATH, as require() reads it.
  import(pathToFileURL(createRequire(import.meta.url).resolve("jsonrepair")).href),
);

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (!line.trim()) continue;
  const { id, text } = JSON.parse(line);
  let value = null;
  try {
    value = JSON.parse(jsonrepair(text));
  } catch {
    // Not repairable: nothing read.
  }
  process.stdout.write(JSON.stringify({ id, value }) + "\n");
}
