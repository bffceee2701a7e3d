"""Returns the JSON text it found (its caller json.loads it), or "" when it found none."""


def find_json_text(text):
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if 0 <= start < end else ""
