"""Query-parameter helpers: widget choices mirrored in the URL so a view can be shared.

Every URL parameter either applies or says why not: a value a helper cannot use (not among the
choices, out of range, not a number or a day) draws one line naming the parameter, its value
and what is shown instead (:func:`fell_back`), so a shared link never silently shows another
view. Each helper also records the parameter's name and kind in the session
(:func:`read_params`), so a test can walk every page with each of its parameters set to an
absent value.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from datetime import date
from typing import Any

import streamlit as st

from analytics.core.problems import escaped

READ_KEY = "_url_params_read"
"""Session key: {parameter name: kind} of the URL parameters this page's helpers read."""
CHOICE, FREE = "choice", "free"
"""Kinds: a parameter whose value must be one of a set (or a range), or free text that applies
whatever it says (a search box)."""
NOTICE_ICON = ":material/link_off:"
VARIANTS = (
    ["", "all"],
    "variants",
    "",
    lambda v: "every variant" if v else "one row per checkpoint",
)
"""``one_of(*VARIANTS)``: the "every variant" toggle's URL value (``variants=all`` or absent)."""


def _read(name: str, kind: str = CHOICE) -> None:
    st.session_state.setdefault(READ_KEY, {})[name] = kind


def read_params() -> dict[str, str]:
    """The URL parameters this session's pages read so far, with their kinds."""
    return dict(st.session_state.get(READ_KEY, {}))


def fell_back(name: str, asked: object, why: str, shown: object) -> None:
    """One line: the URL's ``name=asked`` does not apply (``why``); ``shown`` is shown instead."""
    text = escaped(str(asked)).replace("`", "'")
    value = text if len(text) <= 60 else f"{text[:59]}…"
    st.info(f"Link parameter `{name}={value}` {why}; showing {shown} instead.", icon=NOTICE_ICON)


def param(name: str, default: str) -> str:
    """The URL's value for ``name``, or ``default`` when the link does not set it (the caller
    checks it and calls :func:`fell_back` when it cannot use it)."""
    _read(name)
    return st.query_params.get(name, default)


def text_param(name: str, default: str = "") -> str:
    """Free text from the URL (a search): it applies whatever it says."""
    _read(name, FREE)
    return st.query_params.get(name, default)


_PLAIN_INT = re.compile(r"[0-9]{1,18}")  # ASCII digits only: no "nan", "1e9", "²" or 5000 digits


def int_param(name: str, default: int, lo: int, hi: int) -> int:
    """An integer URL parameter clamped to ``[lo, hi]``; ``default`` when absent or not a plain
    number of at most 18 ASCII digits (so ``nan``, ``inf``, ``-1``, ``1e9``, Unicode digits and
    huge texts never reach a widget). A value it cannot use as asked says so."""
    text = param(name, "")
    if not text:
        return default
    if not _PLAIN_INT.fullmatch(text):
        fell_back(name, text, f"is not a whole number from {lo} to {hi}", default)
        return default
    value = int(text)
    if not lo <= value <= hi:
        clamped = min(max(value, lo), hi)
        fell_back(name, text, f"is outside {lo} to {hi}", clamped)
        return clamped
    return value


def _not_a_choice(name: str) -> str:
    return f"is not one of this page's choices for {name}"


def one_of(
    options: Sequence[Any], name: str, default: Any, label_of: Callable[[Any], Any] = str
) -> Any:
    """The option whose text is the URL's value for ``name``; else ``default`` (saying so when
    the link asked for something absent). ``label_of`` names the fallback as a user sees it."""
    _read(name)
    keys = [str(o) for o in options]
    wanted = st.query_params.get(name)
    if wanted is None or wanted in keys:
        return options[keys.index(wanted)] if wanted is not None else default
    fell_back(name, wanted, _not_a_choice(name), label_of(default))
    return default


def index_of(
    options: Sequence[Any], name: str, default: Any, *, label_of: Callable[[Any], Any] = str
) -> int:
    """Position in ``options`` of the URL's value for ``name`` (compared as text); else that of
    ``default``; else 0 (either fallback says so in one line)."""
    keys = [str(o) for o in options]
    fallback = default if str(default) in keys else (options[0] if options else default)
    picked = one_of(options, name, fallback, label_of=label_of)
    return keys.index(str(picked)) if str(picked) in keys else 0


def pick(label: str, options: list[str], name: str, *, key_prefix: str, **kwargs: Any) -> str:
    """A selectbox whose choice is read from and written back to the URL parameter ``name``.

    ``key_prefix`` keeps widget keys unique per page. An unknown value in the URL falls back to
    the first option, saying so.
    """
    label_of = kwargs.get("format_func", str)
    index = index_of(options, name, options[0] if options else None, label_of=label_of)
    choice_ = st.selectbox(label, options, index=index, key=f"{key_prefix}_{name}", **kwargs)
    st.query_params[name] = choice_
    return choice_


def choice(
    label: str, options: Sequence[Any], name: str, default: Any, *, key_prefix: str, **kwargs: Any
) -> Any:
    """A selectbox preselected from the URL parameter ``name`` (options of any type, compared as
    text), else ``default``. Unlike :func:`pick` it does not write the URL: the page does."""
    label_of = kwargs.get("format_func", str)
    index = index_of(options, name, default, label_of=label_of)
    return st.selectbox(label, options, index=index, key=f"{key_prefix}_{name}", **kwargs)


def multi_param(name: str, options: Sequence[str], *, shown_when_none: str = "all") -> list[str]:
    """The URL's repeated values for ``name`` that are among ``options``, in URL order; values
    that are not are named in one line (``shown_when_none``: what no valid value means)."""
    _read(name)
    asked = st.query_params.get_all(name)
    kept = [v for v in asked if v in options]
    dropped = [v for v in asked if v not in options]
    if dropped:
        shown = ", ".join(kept) if kept else shown_when_none
        fell_back(name, ", ".join(dropped), _not_a_choice(name), shown)
    return kept


def flag_param(name: str, default: bool = False) -> bool:
    """A ``1`` / ``0`` URL parameter; ``default`` when absent (or, saying so, anything else)."""
    _read(name)
    text = st.query_params.get(name)
    if text is None or text in ("0", "1"):
        return default if text is None else text == "1"
    fell_back(name, text, "is neither 1 (on) nor 0 (off)", "on" if default else "off")
    return default


def date_param(name: str, lo: date, hi: date) -> date | None:
    """A ``YYYY-MM-DD`` URL parameter within ``[lo, hi]``; None when absent. A value that is not
    a day (no filter then) or lies outside the range (clamped) says so."""
    _read(name)
    text = st.query_params.get(name)
    if not text:
        return None
    try:
        day = date.fromisoformat(text)
    except ValueError:
        fell_back(name, text, "is not a day (YYYY-MM-DD)", "every date")
        return None
    if not lo <= day <= hi:
        day = min(max(day, lo), hi)
        fell_back(name, text, f"is outside {lo} to {hi}", day.isoformat())
    return day


def _finite(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def range_param(name: str, lo: float, hi: float) -> tuple[float, float] | None:
    """A ``LOW-HIGH`` URL parameter within ``[lo, hi]``, low first; None when absent. A value
    that is not two finite numbers or lies wholly outside says so (the full range is shown); one
    that reaches outside is clamped and says so."""
    _read(name)
    text = st.query_params.get(name)
    if not text:
        return None
    parts = text.split("-")
    if len(parts) != 2 or not all(_finite(p) for p in parts):
        fell_back(name, text, "is not a range LOW-HIGH of two numbers", f"{lo:g}-{hi:g}")
        return None
    low, high = sorted(float(p) for p in parts)
    full = f"{lo:g}-{hi:g}"
    if high < lo or low > hi:
        fell_back(name, text, f"lies outside {full}", f"the full range {full}")
        return None
    clamped = max(low, lo), min(high, hi)
    if clamped != (low, high):
        fell_back(name, text, f"reaches outside {full}", f"{clamped[0]:g}-{clamped[1]:g}")
    return clamped
