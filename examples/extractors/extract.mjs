// An extractor as many pipelines write one: the text from the first `{` to the last `}`,
// parsed; null when there is none or it does not parse. The guide's readers of your own run
// it beside the seed:
//
//   bracewalk scan --reader mine=js:examples/extractors/extract.mjs#extractJson sample-logs

export const EXTRACTOR = "first brace to last";

export function extractJson(text) {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end < start) return null;
  try {
    return JSON.parse(text.slice(start, end + 1));
  } catch {
    return null;
  }
}
