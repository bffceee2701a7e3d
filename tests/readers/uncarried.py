"""Answers JSON cannot carry as they are, one a reply: each is carried whole or said to be no
answer, with why; never nothing."""
import json


def _deep(n):
    v = 1
    for _ in range(n):
        v = [v]
    return v


def extract(text):
    if text == "deep":
        return _deep(1500)
    if text == "deep text":
        # What its caller's json.loads reads: the text, 1,500 deep.
        return "[" * 1500 + "1" + "]" * 1500
    if text == "huge":
        return {"s": "x" * (300 << 20)}
    if text == "nan":
        return float("nan")
    if text == "infinity":
        return float("-inf")
    if text == "inner nan":
        return {"a": float("nan"), "b": [float("inf")]}
    if text == "key":
        return {1: "a"}
    if text == "big":
        return {"n": 2**70}
    if text == "cycle":
        o = {"a": 1}
        o["self"] = o
        return o
    if text == "object":
        return {"a": object()}
    return None
