// Wraps its answer, as many libraries do: `{ok, data}` or `{ok: false, error}`.
export function safeParse(text) {
  const start = text.indexOf("{");
  if (start < 0) return { ok: false, error: "no object" };
  try {
    return { ok: true, data: JSON.parse(text.slice(start, text.lastIndexOf("}") + 1)) };
  } catch (e) {
    return { ok: false, error: String(e) };
  }
}
