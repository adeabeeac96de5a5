"""The charts page's frontiers and frames (analytics/llm/charts.py) on hand-made frames.

Test data only, not real figures. The page itself runs in tests/test_pages_llm_charts.py.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analytics.llm import charts


def _frame(**cols) -> pd.DataFrame:
    n = len(next(iter(cols.values())))
    return pd.DataFrame({"model_id": [f"m{i}" for i in range(n)], **cols})


# --- the envelope over time ---------------------------------------------------------------


def test_envelope_is_the_running_best_per_group() -> None:
    table = _frame(
        release_date=["2024-01-01", "2024-02-01", "2024-03-01", "2024-04-01", "2024-02-15"],
        rating=[100.0, 90.0, 120.0, 110.0, 200.0],
        open_weights=[True, True, True, True, False],
    )
    env = charts.frontier_over_time(table)
    opened = env[env["open_weights"]]
    assert opened["best"].tolist() == [100.0, 100.0, 120.0, 120.0]  # never goes down
    assert opened["model_id"].tolist() == ["m0", "m0", "m2", "m2"]
    assert opened["is_record"].tolist() == [True, False, True, False]
    closed = env[~env["open_weights"]]
    assert closed["best"].tolist() == [200.0] and closed["model_id"].tolist() == ["m4"]
    assert opened["release_date"].is_monotonic_increasing


def test_envelope_ties_and_missing_dates() -> None:
    table = _frame(
        release_date=["2024-01-01", "2024-01-01", "2024-02-01", None, "2024-03-01"],
        rating=[100.0, 100.0, 100.0, 500.0, np.nan],
        open_weights=[True] * 5,
    )
    env = charts.frontier_over_time(table)
    # one row per distinct date; the undated and unrated models are ignored
    assert env["release_date"].dt.strftime("%Y-%m-%d").tolist() == ["2024-01-01", "2024-02-01"]
    assert env["best"].tolist() == [100.0, 100.0]
    # a tie never takes the record: the first (then lowest id) model keeps it
    assert env["model_id"].tolist() == ["m0", "m0"]
    assert env["is_record"].tolist() == [True, False]


def test_envelope_of_a_single_point_and_of_nothing() -> None:
    one = charts.frontier_over_time(
        _frame(release_date=["2024-05-01"], rating=[42.0], open_weights=[False])
    )
    assert one[["best", "model_id", "is_record"]].values.tolist() == [[42.0, "m0", True]]
    empty = charts.frontier_over_time(
        _frame(release_date=[None], rating=[42.0], open_weights=[False])
    )
    assert empty.empty


# --- the Pareto frontier -------------------------------------------------------------------


def test_pareto_lower_x_higher_rating() -> None:
    table = _frame(x=[1.0, 2.0, 2.0, 3.0, 4.0, 0.5], rating=[10.0, 20.0, 15.0, 20.0, 30.0, 5.0])
    on = charts.pareto_frontier(table, "x", "rating", lower_x_is_better=True)
    # m2: same x as m1, lower rating; m3: same rating as m1, larger x
    assert on.tolist() == [True, True, False, False, True, True]
    assert on.index.equals(table.index)


def test_pareto_ties_nan_and_direction() -> None:
    table = _frame(x=[1.0, 1.0, np.nan, 2.0], rating=[10.0, 10.0, 99.0, 5.0])
    on = charts.pareto_frontier(table, "x", "rating")
    assert on.tolist() == [True, True, False, False]  # identical points both stay; NaN x never
    higher = charts.pareto_frontier(table, "x", "rating", lower_x_is_better=False)
    assert higher.tolist() == [True, True, False, True]  # m3's larger x is now the better one
    flipped = _frame(x=[1.0, 2.0], rating=[10.0, 5.0])
    assert charts.pareto_frontier(flipped, "x", lower_x_is_better=False).tolist() == [True, True]
    assert charts.pareto_frontier(flipped, "x", lower_x_is_better=True).tolist() == [True, False]


def test_pareto_single_point_and_all_missing() -> None:
    assert charts.pareto_frontier(_frame(x=[3.0], rating=[1.0]), "x").tolist() == [True]
    assert charts.pareto_frontier(_frame(x=[np.nan], rating=[1.0]), "x").tolist() == [False]


# --- the chart frames ----------------------------------------------------------------------


def _board_table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "model_id": ["a", "b", "c", "d", "e"],
            "display_name": ["A", "B", "C", "D", None],
            "organisation": ["Org", "Org", None, "Other", "Other"],
            "rating": [1000.0, 1100.0, 1200.0, 900.0, 950.0],
            "rating_low": [980.0, 1080.0, np.nan, 880.0, 930.0],
            "rating_high": [1020.0, 1120.0, np.nan, 920.0, 970.0],
            "eligible": [True, True, True, True, False],
            "open_weights": [True, True, False, True, True],
            "total_params_b": [7.0, 70.0, np.nan, np.nan, 3.0],
            "release_date": ["2024-01-01", "2024-06-01", "2024-03-01", None, "2024-02-01"],
        }
    )


def _prices() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "model_id": ["a", "b", "c", "d"],
            "active_params_b": [np.nan, 12.0, np.nan, np.nan],
            "usd_per_mtok_input": [1.0, np.nan, 4.0, 0.0],
            "usd_per_mtok_output": [5.0, 2.0, 8.0, 0.0],
            "price_source_url": [
                "https://example.org/a;https://prices.example.com/x",
                None,
                "https://example.org/c",
                None,
            ],
            "price_date": ["2024-07-01", None, None, None],
        }
    )


def test_frames_count_what_they_leave_out() -> None:
    data = charts.build(_board_table(), _prices())
    assert data.n_models == 4 and data.n_unrated == 1  # e is unrated: out by default
    assert (
        data.release.excluded == 1 and data.release.missing_line == "1 model has no release date."
    )
    assert set(data.release.points["model_id"]) == {"a", "b", "c"}
    # open weights only: a and b sized, d has no size; closed c is not counted as missing
    assert set(data.size.points["model_id"]) == {"a", "b"} and data.size.excluded == 1
    assert data.size.missing_line == "1 model has no parameter count."
    # b lacks an input price, d's blend is 0 (a log axis cannot show it)
    assert set(data.price.points["model_id"]) == {"a", "c"}
    assert data.price.missing_line == "2 models have no price."
    everyone = charts.build(_board_table(), _prices(), ranked_only=False)
    assert everyone.n_models == 5 and set(everyone.size.points["model_id"]) == {"a", "b", "e"}


def test_frames_hover_and_frontiers() -> None:
    data = charts.build(_board_table(), _prices())
    price = data.price.points.set_index("model_id")
    assert price.loc["a", "x"] == (3 * 1.0 + 5.0) / 4  # 3:1 blend
    hover = price.loc["a", "hover"]
    assert hover.startswith("<b>A</b><br>Elo 1000.0 (95% interval 980.0–1020.0)<br>Org")
    assert "$2 per 1M tokens" in hover
    assert "example.org, prices.example.com, applies from 2024-07-01" in hover
    assert "interval" not in price.loc["c", "hover"] and "organisation not recorded" in hover_of(
        price, "c"
    )
    assert "date not recorded" in price.loc["c", "hover"]
    assert data.price.frontier["model_id"].tolist() == ["a", "c"]  # cheaper, then better
    size = data.size.points.set_index("model_id")
    assert "Total parameters 70 B (12 B active)" in size.loc["b", "hover"]
    assert data.size.frontier["model_id"].tolist() == ["a", "b"]
    env = data.release.frontier
    assert env.loc[env["weights"] == charts.OPEN, "model_id"].tolist() == ["a", "b"]
    assert env["hover"].iloc[-1].startswith("Best open-weight model by 2024-06-01: B")
    assert data.release.points.set_index("model_id")["on_frontier"].to_dict() == {
        "a": True, "b": True, "c": True,
    }
    for frame in (data.release, data.size, data.price):
        assert "_" not in frame.x_title and "_" not in frame.y_title  # human axis titles


def hover_of(points: pd.DataFrame, model: str) -> str:
    return str(points.loc[model, "hover"])


def test_frames_of_an_empty_table() -> None:
    empty = _board_table().iloc[0:0]
    data = charts.build(empty, None)
    assert data.n_models == 0
    for frame in (data.release, data.size, data.price):
        assert frame.points.empty and frame.frontier.empty and frame.excluded == 0


def test_release_chart_leaves_out_proxy_dates_and_counts_them() -> None:
    prices = _prices().assign(release_date_basis=[None, "first seen in LiteLLM", "", None])
    data = charts.build(_board_table(), prices)
    release = data.release
    assert set(release.points["model_id"]) == {"a", "c"}  # b's date is a first-seen day
    assert release.proxy_dated == 1 and release.excluded == 1  # d has no date at all
    assert release.missing_line == (
        "1 model has no release date. 1 model left out: its date is a proxy (first seen in "
        "LiteLLM), not a published release date."
    )
    assert "b" not in set(release.frontier["model_id"])
    plain = charts.build(_board_table(), _prices())  # no basis column: an older snapshot
    assert plain.release.proxy_dated == 0
