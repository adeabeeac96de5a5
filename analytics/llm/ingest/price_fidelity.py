"""How closely the two third-party price copies (model-prices 0.0.5, genai-prices 0.2.5) agree
with litellm's table (package litellm 1.110.2, ``../shared/data/litellm``), the importer the
catalog already trusts for prices.

Matching: a model is shared when both name it under the same KEY: the name lowercased with any
``provider/`` prefix removed (everything up to the last ``/``), after each importer's own
first-party choice; the first row of a key in each source is used. Only models with an input AND
an output price on both sides count. Two prices agree when they differ by at most 1 % of the
larger; a model agrees when its input and its output price both do.

``fidelity(shared)`` returns, per copy: ``shared`` (count), ``agree`` (count), ``agree_share``
(0..1), ``largest`` (the 5 largest relative differences, ``{model, copy_usd_per_mtok,
litellm_usd_per_mtok, rel_diff}`` with (input, output) pairs) and ``dated_after`` (how many
disagreeing models have a copy ``price_date`` after ``LITELLM_DAY``, a price change litellm
cannot know). ``describe(result)`` puts it in one paragraph.
"""

from __future__ import annotations

from pathlib import Path

from analytics.llm.ingest import genai_prices, litellm, model_prices
from analytics.llm.ingest.common import Drops, ModelObs

TOLERANCE = 0.01
TOP_N = 5
LITELLM_DAY = "2026-09-29"
"""The newest date in a litellm 1.110.2 key (azure/gpt-6.1-sol-2026-09-29, SOURCES.md): the
table is at least that new, and a copy's price dated later is a change litellm may lack."""
COPIES = {"model-prices": model_prices, "genai-prices": genai_prices}


def match_key(name: str) -> str:
    """The lowercased name less any ``provider/`` prefix."""
    return name.lower().rsplit("/", 1)[-1]


def _priced(models: list[ModelObs]) -> dict[str, ModelObs]:
    """key -> first observation of that key with both prices."""
    out: dict[str, ModelObs] = {}
    for obs in models:
        if obs.usd_per_mtok_input is not None and obs.usd_per_mtok_output is not None:
            out.setdefault(match_key(obs.name), obs)
    return out


def rel_diff(a: float, b: float) -> float:
    """|a - b| as a share of the larger (0 when both are 0)."""
    top = max(abs(a), abs(b))
    return abs(a - b) / top if top else 0.0


def compare(copy: list[ModelObs], reference: list[ModelObs]) -> dict:
    """The figures for one copy against the reference (see the module docstring)."""
    mine, ref = _priced(copy), _priced(reference)
    rows = []
    for key in sorted(mine.keys() & ref.keys()):
        a, b = mine[key], ref[key]
        pair_a = (a.usd_per_mtok_input, a.usd_per_mtok_output)
        pair_b = (b.usd_per_mtok_input, b.usd_per_mtok_output)
        diff = max(rel_diff(x, y) for x, y in zip(pair_a, pair_b, strict=True))
        rows.append((diff, key, pair_a, pair_b, a.price_date))
    agree = sum(diff <= TOLERANCE for diff, *_ in rows)
    off = [r for r in rows if r[0] > TOLERANCE]
    largest = sorted(rows, key=lambda r: (-r[0], r[1]))[:TOP_N]
    return {
        "shared": len(rows),
        "agree": agree,
        "agree_share": round(agree / len(rows), 4) if rows else None,
        "largest": [
            {
                "model": key,
                "copy_usd_per_mtok": pa,
                "litellm_usd_per_mtok": pb,
                "rel_diff": round(diff, 4),
            }
            for diff, key, pa, pb, _ in largest
        ],
        "dated_after": sum(1 for *_, day in off if day and day > LITELLM_DAY),
    }


def fidelity(shared: Path) -> dict:
    """Compare each copy stored under ``shared`` (../shared/data) with litellm's table."""
    drops = Drops()
    reference = litellm.load(shared / "litellm", drops)
    result = {"tolerance": TOLERANCE, "litellm_priced": len(_priced(reference))}
    for source, module in COPIES.items():
        models = module.load(shared / module.FOLDER, drops)
        result[source] = {"priced": len(_priced(models)), **compare(models, reference)}
    return result


def _price(pair: tuple) -> str:
    return "/".join(f"{p:g}" for p in pair)


def describe(result: dict) -> str:
    """One paragraph of the figures ``fidelity`` returned."""
    parts = [
        f"Against litellm ({result['litellm_priced']} first-party models with both prices), "
        f"matched on the lowercased model key without a provider/ prefix and counted as agreeing "
        f"when input and output prices are both within {result['tolerance']:.0%}:"
    ]
    for source in COPIES:
        r = result[source]
        share = "n/a" if r["agree_share"] is None else f"{r['agree_share']:.0%}"
        top = "; ".join(
            f"{x['model']} {_price(x['copy_usd_per_mtok'])} vs {_price(x['litellm_usd_per_mtok'])}"
            for x in r["largest"]
        )
        parts.append(
            f"{source} shares {r['shared']} of its {r['priced']} models and agrees on "
            f"{r['agree']} ({share}); {r['dated_after']} of the disagreeing ones have a price "
            f"dated after {LITELLM_DAY}; largest differences (USD per 1M input/output, copy vs "
            f"litellm): {top}."
        )
    return " ".join(parts)
