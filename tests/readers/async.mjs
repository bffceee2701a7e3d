// An async extractor that rejects when it finds no object (its caller awaits it in a try).
export async function extract(text) {
  await new Promise((resolve) => setTimeout(resolve, 0));
  const start = text.indexOf("{");
  if (start < 0) throw new Error("no JSON object");
  return JSON.parse(text.slice(start, text.lastIndexOf("}") + 1));
}
