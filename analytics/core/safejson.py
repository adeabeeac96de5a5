"""Bounded JSON parsing for untrusted inputs (catalog JSON, FL policies, manifests, status files).

The size is capped before decoding and the nesting depth is counted with one regular-expression
pass before ``json.loads`` sees the text, so no input can exhaust the stack or the memory. Every
refusal is a ``JsonLimitError`` whose message is a short ``what`` for a problem line.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

from analytics.core.problems import Problem

_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*+(?:"|\\?\Z)', re.DOTALL)
"""A JSON string; an unterminated one runs to the end (so the scan stays linear)."""
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


class JsonLimitError(Problem, ValueError):
    """Refused JSON: ``what`` is wrong, in a few words on one line (no ``where``: the caller
    names the file)."""


def depth(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text`` (brackets inside strings ignored)."""
    brackets = np.frombuffer(_NOT_BRACKET.sub("", _JSON_STRING.sub("", text)).encode(), np.uint8)
    if not brackets.size:
        return 0
    steps = np.where((brackets == ord("[")) | (brackets == ord("{")), 1, -1)
    return max(int(steps.cumsum().max()), 0)


def _one_line(message: str, limit: int = 160) -> str:
    flat = " ".join(str(message).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def loads(data: bytes | str, max_bytes: int, max_depth: int) -> Any:
    """The JSON value of ``data`` (UTF-8, optional BOM) within the size and depth caps."""
    size = len(data.encode("utf-8") if isinstance(data, str) else data)
    if size > max_bytes:
        raise JsonLimitError(what=f"is {size} bytes, over the cap of {max_bytes}")
    try:
        text = data if isinstance(data, str) else data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise JsonLimitError(what=f"is not UTF-8 text ({_one_line(exc)})") from None
    nested = depth(text)
    if nested > max_depth:
        raise JsonLimitError(what=f"nests {nested} levels deep, over the cap of {max_depth}")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise JsonLimitError(what=f"line {exc.lineno}: invalid JSON ({exc.msg})") from None
    except (ValueError, RecursionError) as exc:  # e.g. an integer of more than 4300 digits
        raise JsonLimitError(what=f"invalid JSON ({_one_line(exc)})") from None
