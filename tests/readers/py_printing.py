"""An extractor that prints as it works: what it prints goes to the reader's log."""
import json


def extract(text):
    print(f"extracting from {len(text)} characters")
    print('{"id": "r1", "value": "not an answer"}')
    start = text.find("{")
    if start < 0:
        print("nothing found")
        return None
    return json.loads(text[start : text.rfind("}") + 1])
