// CommonJS: `module.exports = fn`. The first fenced block, else the whole reply, parsed.
function parseFenced(text) {
  const fence = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const body = fence ? fence[1] : text;
  try {
    return JSON.parse(body.trim());
  } catch {
    return null;
  }
}

module.exports = parseFenced;
