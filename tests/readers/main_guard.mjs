// An ES module that is also a program: run as one, it writes to $BRACEWALK_TEST_MARK which
// guard said it was the program. Imported, as bracewalk's runner imports it, it writes
// nothing, and its extractor is the first `{` to the last `}`, parsed.
import { appendFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

function ran(guard) {
  appendFileSync(process.env.BRACEWALK_TEST_MARK, `${guard}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) ran("import.meta.url");
if (process.argv[1] === fileURLToPath(import.meta.url)) ran("process.argv[1]");
if (import.meta.main) ran("import.meta.main");

export function extractJson(text) {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  return start < 0 || end < start ? null : JSON.parse(text.slice(start, end + 1));
}
