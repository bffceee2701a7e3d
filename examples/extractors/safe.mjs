// An extractor whose caller reads a wrapper: `{ok: true, data}` with what it found, and `{}`
// when it found nothing. Its reader says so: `?unwrap=/data&nothing={}`.

export function safeParse(text) {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end < start) return {};
  try {
    return { ok: true, data: JSON.parse(text.slice(start, end + 1)) };
  } catch {
    return {};
  }
}
