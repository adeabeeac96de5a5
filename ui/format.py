"""One formatting rule for every page: numbers, units, counts, human names and chart settings.

- **Numbers** carry their unit's decimals (:data:`UNIT_DECIMALS`: a percentage or a 0-100 score
  to 0.1, an Elo rating to 0.1 as seed 002 publishes it) and thousands separators.
- **Quantities** in bytes, seconds and joules are scaled to one readable unit (KiB / MiB / GiB,
  µs / ms / s / min, µJ / mJ / J / kJ): a text says "2.5 KiB", a chart axis or a table column
  gets one :class:`Scale` for all its values and names the unit in its title, never "2,543.5".
- **Counts** agree with their noun and verb: "1 model matches", "2 models match".
- **Names**: every id a page shows (a vision task or adapter, an FL model, dataset, perturbation
  or condition, a benchmark category, a fine-tune method) has a human name here or in the
  registry it comes from; :func:`fallback_name` ("stronger_skew" -> "Stronger skew") is only
  the fallback for an id no table knows yet.
- **Tables and charts**: :func:`number_column` (fixed decimals, thousands separators) and
  :func:`readable` (a minimum height, theme-safe colours, the legend out of the plot's way).

Everything above the "Streamlit column configs" section is pure (no Streamlit call): tests pin
it with golden values (``tests/test_format.py``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from analytics.core import labels
from analytics.fl import perturbations
from analytics.llm import finetune

MISSING = "—"
"""What an empty cell or an unknown number shows (the tables' ``placeholder`` too)."""

# --- numbers ------------------------------------------------------------------------------

ELO_DECIMALS = 1  # seed 002, "The Elo rating": ratings are published to 0.1
UNIT_DECIMALS: dict[str, int] = {
    "%": 1,
    "score 0-100": 1,
    "score -100-100": 1,
    "score 0-10": 2,  # MT-Bench-style 0-10 scores are published to 0.01
    "elo": 0,  # an arena's own Elo-scale score (LMArena publishes whole points)
    "minutes": 1,
    "seconds": 2,
    "s": 2,
    "ms": 1,
    "tokens/s": 1,
    "GB": 1,
    "USD": 2,
}
"""Decimals per benchmark or measurement unit (``benchmarks.unit`` and the units pages add)."""
DEFAULT_DECIMALS = 2
"""Decimals of a unit :data:`UNIT_DECIMALS` does not list."""
UNIT_TEXT = {"elo": "Elo"}
"""How a unit is written after a number where its catalog spelling is not (``1,250 Elo``)."""


def _missing(value: object) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    try:
        return math.isnan(float(value))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


def unit_decimals(unit: object) -> int:
    """Decimals a value in ``unit`` is shown with (:data:`UNIT_DECIMALS`, else 2)."""
    return UNIT_DECIMALS.get(str(unit).strip(), DEFAULT_DECIMALS) if unit else DEFAULT_DECIMALS


def number_text(value: object, decimals: int = DEFAULT_DECIMALS) -> str:
    """``value`` with exactly ``decimals`` decimals and thousands separators ('1,234.5');
    '—' for a missing value; never '-0.0'."""
    if _missing(value):
        return MISSING
    text = f"{float(value):,.{decimals}f}"  # type: ignore[arg-type]
    return text[1:] if text.startswith("-") and not text.strip("-0.,") else text


def elo_text(value: object) -> str:
    """An Elo rating to 0.1 with thousands separators ('1,234.5'; seed 002)."""
    return number_text(value, ELO_DECIMALS)


def score_text(value: object, unit: object) -> str:
    """A benchmark score with its unit's decimals and the unit: '83.5%', '1,250 Elo',
    '8.50 score 0-10'; '—' when missing."""
    text = number_text(value, unit_decimals(unit))
    if text == MISSING or not isinstance(unit, str) or not unit.strip():
        return text
    unit = unit.strip()
    return f"{text}%" if unit == "%" else f"{text} {UNIT_TEXT.get(unit, unit)}"


def timestamp_text(value: object) -> str:
    """An ISO timestamp to the minute, in UTC, without the 'T' and offset:
    '2026-11-30T02:54:26+00:00' -> '2026-11-30 02:54' (the header says UTC)."""
    if _missing(value) or value == "":
        return MISSING
    try:
        stamp = pd.Timestamp(value)
    except (TypeError, ValueError):
        return str(value)
    stamp = stamp.tz_convert("UTC") if stamp.tzinfo is not None else stamp
    return stamp.strftime("%Y-%m-%d %H:%M")


# --- quantities scaled to one readable unit -----------------------------------------------


@dataclass(frozen=True)
class Scale:
    """One unit for a set of values: divide by ``divisor``, show ``decimals``, name ``unit``."""

    unit: str
    divisor: float
    decimals: int

    def apply(self, values: pd.Series) -> pd.Series:
        """``values`` in this unit (a float series)."""
        return pd.to_numeric(values, errors="coerce").astype(float) / self.divisor

    def text(self, value: object) -> str:
        """One value in this unit with its unit: '2.5 KiB'."""
        if _missing(value):
            return MISSING
        return f"{number_text(float(value) / self.divisor, self.decimals)} {self.unit}"  # type: ignore[arg-type]

    def title(self, label: str) -> str:
        """An axis or column title naming the unit: 'Peak memory (KiB)'."""
        return f"{label} ({self.unit})"


SCALES: dict[str, tuple[Scale, ...]] = {
    # IEC binary prefixes: 1 KiB = 1,024 bytes
    "bytes": (
        Scale("bytes", 1, 0),
        Scale("KiB", 2**10, 1),
        Scale("MiB", 2**20, 1),
        Scale("GiB", 2**30, 2),
        Scale("TiB", 2**40, 2),
    ),
    "seconds": (Scale("µs", 1e-6, 1), Scale("ms", 1e-3, 1), Scale("s", 1, 2), Scale("min", 60, 1)),
    "joules": (Scale("µJ", 1e-6, 1), Scale("mJ", 1e-3, 1), Scale("J", 1, 2), Scale("kJ", 1e3, 2)),
}
"""Units of each kind of quantity, smallest first (the first unit the largest value reaches)."""
BASE_UNIT = {"bytes": "bytes", "seconds": "s", "joules": "J"}
"""The unit each kind's raw values are in."""


def scale_for(values: object, kind: str) -> Scale:
    """The unit that shows ``values`` (one number or many, in the kind's base unit) best: the
    largest unit the largest magnitude reaches at least once (bytes below 1 KiB stay bytes;
    all zero or empty: the base unit)."""
    numbers = pd.to_numeric(pd.Series(values).astype(object), errors="coerce").abs().dropna()
    top = float(numbers.max()) if len(numbers) else 0.0
    units = SCALES[kind]
    base = next(s for s in units if s.unit == BASE_UNIT[kind])
    if top == 0:
        return base
    reached = [s for s in units if top >= s.divisor]
    return reached[-1] if reached else units[0]


def quantity_text(value: object, kind: str) -> str:
    """One quantity in its own best unit: bytes -> '2.5 KiB', seconds -> '26.5 ms',
    joules -> '134.0 mJ'."""
    return scale_for(value, kind).text(value)


def bytes_text(value: object) -> str:
    """A byte count in KiB / MiB / GiB ('2.5 KiB'; '512 bytes' below 1 KiB)."""
    return quantity_text(value, "bytes")


def duration_text(seconds: object) -> str:
    """A duration in µs, ms, s or min ('26.5 ms', '12.30 s', '2.5 min')."""
    return quantity_text(seconds, "seconds")


def energy_text(joules: object) -> str:
    """An energy in µJ, mJ, J or kJ ('134.0 mJ')."""
    return quantity_text(joules, "joules")


# --- counts ----------------------------------------------------------------------------------

plural = labels.plural  # one implementation, in analytics.core so CLIs and notebooks share it
verb_for = labels.verb_for


# --- human names of ids ----------------------------------------------------------------------


def fallback_name(value: object) -> str:
    """A readable form of an id no table names yet: 'stronger_skew' -> 'Stronger skew'."""
    text = re.sub(r"[_-]+", " ", str(value)).strip()
    return text[:1].upper() + text[1:]


def name_of(names: Mapping[str, str], value: object) -> str:
    """``names[value]``, else :func:`fallback_name`; '—' for a missing value."""
    if _missing(value) or value == "":
        return MISSING
    return names.get(str(value)) or fallback_name(value)


def names_from(frame: pd.DataFrame, id_column: str, name_column: str) -> dict[str, str]:
    """id -> name of a registry table (the vision catalog's ``adapter`` -> ``display_name``)."""
    rows = frame[[id_column, name_column]].dropna()
    return dict(zip(rows[id_column].astype(str), rows[name_column].astype(str), strict=True))


CATEGORY_NAMES: dict[str, str] = {
    "knowledge": "Knowledge",
    "reasoning": "Reasoning",
    "math": "Math",
    "coding": "Coding",
    "instruction-following": "Instruction following",
    "agentic": "Agentic",
    "multimodal": "Multimodal",
    "long-context": "Long context",
    "commonsense": "Commonsense",
    "chat-preference": "Chat preference",
    "writing": "Writing",
    "multilingual": "Multilingual",
}
"""Benchmark category id (``analytics.core.schema.CATEGORIES``) -> name; a test checks every
category has one."""

VISION_TASK_NAMES: dict[str, str] = {
    "face-detection": "Face detection",
    "object-detection": "Object detection",
    "text-detection": "Text detection",
}
"""Vision task id (``data/catalog/vision/tasks.json``) -> name."""

FL_MODEL_NAMES: dict[str, str] = {
    "cnn": "CNN (LeNet-5)",
    "mlp": "MLP (2NN, 200-200)",
}
"""FL model id (``analytics.fl.runner.MODELS``) -> name."""

FL_DATASET_NAMES: dict[str, str] = {
    "fashion_mnist": "Fashion-MNIST",
    "mnist": "MNIST (5,000-image subset)",
    "digits": "Digits (8×8, smoke set)",
}
"""FL dataset id (``analytics.fl.datasets.LOADERS``) -> name."""

NOMINAL = "nominal"
_NOMINAL_SETUP = perturbations.NOMINAL_SETUP


def _perturbation_names() -> dict[str, str]:
    """Perturbation id -> name with the size of its change, read from the registered setups
    (``analytics.fl.perturbations.PERTURBATIONS``), so a changed setting renames itself."""
    p = perturbations.PERTURBATIONS
    return {
        "client_dropout": f"Client dropout ({p['client_dropout'].dropout_p:.0%} per round)",
        "stragglers": f"Stragglers ({p['stragglers'].straggler_fraction:.0%} on the slowest "
        "device)",
        "label_noise": f"Label noise ({p['label_noise'].label_noise:.0%} of labels)",
        "bandwidth_drop": "Bandwidth drop (every client on poor 3G)",
        "stronger_skew": f"Stronger label skew (α {p['stronger_skew'].alpha:g}, "
        f"nominal {_NOMINAL_SETUP.alpha:g})",
        "fewer_clients": f"Fewer clients ({p['fewer_clients'].n_clients}, "
        f"nominal {_NOMINAL_SETUP.n_clients})",
        "quantity_skew": f"Quantity skew (client sizes, α {p['quantity_skew'].quantity_alpha:g})",
        "feature_noise": f"Feature noise (σ {p['feature_noise'].feature_noise_std:g})",
    }


FL_CONDITION_NAMES: dict[str, str] = {
    NOMINAL: "Nominal (no perturbation)",
    **_perturbation_names(),
}
"""FL run condition (``nominal`` or a Protocol C perturbation) -> name; a test checks every
registered perturbation has one."""

PROTOCOL_NAMES: dict[str, str] = {"A": "A · Quality", "B": "B · Efficiency", "C": "C · Robustness"}
"""FL protocol letter -> letter and what it scores (seed 001)."""

FINETUNE_METHOD_NAMES: dict[str, str] = dict(finetune.METHOD_LABELS)
"""Fine-tune method id -> name (``analytics.llm.finetune.METHOD_LABELS``)."""


def category_name(category: object) -> str:
    """'long-context' -> 'Long context'."""
    return name_of(CATEGORY_NAMES, category)


def task_name(task: object) -> str:
    """'face-detection' -> 'Face detection'."""
    return name_of(VISION_TASK_NAMES, task)


def device_text(device: object) -> str:
    """A vision device label 'cpu: AMD EPYC' -> 'CPU: AMD EPYC'."""
    kind, sep, rest = str(device).partition(": ")
    return f"{kind.upper()}{sep}{rest}" if sep else str(device)


def fl_model_name(model: object) -> str:
    return name_of(FL_MODEL_NAMES, model)


def fl_dataset_name(dataset: object) -> str:
    return name_of(FL_DATASET_NAMES, dataset)


def fl_condition_name(condition: object) -> str:
    return name_of(FL_CONDITION_NAMES, condition)


def protocol_name(protocol: object) -> str:
    return name_of(PROTOCOL_NAMES, protocol)


_TARGET = re.compile(r"^target ([0-9.]+)$")


def comparison_condition(protocol: str, condition: object) -> str:
    """What one FL comparison compares, never blank: under A the nominal run's best checkpoint
    (A has no condition of its own), under B the first checkpoint reaching the accuracy target,
    under C the perturbed run against the same method's nominal run (seed 001)."""
    text = "" if _missing(condition) else str(condition)
    if protocol == "A" or not text:
        return "nominal run, best checkpoint"
    target = _TARGET.match(text)
    if protocol == "B" and target:
        return f"first checkpoint at accuracy ≥ {target.group(1)}"
    if protocol == "C":
        return f"{fl_condition_name(text)} vs nominal"
    return fallback_name(text)


def finetune_method_name(method: object) -> str:
    return name_of(FINETUNE_METHOD_NAMES, method)


def mapped(values: Iterable[object], names: Mapping[str, str]) -> list[str]:
    """Each value's human name (:func:`name_of`)."""
    return [name_of(names, v) for v in values]


# --- charts ----------------------------------------------------------------------------------

MIN_CHART_HEIGHT_PX = 320
"""No chart is drawn lower than this: at 390 px a figure keeps a readable plot area."""
THEME_GREY = "#000036"
"""Streamlit's theme token for its gray-70 (``streamlit.elements.lib.streamlit_plotly_theme``):
the browser replaces it with a grey of the active theme, readable on its background (dark grey
on the light theme, light grey on the dark one). What replaces a hard-coded black or white and
colours a reference line (a baseline, a shape) that has no colour of its own."""
GRID_GREY = "rgba(128, 128, 128, 0.35)"
"""Grid lines Streamlit's theme does not colour (a radar's rings): a translucent grey that
shows on both backgrounds."""
ACCENT = "#e4572e"
"""A warm orange-red visible on both themes, for a limit line (capacity, a threshold)."""
_NAMED = {"black": (0, 0, 0), "white": (255, 255, 255)}


def _rgb(colour: object) -> tuple[float, float, float] | None:
    """The red, green, blue (0-255) of a '#rgb', '#rrggbb', 'rgb(…)', 'black' or 'white'."""
    if not isinstance(colour, str):
        return None
    text = colour.strip().lower()
    if text in _NAMED:
        return _NAMED[text]
    if re.fullmatch(r"#[0-9a-f]{3}", text):
        text = "#" + "".join(c * 2 for c in text[1:])
    if re.fullmatch(r"#[0-9a-f]{6}", text):
        r, g, b = (int(text[i : i + 2], 16) for i in (1, 3, 5))
        return r, g, b
    found = re.fullmatch(r"rgba?\(([^)]*)\)", text)
    parts = found.group(1).split(",")[:3] if found else []
    return (float(parts[0]), float(parts[1]), float(parts[2])) if len(parts) == 3 else None


def is_theme_token(colour: object) -> bool:
    """Whether ``colour`` is one of Streamlit's theme placeholders ('#000001' … '#000040', the
    template's category, scale and grey colours the browser swaps for the theme's own)."""
    text = colour.strip().lower() if isinstance(colour, str) else ""
    return re.fullmatch(r"#0000(0[1-9]|[1-3][0-9]|40)", text) is not None


def theme_safe(colour: object) -> object:
    """``colour``, or :data:`THEME_GREY` when it is a near-black or near-white grey
    (invisible on one of the two themes); a saturated colour (red, blue…) and Streamlit's own
    theme placeholders are kept."""
    rgb = _rgb(colour)
    if rgb is None or is_theme_token(colour) or max(rgb) - min(rgb) > 48:
        return colour
    lightness = (0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]) / 255
    return THEME_GREY if lightness < 0.35 or lightness > 0.9 else colour


TITLE_WRAP_CHARS = 42
"""A chart title longer than this is broken into lines (plotly never wraps a title; at 390 px
a longer line runs off the chart)."""


def wrapped(text: str, width: int = TITLE_WRAP_CHARS) -> str:
    """``text`` broken at spaces into lines of at most ``width`` characters (a word longer
    than that keeps its own line), joined by the '<br>' plotly draws as a line break; the
    line breaks ``text`` already has are kept."""
    lines: list[str] = []
    for part in text.split("<br>"):
        start = len(lines)
        for word in part.split():
            if len(lines) > start and len(lines[-1]) + 1 + len(word) <= width:
                lines[-1] += " " + word
            else:
                lines.append(word)
    return "<br>".join(lines)


def readable(
    fig: go.Figure, *, min_height: int = MIN_CHART_HEIGHT_PX, legend_below: bool = True
) -> go.Figure:
    """``fig`` made readable on both themes and at phone width: at least ``min_height`` tall,
    near-black / near-white line, marker and shape colours replaced by :data:`THEME_GREY` (the
    theme picks every other colour; a radar gets a transparent background and theme-grey
    rings instead of plotly's white disc), a long title broken into lines (:func:`wrapped`), and a
    legend without a position of its own laid out horizontally under the plot, so it never
    takes the plot's width on a phone."""
    height = fig.layout.height
    fig.update_layout(height=max(int(height or 0), min_height))
    title = fig.layout.title.text
    if title and max(map(len, title.split("<br>"))) > TITLE_WRAP_CHARS:  # plotly never wraps
        fig.update_layout(
            title={"text": wrapped(title), "automargin": True, "yref": "container", "y": 1,
                   "yanchor": "top", "pad": {"t": 10}}
        )
    for trace in fig.data:
        for part in ("line", "marker"):
            style = getattr(trace, part, None)
            colour = getattr(style, "color", None) if style is not None else None
            if isinstance(colour, str):
                style.color = theme_safe(colour)
    if any(str(t.type).endswith("polar") for t in fig.data):  # Streamlit themes no polar axes
        axis = {"linecolor": THEME_GREY, "gridcolor": GRID_GREY}
        fig.update_polars(bgcolor="rgba(0,0,0,0)", angularaxis=axis, radialaxis=axis)
    for shape in fig.layout.shapes or ():
        shape.line.color = theme_safe(shape.line.color) if shape.line.color else THEME_GREY
    if legend_below and fig.layout.legend.orientation is None:
        fig.update_layout(
            legend={"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom",
                    "x": 0, "xanchor": "left", "title_text": ""}
        )
    return fig


# --- Streamlit column configs -----------------------------------------------------------------


def number_column(
    label: str, decimals: int = DEFAULT_DECIMALS, *, help: str | None = None, width=None
) -> object:
    """A table column of numbers with exactly ``decimals`` decimals and thousands separators
    (Streamlit's "localized" format; its precision comes from ``step``)."""
    return st.column_config.NumberColumn(
        label, format="localized", step=10.0**-decimals if decimals else 1, help=help, width=width
    )


def elo_column(label: str = "Elo", *, help: str | None = None, width=None) -> object:
    """An Elo rating column, to 0.1 (seed 002)."""
    return number_column(label, ELO_DECIMALS, help=help, width=width)


def count_column(label: str, *, help: str | None = None, width=None) -> object:
    """A whole-number column with thousands separators."""
    return number_column(label, 0, help=help, width=width)


def _step_decimals(step: object) -> int | None:
    if not isinstance(step, int | float) or isinstance(step, bool) or step <= 0:
        return None
    return max(0, -math.floor(math.log10(step) + 1e-9))


def rounded(frame: pd.DataFrame, config: Mapping[str, object]) -> pd.DataFrame:
    """``frame`` with each column of a :func:`number_column` rounded to its decimals.

    Streamlit shows a number column with a ``step`` by *truncating* to the step (7.27 at 0.1
    shows "7.2"), so the values a table shows are rounded here first (7.27 -> 7.3); a CSV
    download keeps the unrounded frame."""
    out = None
    for column, conf in config.items():
        kind = conf.get("type_config", {}) if isinstance(conf, dict) else {}
        decimals = _step_decimals(kind.get("step")) if kind.get("type") == "number" else None
        numeric = column in frame and pd.api.types.is_float_dtype(frame[column])
        if decimals is None or not numeric:
            continue
        out = frame.copy() if out is None else out
        out[column] = frame[column].round(decimals)
    return frame if out is None else out


def text_number_column(label: str, *, help: str | None = None, width=None) -> object:
    """A right-aligned text column for numbers already formatted per row (each row its own
    unit: :func:`score_text`, :func:`quantity_text`)."""
    return st.column_config.TextColumn(label, help=help, width=width, alignment="right")
