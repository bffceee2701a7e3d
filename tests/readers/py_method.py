"""Extractors as methods: a staticmethod, and an instance method of a class made with no
arguments."""
import json


class Extractor:
    @staticmethod
    def parse(text):
        start = text.find("{")
        if start < 0:
            return None
        try:
            return json.loads(text[start : text.rfind("}") + 1])
        except ValueError:
            return None


class Lenient:
    def __init__(self):
        self.strict = False

    def extract(self, text):
        try:
            return json.loads(text, strict=self.strict)
        except ValueError:
            return None
