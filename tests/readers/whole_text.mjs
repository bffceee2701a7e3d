// A stand-in extractor for the module adapter's test (examples/readers/module.mjs): the trimmed
// reply parsed whole, else nothing; it throws on a reply that asks it to.
export function extractJson(text) {
  if (text.includes("throw me")) throw new Error("asked to throw");
  try {
    return JSON.parse(text.trim());
  } catch {
    return null;
  }
}
