// The extractor of extract.mjs in TypeScript, its only function (node 22.6 or later strips
// the types; an older node runs it through tsx).

export function extractJson(text: string): unknown {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end < start) return null;
  try {
    return JSON.parse(text.slice(start, end + 1));
  } catch {
    return null;
  }
}
