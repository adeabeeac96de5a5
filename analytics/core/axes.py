"""Labelled ticks for log axes: Plotly's log axis labels its minor ticks with bare digits
('2 3 4 ... 100'), which say neither the value nor the unit."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

LOG_STEPS = (1, 2, 5)
"""Ticks per decade: 1, 2 and 5 times each power of ten."""


def log_ticks(values: Iterable[object], label: Callable[[float], str]) -> dict:
    """``tickvals`` at 1, 2 and 5 times each power of ten around the positive finite ``values``,
    ``ticktext`` from ``label`` (``lambda v: f"{v:g} ms"``) and the axis ``range`` (log10
    units) from the tick at or below the smallest value to the one at or above the largest, so
    even values closer together than two ticks get two labelled ticks; empty without such a
    value."""
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
    first = max(t for t in ticks if t <= low)
    last = min(t for t in ticks if t >= high)
    inside = [t for t in ticks if first <= t <= last]
    pad = 0.03 * (math.log10(last) - math.log10(first))  # a point on an end tick stays whole
    span = [math.log10(first) - pad, math.log10(last) + pad]
    return {"tickvals": inside, "ticktext": [label(t) for t in inside], "range": span}
