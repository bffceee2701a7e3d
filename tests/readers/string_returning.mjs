// Returns the JSON *text* it found (its caller JSON.parses it), or "" when it found none.
export function findJsonText(text) {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  return start >= 0 && end > start ? text.slice(start, end + 1) : "";
}
