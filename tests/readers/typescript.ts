// A TypeScript extractor: types only (what node strips, and tsx runs).
interface Found {
  value: unknown;
  at: number;
}

function firstObject(text: string): Found | null {
  const start: number = text.indexOf("{");
  if (start < 0) return null;
  try {
    return { value: JSON.parse(text.slice(start, text.lastIndexOf("}") + 1)) as unknown, at: start };
  } catch {
    return null;
  }
}

export function extractJson(text: string): unknown {
  return firstObject(text)?.value ?? null;
}
