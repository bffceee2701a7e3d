// Throws when it finds no JSON, the common style: its caller catches and carries on.
export function extractJson(text) {
  const start = text.indexOf("{");
  if (start < 0) throw new SyntaxError("No JSON object found in the reply");
  return JSON.parse(text.slice(start, text.lastIndexOf("}") + 1));
}
