"""The one formatting rule of the pages (ui/format.py): golden values of every text function,
the scales of bytes / seconds / joules, plurals, the name tables' completeness and the chart
settings (minimum height, theme-safe colours)."""

from __future__ import annotations

import json
import math

import pandas as pd
import plotly.graph_objects as go
import pytest

from analytics.core import paths, schema
from analytics.fl import perturbations
from analytics.fl.datasets import DATASETS
from analytics.fl.policy import load_policy
from ui import format as fmt


@pytest.mark.parametrize(
    ("value", "decimals", "text"),
    [
        (83.4711, 1, "83.5"),
        (78.719, 1, "78.7"),
        (78.0, 1, "78.0"),  # fixed decimals: never "78" beside "78.7"
        (1234567.891, 2, "1,234,567.89"),
        (-0.04, 1, "0.0"),  # no "-0.0"
        (-12.345, 1, "-12.3"),
        (0, 0, "0"),
        (None, 1, "—"),
        (math.nan, 1, "—"),
        (pd.NA, 1, "—"),
    ],
)
def test_number_text(value, decimals, text) -> None:
    assert fmt.number_text(value, decimals) == text


@pytest.mark.parametrize(
    ("value", "unit", "text"),
    [
        (83.4711, "%", "83.5%"),
        (78.719, "%", "78.7%"),
        (1174.4845, "elo", "1,174 Elo"),  # an arena's own scale: whole points
        (8.726, "score 0-10", "8.73 score 0-10"),
        (-40.8333, "score -100-100", "-40.8 score -100-100"),
        (341.7353, "minutes", "341.7 minutes"),
        (0.5, "", "0.50"),  # no unit: two decimals
        (0.5, None, "0.50"),
        (None, "%", "—"),
    ],
)
def test_score_text_uses_the_units_decimals(value, unit, text) -> None:
    assert fmt.score_text(value, unit) == text


def test_elo_is_published_to_a_tenth() -> None:
    assert fmt.ELO_DECIMALS == 1  # seed 002: "ratings are published to 0.1"
    assert fmt.elo_text(2695.83) == "2,695.8" and fmt.elo_text(None) == "—"


def test_every_catalog_unit_has_its_decimals() -> None:
    units = set(pd.read_csv(paths.CATALOG_DIR / "benchmarks.csv")["unit"].dropna())
    assert units <= set(fmt.UNIT_DECIMALS), sorted(units - set(fmt.UNIT_DECIMALS))


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "0 bytes"),
        (512, "512 bytes"),
        (1023, "1,023 bytes"),
        (1024, "1.0 KiB"),
        (2544, "2.5 KiB"),  # the FL peak memory that showed as "2,543.5" ticks
        (49_600, "48.4 KiB"),
        (5 * 2**20 + 2**19, "5.5 MiB"),
        (3 * 2**30, "3.00 GiB"),
        (None, "—"),
    ],
)
def test_bytes_text_binary_units(value, text) -> None:
    assert fmt.bytes_text(value) == text


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0.000004, "4.0 µs"), (0.0265, "26.5 ms"), (12.3, "12.30 s"), (150, "2.5 min"), (0, "0.00 s")],
)
def test_duration_text(seconds, text) -> None:
    assert fmt.duration_text(seconds) == text


def test_energy_text() -> None:
    assert [fmt.energy_text(j) for j in (0.000048, 0.134, 163.745996, 2500)] == [
        "48.0 µJ", "134.0 mJ", "163.75 J", "2.50 kJ",
    ]


def test_one_scale_for_a_column_or_axis() -> None:
    """The largest value picks the unit; every value is shown in it; the title names it."""
    values = pd.Series([2480.0, 24_800.0, 49_600.0])
    scale = fmt.scale_for(values, "bytes")
    assert (scale.unit, scale.divisor, scale.decimals) == ("KiB", 1024, 1)
    assert scale.apply(values).tolist() == pytest.approx([2.421875, 24.21875, 48.4375])
    assert scale.title("Communication") == "Communication (KiB)"
    assert scale.text(2480) == "2.4 KiB"
    assert fmt.scale_for([0, 0], "bytes").unit == "bytes"  # all zero: the base unit
    assert fmt.scale_for([], "seconds").unit == "s"
    assert fmt.scale_for([0.003, 0.006], "seconds").unit == "ms"
    assert fmt.scale_for([1e-6, 2e-6], "joules").unit == "µJ"
    assert fmt.scale_for([0.0000001], "seconds").unit == "µs"  # below the smallest: the smallest


@pytest.mark.parametrize(
    ("n", "noun", "verb", "many", "text"),
    [
        (1, "model", "match", None, "1 model matches"),
        (2, "model", "match", None, "2 models match"),
        (0, "model", "match", None, "0 models match"),
        (1, "stored run", "are", None, "1 stored run is"),
        (3, "stored run", "are", None, "3 stored runs are"),
        (1, "category", "have", "categories", "1 category has"),
        (2, "category", "have", "categories", "2 categories have"),
        (1, "submission", "were", None, "1 submission was"),
        (1, "source", "apply", None, "1 source applies"),
        (1, "model", "play", None, "1 model plays"),
        (1234, "model", None, None, "1,234 models"),
    ],
)
def test_plural_agrees_noun_and_verb(n, noun, verb, many, text) -> None:
    assert fmt.plural(n, noun, verb, many=many) == text


def test_fallback_name_and_lookup() -> None:
    assert fmt.fallback_name("stronger_skew") == "Stronger skew"
    assert fmt.fallback_name("mtcnn-facenet") == "Mtcnn facenet"
    assert fmt.name_of({"a": "Alpha"}, "a") == "Alpha"
    assert fmt.name_of({}, "new_thing") == "New thing"
    assert fmt.name_of({}, None) == "—" and fmt.name_of({}, "") == "—"


def test_every_id_a_page_shows_has_a_name() -> None:
    """The name tables are complete (a new category, dataset, perturbation, model or task
    needs its name here, not the fallback)."""
    assert set(fmt.CATEGORY_NAMES) == set(schema.CATEGORIES)
    policy = load_policy()
    assert set(fmt.FL_DATASET_NAMES) == set(DATASETS) >= set(policy.datasets)
    assert set(fmt.FL_MODEL_NAMES) >= set(policy.models)
    conditions = {fmt.NOMINAL, *perturbations.PERTURBATIONS}
    assert set(fmt.FL_CONDITION_NAMES) == conditions >= set(policy.conditions("C"))
    tasks = json.loads((paths.CATALOG_DIR / "vision" / "tasks.json").read_text())
    assert set(fmt.VISION_TASK_NAMES) >= set(tasks)
    names = [*fmt.CATEGORY_NAMES.values(), *fmt.FL_DATASET_NAMES.values(),
             *fmt.FL_CONDITION_NAMES.values(), *fmt.VISION_TASK_NAMES.values()]
    assert all("_" not in n and n[:1].isupper() for n in names)


def test_perturbation_names_follow_their_registered_setups() -> None:
    names = fmt.FL_CONDITION_NAMES
    assert names["stronger_skew"] == "Stronger label skew (α 0.1, nominal 0.5)"
    assert names["client_dropout"] == "Client dropout (30% per round)"
    assert names["fewer_clients"] == "Fewer clients (20, nominal 100)"
    assert names["nominal"] == "Nominal (no perturbation)"


@pytest.mark.parametrize(
    ("protocol", "condition", "text"),
    [
        ("A", "", "nominal run, best checkpoint"),  # was a blank cell
        ("A", None, "nominal run, best checkpoint"),
        ("B", "target 0.79", "first checkpoint at accuracy ≥ 0.79"),
        ("C", "label_noise", "Label noise (20% of labels) vs nominal"),
    ],
)
def test_comparison_condition_is_never_blank(protocol, condition, text) -> None:
    assert fmt.comparison_condition(protocol, condition) == text


def test_other_names() -> None:
    assert fmt.task_name("face-detection") == "Face detection"
    assert fmt.device_text("cpu: AMD EPYC") == "CPU: AMD EPYC"
    assert fmt.device_text("gpu: NVIDIA H100") == "GPU: NVIDIA H100"
    assert fmt.category_name("long-context") == "Long context"
    assert fmt.fl_dataset_name("fashion_mnist") == "Fashion-MNIST"
    assert fmt.protocol_name("B") == "B · Efficiency"
    assert fmt.finetune_method_name("qlora") == "QLoRA"
    assert fmt.timestamp_text("2026-11-30T04:54:26+02:00") == "2026-11-30 02:54"  # in UTC
    catalog = pd.DataFrame({"adapter": ["mtcnn-facenet"], "display_name": ["MTCNN"]})
    assert fmt.names_from(catalog, "adapter", "display_name") == {"mtcnn-facenet": "MTCNN"}


@pytest.mark.parametrize(
    ("colour", "safe"),
    [
        ("#444", fmt.THEME_GREY),  # dark grey: invisible on the dark theme
        ("#000001", "#000001"),  # Streamlit's theme placeholders: the browser picks the colour
        ("#000036", "#000036"),
        ("black", fmt.THEME_GREY),
        ("#ffffff", fmt.THEME_GREY),  # invisible on the light theme
        ("rgba(0, 0, 0, 0.5)", fmt.THEME_GREY),
        ("#d62728", "#d62728"),  # a saturated colour reads on both
        ("#9aa4b1", "#9aa4b1"),  # a mid grey too
        (fmt.ACCENT, fmt.ACCENT),
        ("not a colour", "not a colour"),
    ],
)
def test_theme_safe_colours(colour, safe) -> None:
    assert fmt.theme_safe(colour) == safe


def test_readable_figure() -> None:
    fig = go.Figure(go.Scatter(x=[0, 1], y=[1, 2], line={"color": "#444"}, name="baseline"))
    fig.add_vline(x=0.5)  # no colour: the template's, black on the dark theme's black
    fig.update_layout(height=200)
    out = fmt.readable(fig)
    assert out.layout.height == fmt.MIN_CHART_HEIGHT_PX
    assert out.data[0].line.color == out.layout.shapes[0].line.color == fmt.THEME_GREY
    assert out.layout.legend.orientation == "h" and out.layout.legend.yref == "container"
    tall = go.Figure(layout={"height": 900, "legend": {"orientation": "v"}})
    kept = fmt.readable(tall)
    assert kept.layout.height == 900 and kept.layout.legend.orientation == "v"  # its own legend


def test_a_radar_has_no_white_disc_on_the_dark_theme() -> None:
    fig = fmt.readable(go.Figure(go.Scatterpolar(r=[1, 2, 3], theta=["a", "b", "c"])))
    assert fig.layout.polar.bgcolor == "rgba(0,0,0,0)"
    assert fig.layout.polar.angularaxis.linecolor == fmt.THEME_GREY


def test_long_titles_are_broken_into_lines() -> None:
    title = "Accuracy vs latency, Face detection on CPU: AMD EPYC<br>our set, not a standard"
    assert fmt.wrapped(title) == (
        "Accuracy vs latency, Face detection on<br>CPU: AMD EPYC<br>our set, not a standard"
    )
    assert fmt.wrapped("short") == "short"
    fig = fmt.readable(go.Figure(layout={"title": {"text": "word " * 20}}))
    assert all(len(line) <= fmt.TITLE_WRAP_CHARS for line in fig.layout.title.text.split("<br>"))
    assert fig.layout.title.automargin is True


def test_number_columns_fix_decimals_and_separators() -> None:
    """A number column's decimals come from its step, which Streamlit truncates to: the shown
    frame is rounded first (7.27 -> 7.3, not 7.2); other columns are left alone."""
    frame = pd.DataFrame({"a": [7.27, 2.484375], "n": [1, 2], "t": ["x", "y"]})
    config = {"a": fmt.number_column("A", 1), "n": fmt.count_column("N"), "t": "T"}
    out = fmt.rounded(frame, config)
    assert out["a"].tolist() == [7.3, 2.5] and frame["a"].tolist() == [7.27, 2.484375]
    assert out["n"].tolist() == [1, 2] and out["t"].tolist() == ["x", "y"]
    one = fmt.number_column("Score (%)", 1)
    assert (one["type_config"]["format"], one["type_config"]["step"]) == ("localized", 0.1)
    assert fmt.count_column("Runs")["type_config"]["step"] == 1
    assert fmt.elo_column()["type_config"]["step"] == pytest.approx(0.1)
    assert fmt.text_number_column("Value")["alignment"] == "right"
