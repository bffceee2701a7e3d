// An ES module with a named extractor: the first `{` to the last `}`, parsed; null otherwise.
export const VERSION = "1.0";

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
