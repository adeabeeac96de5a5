"""Query-parameter helpers: widget choices mirrored in the URL so a view can be shared."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import streamlit as st


def param(name: str, default: str) -> str:
    """The URL's value for ``name``, or ``default`` when the link does not set it."""
    return st.query_params.get(name, default)


_PLAIN_INT = re.compile(r"[0-9]{1,18}")  # ASCII digits only: no "nan", "1e9", "²" or 5000 digits


def int_param(name: str, default: int, lo: int, hi: int) -> int:
    """An integer URL parameter clamped to ``[lo, hi]``; ``default`` when absent or not a plain
    number of at most 18 ASCII digits (so ``nan``, ``inf``, ``-1``, ``1e9``, Unicode digits and
    huge texts never reach a widget)."""
    text = param(name, str(default))
    return min(max(int(text), lo), hi) if _PLAIN_INT.fullmatch(text) else default


def pick(label: str, options: list[str], name: str, *, key_prefix: str, **kwargs: Any) -> str:
    """A selectbox whose choice is read from and written back to the URL parameter ``name``.

    ``key_prefix`` keeps widget keys unique per page. An unknown value in the URL falls back to
    the first option.
    """
    wanted = st.query_params.get(name)
    index = options.index(wanted) if wanted in options else 0
    choice = st.selectbox(label, options, index=index, key=f"{key_prefix}_{name}", **kwargs)
    st.query_params[name] = choice
    return choice


def index_of(options: Sequence[Any], name: str, default: Any) -> int:
    """Position in ``options`` of the URL's value for ``name`` (compared as text); else that of
    ``default``; else 0."""
    keys = [str(o) for o in options]
    for wanted in (param(name, str(default)), str(default)):
        if wanted in keys:
            return keys.index(wanted)
    return 0


def choice(
    label: str, options: Sequence[Any], name: str, default: Any, *, key_prefix: str, **kwargs: Any
) -> Any:
    """A selectbox preselected from the URL parameter ``name`` (options of any type, compared as
    text), else ``default``. Unlike :func:`pick` it does not write the URL: the page does."""
    index = index_of(options, name, default)
    return st.selectbox(label, options, index=index, key=f"{key_prefix}_{name}", **kwargs)


def multi_param(name: str, options: Sequence[str]) -> list[str]:
    """The URL's repeated values for ``name`` that are among ``options``, in URL order."""
    return [v for v in st.query_params.get_all(name) if v in options]


def flag_param(name: str, default: bool = False) -> bool:
    """A ``1`` / ``0`` URL parameter; ``default`` when absent."""
    return param(name, "1" if default else "0") == "1"
