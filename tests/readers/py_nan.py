"""Python's json reads NaN and Infinity, which JSON has not: what it returns holds numbers
that are not finite."""
import json


def extract(text):
    if text == "nan":
        return float("nan")
    try:
        return json.loads(text)
    except ValueError:
        return None
