"""A Python module that is also a program: run as one, it writes to $BRACEWALK_TEST_MARK
which guard said it was the program. Imported, it writes nothing, and its extractor is the
first `{` to the last `}`, parsed."""
import json
import os
import sys


def _ran(guard):
    with open(os.environ["BRACEWALK_TEST_MARK"], "a") as mark:
        mark.write(guard + "\n")


def extract_json(text):
    start, end = text.find("{"), text.rfind("}")
    return None if start < 0 or end < start else json.loads(text[start : end + 1])


if __name__ == "__main__":
    _ran("__name__")
if sys.argv and os.path.abspath(sys.argv[0]) == os.path.abspath(__file__):
    _ran("sys.argv[0]")
if len(sys.argv) > 1:
    _ran("sys.argv[1:]")
