// A CommonJS module that is also a program: run as one, it writes to $BRACEWALK_TEST_MARK
// which guard said it was the program. Required or imported, it writes nothing, and its
// extractor is the first `{` to the last `}`, parsed.
const fs = require("node:fs");

function ran(guard) {
  fs.appendFileSync(process.env.BRACEWALK_TEST_MARK, `${guard}\n`);
}

if (require.main === module) ran("require.main");
if (process.argv[1] === __filename) ran("process.argv[1]");

module.exports = function extractJson(text) {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  return start < 0 || end < start ? null : JSON.parse(text.slice(start, end + 1));
};
