# bracewalk's runner for an extractor written in Python (`--reader NAME=py:TARGET[:ATTR]`), run
# as `python3 -B -c` with the target's kind (`file` or `module`), the target and the attribute's
# name as arguments, its standard output already on the reader's log and the protocol's output
# on file descriptor 3 (src/readers/protocol.rs says what it speaks).
#
# It imports the target (the file's directory and the working directory on sys.path), says
# whether it found the function, then calls it on each reply in order and says what it
# returned: an awaitable is awaited, a string is sent as the text it is (bracewalk parses it as
# the caller does), an exception as what was raised, and a value as JSON with every number that
# is not finite as null (JSON.stringify's view: Python's json would print `NaN`, not JSON).
import dataclasses
import importlib
import importlib.util
import inspect
import json
import math
import os
import sys
import time
import traceback

PROTOCOL = 3
# Answers are sent a chunk of requests at a time, or sooner when an extractor is slow.
FLUSH_SECONDS = 0.05


def send(data):
    view = memoryview(data)
    while view:
        view = view[os.write(PROTOCOL, view):]


def line(obj):
    return (json.dumps(obj, separators=(",", ":")) + "\n").encode()


def describe(e):
    text = str(e)
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def where(e):
    """The last frame of the traceback in the user's code (not this runner's, not a library's)."""
    frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename != "<string>" and "importlib" not in f.filename]
    return f"{frames[-1].filename}:{frames[-1].lineno}" if frames else ""


def unready(detail):
    send(line({"unready": detail}))
    sys.exit(0)


def load(kind, target):
    cwd = os.getcwd()
    if kind == "file":
        sys.path[:0] = [os.path.dirname(target), cwd]
        stem = os.path.splitext(os.path.basename(target))[0]
        name = stem if stem.isidentifier() and stem not in sys.modules else "bracewalk_reader"
        spec = importlib.util.spec_from_file_location(name, target)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    sys.path[:0] = [cwd]
    return importlib.import_module(target)


def public_functions(module):
    """The module's public functions: those `__all__` names, else those defined in it."""
    listed = getattr(module, "__all__", None)
    names = listed if listed is not None else [n for n in vars(module) if not n.startswith("_")]
    found = []
    for n in names:
        v = getattr(module, n, None)
        if not callable(v) or inspect.isclass(v):
            continue
        if listed is not None or getattr(v, "__module__", None) == module.__name__:
            found.append(n)
    return found


def methods(cls):
    """The class's public methods, as `Class.method`."""
    found = []
    for n, v in vars(cls).items():
        if not n.startswith("_") and (isinstance(v, (staticmethod, classmethod)) or inspect.isfunction(v)):
            found.append(f"{cls.__name__}.{n}")
    return found


def pick(module, attr):
    """The function `attr` names (`f` or `Class.method`; an instance method is called on
    `Class()`), else the module's only public function."""
    if not attr:
        found = public_functions(module)
        if len(found) != 1:
            unready({"stage": "function", "wanted": None, "functions": found})
        return found[0], getattr(module, found[0])
    holder, value = None, module
    for part in attr.split("."):
        holder, value = value, getattr(value, part, None)
        if value is None:
            candidates = methods(holder) if inspect.isclass(holder) else public_functions(module)
            unready({"stage": "function", "wanted": attr, "functions": candidates})
    if inspect.isclass(holder) and inspect.isfunction(inspect.getattr_static(holder, attr.split(".")[-1], None)):
        try:
            value = getattr(holder(), attr.split(".")[-1])
        except Exception as e:
            unready({"stage": "load", "error": f"{attr} is an instance method, and {holder.__name__}() raised {describe(e)}"})
    if not callable(value):
        unready({"stage": "function", "wanted": attr, "functions": public_functions(module)})
    return attr, value


def finite(v):
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, dict):
        return {k: finite(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [finite(x) for x in v]
    return v


def as_json(o):
    if dataclasses.is_dataclass(o) and not isinstance(o, type):
        return dataclasses.asdict(o)
    dump = getattr(o, "model_dump", None)
    if callable(dump):
        return dump()
    raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")


def dumps(v):
    try:
        return json.dumps(v, allow_nan=False, separators=(",", ":"), default=as_json)
    except ValueError:
        # A number that is not finite (or a cycle, which this does not mend either).
        return json.dumps(finite(v), allow_nan=False, separators=(",", ":"), default=as_json)


def answer(request_id, v):
    head = '{"id":' + json.dumps(request_id)
    if v is None:
        return (head + "}\n").encode()
    if isinstance(v, (bytes, bytearray)):
        v = bytes(v).decode("utf-8", "replace")
    if isinstance(v, str):
        return (head + ',"json":' + json.dumps(v) + "}\n").encode()
    try:
        return (head + ',"value":' + dumps(v) + "}\n").encode()
    except (ValueError, TypeError, RecursionError) as e:
        return (head + ',"fail":' + json.dumps(f"returned a value JSON cannot carry ({describe(e)})") + "}\n").encode()


def main():
    kind, target, attr = sys.argv[1:4]
    os.set_inheritable(PROTOCOL, False)
    # Its standard output is the reader's log: a line there is seen as it is printed.
    sys.stdout.reconfigure(line_buffering=True)
    try:
        module = load(kind, target)
    except BaseException as e:  # an import that exits is a load that failed too
        at = where(e)
        unready({"stage": "load", "error": describe(e) + (f" (at {at})" if at else "")})
    name, extract = pick(module, attr)
    send(line({"ready": {"function": name}}))

    loop = None
    out = []
    flushed = time.monotonic()

    def flush():
        nonlocal out, flushed
        if out:
            send(b"".join(out))
        out = []
        flushed = time.monotonic()

    def call(raw):
        nonlocal loop
        request = json.loads(raw)
        request_id = request["id"]
        try:
            v = extract(request["text"])
            if inspect.isawaitable(v):
                if loop is None:
                    import asyncio

                    loop = asyncio.new_event_loop()
                v = loop.run_until_complete(v)
        except Exception as e:
            out.append(('{"id":' + json.dumps(request_id) + ',"error":' + json.dumps(describe(e)) + "}\n").encode())
            return
        out.append(answer(request_id, v))

    pending = []
    while True:
        chunk = os.read(0, 1 << 16)
        if not chunk:
            break
        start = 0
        while True:
            nl = chunk.find(b"\n", start)
            if nl < 0:
                break
            raw = chunk[start:nl]
            if pending:
                pending.append(raw)
                raw = b"".join(pending)
                pending = []
            start = nl + 1
            if raw.strip():
                call(raw)
                if time.monotonic() - flushed > FLUSH_SECONDS:
                    flush()
        if start < len(chunk):
            pending.append(chunk[start:])
        flush()
    rest = b"".join(pending)
    if rest.strip():
        call(rest)
    flush()


main()
