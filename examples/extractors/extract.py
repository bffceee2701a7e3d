"""The extractor of extract.mjs in Python: the text from the first `{` to the last `}`,
parsed; None when there is none or it does not parse."""

import json


def extract_json(text):
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        return None
    try:
        return json.loads(text[start : end + 1])
    except ValueError:
        return None
