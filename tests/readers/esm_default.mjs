// An ES module whose default export is the extractor (the whole reply, trimmed, parsed), with
// another function beside it.
export function isObject(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export default function parseReply(text) {
  try {
    return JSON.parse(text.trim());
  } catch {
    return undefined;
  }
}
