// CommonJS that exports one function, and it is not the extractor: `extractJson` is left
// unexported. bracewalk calls what is exported, and says which function that is.
function extractJson(text) {
  return JSON.parse(text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1));
}

function verifyReport(report) {
  return { ok: typeof report === "string" && report.length > 0 };
}

module.exports = verifyReport;
