"""Labelled ticks for log axes: Plotly's log axis labels its minor ticks with bare digits
('2 3 4 ... 100'), which say neither the value nor the unit."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

LOG_STEPS = (1, 2, 5)
"""Ticks per decade: 1, 2 and 5 times each power of ten."""


def log_ticks(values: Iterable[object], label: Callable[[float], str]) -> dict:
    """``tickvals`` at 1, 2 and 5 times each power of ten around the positive finite ``values``
    and ``ticktext`` from ``label`` (``lambda v: f"{v:g} ms"``); empty without such a value."""
    found = []
    for value in values:
        try:
            number = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            continue
        if math.isfinite(number) and number > 0:
            found.append(number)
    if not found:
        return {}
    low, high = min(found), max(found)
    ticks = [
        step * 10.0**exponent
        for exponent in range(math.floor(math.log10(low)) - 1, math.ceil(math.log10(high)) + 1)
        for step in LOG_STEPS
    ]
    inside = [t for t in ticks if low / 2.5 <= t <= high * 2.5]
    return {"tickvals": inside, "ticktext": [label(t) for t in inside]}
