// Returns `{}` when it finds nothing: its caller treats an empty object as "no JSON".
export function extractOrEmpty(text) {
  const start = text.indexOf("{");
  if (start < 0) return {};
  try {
    return JSON.parse(text.slice(start, text.lastIndexOf("}") + 1));
  } catch {
    return {};
  }
}
