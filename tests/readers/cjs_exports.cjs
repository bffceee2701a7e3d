// CommonJS: `exports.fn`, beside a value that is not a function.
exports.VERSION = "2";

exports.extractJson = function (text) {
  const start = text.indexOf("{");
  if (start < 0) return null;
  try {
    return JSON.parse(text.slice(start, text.lastIndexOf("}") + 1));
  } catch {
    return null;
  }
};
