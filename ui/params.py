"""Query-parameter helpers: widget choices mirrored in the URL so a view can be shared."""

from __future__ import annotations

from typing import Any

import streamlit as st


def param(name: str, default: str) -> str:
    """The URL's value for ``name``, or ``default`` when the link does not set it."""
    return st.query_params.get(name, default)


def int_param(name: str, default: int, lo: int, hi: int) -> int:
    """An integer URL parameter clamped to ``[lo, hi]``; ``default`` when absent or not a number."""
    text = param(name, str(default))
    return min(max(int(text), lo), hi) if text.isdigit() else default


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

