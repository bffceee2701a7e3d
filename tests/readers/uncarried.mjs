// Answers JSON cannot carry as they are, one a reply: each is carried whole or said to be
// no answer, with why; never nothing.
export function extract(text) {
  const deep = (n) => {
    let v = 1;
    for (let i = 0; i < n; i++) v = [v];
    return v;
  };
  switch (text) {
    case "deep":
      return deep(1500);
    case "deep text":
      return JSON.stringify(deep(1500));
    case "huge":
      return { s: "x".repeat(300 << 20) };
    case "nan":
      return NaN;
    case "infinity":
      return -Infinity;
    case "inner nan":
      return { a: NaN, b: [Infinity] };
    case "bigint":
      return { n: 10n };
    case "map":
      return new Map([[1, "a"]]);
    case "symbol key":
      return { [Symbol("k")]: 1, a: 1 };
    case "cycle": {
      const o = { a: 1 };
      o.self = o;
      return o;
    }
    default:
      return null;
  }
}
