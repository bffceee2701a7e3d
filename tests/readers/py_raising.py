"""Raises when it finds no JSON, as most Python extractors do."""
import json


class NoJsonError(ValueError):
    pass


def extract_json(text):
    start = text.find("{")
    if start < 0:
        raise NoJsonError("no JSON object in the reply")
    return json.loads(text[start : text.rfind("}") + 1])
