"""The extractor of extract.py as a method of a class, in a module imported by its name
(`examples.extractors.parsing` from the repository's root)."""

import json


class JsonExtractor:
    """Reads the JSON a reply holds, from its first `{` to its last `}`."""

    def parse(self, text):
        start, end = text.find("{"), text.rfind("}")
        if start < 0 or end < start:
            return None
        try:
            return json.loads(text[start : end + 1])
        except ValueError:
            return None
