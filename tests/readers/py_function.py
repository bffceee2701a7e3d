"""A module-level extractor: the first `{` to the last `}`, parsed; None otherwise."""
import json
import re
from json import loads  # imported, not its own: not a candidate

OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def _clean(text):
    return text.strip()


def extract_json(text):
    found = OBJECT.search(_clean(text))
    if not found:
        return None
    try:
        return json.loads(found.group(0))
    except ValueError:
        return None
