// bracewalk's runner for an extractor written in JavaScript or TypeScript
// (`--reader NAME=js:FILE[#EXPORT]`), run as `node --input-type=module -e` with the file's path
// and the export's name as arguments, its standard output already on the reader's log and the
// protocol's output on file descriptor 3 (src/readers/protocol.rs says what it speaks).
//
// It loads the file as node loads it from there (its own node_modules), says whether it found
// the function, then calls it on each reply in order and says what it returned: a Promise is
// awaited, a string is sent as the text it is (bracewalk parses it as the caller does), a
// throw or a rejection is sent as what was thrown, and a value as JSON.stringify prints it.
import { writeSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { spawnSync } from "node:child_process";

const PROTOCOL = 3;
// Answers are sent a chunk of requests at a time, or sooner when an extractor is slow.
const FLUSH_MS = 50;
const [file, wanted] = process.argv.slice(1);

function send(text) {
  const bytes = Buffer.from(text, "utf8");
  for (let at = 0; at < bytes.length; ) at += writeSync(PROTOCOL, bytes, at);
}

// What was thrown, in a line: `Name: message`.
function describe(e) {
  try {
    if (e instanceof Error) return `${e.name}: ${e.message}`;
    if (typeof e === "object" && e !== null) return JSON.stringify(e) ?? String(e);
    return String(e);
  } catch {
    return "a value that cannot be shown";
  }
}

// Where in the user's code an error was raised: the first frame in a file outside
// node_modules. A syntax error in an ES module says nowhere, so `node --check` is asked.
function where(e) {
  for (const line of String(e?.stack ?? "").split("\n").slice(1)) {
    const at = /(?:^|\(|\s|file:\/\/)(\/[^\s()]+:\d+:\d+)/.exec(line);
    if (at && !line.includes("[eval") && !line.includes("/node_modules/")) {
      try {
        return decodeURI(at[1]);
      } catch {
        return at[1];
      }
    }
  }
  if (e?.name !== "SyntaxError") return "";
  const check = spawnSync(process.execPath, ["--check", file], { encoding: "utf8" });
  const [place = "", code = ""] = String(check.stderr ?? "").split("\n");
  return place.startsWith("/") || place.startsWith("file:") ? `${place}: ${code.trim()}` : "";
}

function unready(detail) {
  send(JSON.stringify({ unready: detail }) + "\n");
  process.exit(0);
}

let module;
try {
  module = await import(pathToFileURL(file).href);
} catch (e) {
  const at = where(e);
  unready({ stage: "load", error: describe(e) + (at ? ` (at ${at})` : "") });
}

// Whether `v` is a function one calls, not a class (which throws when called without `new`).
function callable(v) {
  if (typeof v !== "function") return false;
  try {
    return !/^class\b/.test(Function.prototype.toString.call(v));
  } catch {
    return true;
  }
}

// The functions the module offers: its named exports, and the members of a CommonJS
// module's exports (or of an object exported as default).
function functions() {
  const found = new Map();
  for (const [name, v] of Object.entries(module)) if (name !== "default" && callable(v)) found.set(name, v);
  const d = module.default;
  if (d !== null && typeof d === "object") {
    for (const name of Object.keys(d)) {
      const v = d[name];
      if (callable(v) && !found.has(name)) found.set(name, v.bind(d));
    }
  }
  return found;
}

// The function named (`a` or `a.b`: a member of an export, called on it), else the default
// export if it is a function, else the only function.
function pick() {
  if (wanted) {
    const [first, ...rest] = wanted.split(".");
    let holder = module;
    let f = first === "default" ? module.default : module[first];
    if (f === undefined && module.default != null && first !== "default") {
      holder = module.default;
      f = holder[first];
    }
    for (const key of rest) {
      holder = f;
      f = f == null ? undefined : f[key];
    }
    if (typeof f !== "function") unready({ stage: "function", wanted, functions: [...functions().keys()] });
    return [wanted, f.bind(holder)];
  }
  if (callable(module.default)) return [module.default.name || "default", module.default];
  const found = functions();
  if (found.size !== 1) unready({ stage: "function", wanted: null, functions: [...found.keys()] });
  return [...found][0];
}

const [name, extract] = pick();
send(JSON.stringify({ ready: { function: name } }) + "\n");

// A rejection no one awaits is the extractor's business: said in its log, never fatal.
process.on("unhandledRejection", (e) => console.error("bracewalk: a rejection no one handled:", e));

function answer(id, v) {
  const head = `{"id":${JSON.stringify(id)}`;
  if (v === undefined || v === null) return `${head}}\n`;
  if (typeof v === "string") return `${head},"json":${JSON.stringify(v)}}\n`;
  let json;
  try {
    json = JSON.stringify(v);
  } catch (e) {
    return `${head},"fail":${JSON.stringify(`returned a value JSON cannot carry (${describe(e)})`)}}\n`;
  }
  if (json === undefined) return `${head},"fail":${JSON.stringify(`returned a ${typeof v}, which JSON cannot carry`)}}\n`;
  return `${head},"value":${json}}\n`;
}

const threw = (id, e) => `{"id":${JSON.stringify(id)},"error":${JSON.stringify(describe(e))}}\n`;

let out = [];
let flushed = performance.now();
function flush() {
  if (out.length) send(out.join(""));
  out = [];
  flushed = performance.now();
}

// Calls the extractor on one request; a Promise when its answer is still to come.
function call(line) {
  const { id, text } = JSON.parse(line);
  let v;
  try {
    v = extract(text);
  } catch (e) {
    out.push(threw(id, e));
    return undefined;
  }
  if (v !== null && (typeof v === "object" || typeof v === "function") && typeof v.then === "function") {
    return Promise.resolve(v).then(
      (r) => out.push(answer(id, r)),
      (e) => out.push(threw(id, e)),
    );
  }
  out.push(answer(id, v));
  return undefined;
}

process.stdin.setEncoding("utf8");
// The start of a line that has not ended yet, in pieces (a reply may be megabytes long).
let pending = [];
for await (const chunk of process.stdin) {
  let start = 0;
  for (let nl = chunk.indexOf("\n"); nl !== -1; nl = chunk.indexOf("\n", start)) {
    let line = chunk.slice(start, nl);
    if (pending.length) {
      pending.push(line);
      line = pending.join("");
      pending = [];
    }
    start = nl + 1;
    if (line.trim() === "") continue;
    const later = call(line);
    if (later) await later;
    if (performance.now() - flushed > FLUSH_MS) flush();
  }
  if (start < chunk.length) pending.push(chunk.slice(start));
  flush();
}
const last = pending.join("");
if (last.trim() !== "") {
  const later = call(last);
  if (later) await later;
}
flush();
