"""A bracewalk reader command for the Python `json_repair` package: what
repair_json(text, return_objects=True) returns for each reply ("" is nothing read).

    pip install json-repair
    bracewalk scan --reader json_repair='python3 examples/readers/json-repair.py' \
        --compare json_repair,last-wins LOGS
"""
import io
import json
import math
import sys

from json_repair import repair_json


def as_json(v):
    """JSON.stringify's view: a number that is not finite is null (Python would print NaN)."""
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, list):
        return [as_json(x) for x in v]
    if isinstance(v, dict):
        return {k: as_json(x) for k, x in v.items()}
    return v


for line in io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", newline="\n"):
    if not line.strip():
        continue
    request = json.loads(line)
    try:
        value = repair_json(request["text"], return_objects=True)
        answer = {"id": request["id"], "value": None if value == "" else as_json(value)}
    except Exception as e:  # one reply's failure, said for that reply
        answer = {"id": request["id"], "error": f"{type(e).__name__}: {e}"}
    print(json.dumps(answer), flush=True)
