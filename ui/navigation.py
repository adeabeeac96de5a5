"""The app's page table: one place for section, file, title and icon of every page."""

from __future__ import annotations

from typing import NamedTuple

from analytics import paths


class PageEntry(NamedTuple):
    section: str
    file: str
    title: str
    icon: str
    main: bool = False  # linked from the home page as a track's entry point


PAGES: tuple[PageEntry, ...] = (
    PageEntry("Overview", "pages/home.py", "Home", ":material/home:"),
    PageEntry(
        "LLM leaderboard", "pages/llm_leaderboard.py", "Leaderboard", ":material/leaderboard:", True
    ),
    PageEntry("LLM leaderboard", "pages/llm_model.py", "Model detail", ":material/article:"),
    PageEntry("LLM leaderboard", "pages/llm_movers.py", "Movers", ":material/trending_up:"),
    PageEntry("LLM leaderboard", "pages/llm_compare.py", "Compare", ":material/radar:"),
    PageEntry(
        "LLM leaderboard",
        "pages/hardware_fit.py",
        "What fits my hardware",
        ":material/memory:",
        True,
    ),
    PageEntry(
        "LLM leaderboard", "pages/finetune_planner.py", "Fine-tune planner", ":material/tune:", True
    ),
    PageEntry(
        "Verified vision",
        "pages/vision_leaderboard.py",
        "Vision leaderboard",
        ":material/visibility:",
        True,
    ),
    PageEntry(
        "Verified vision", "pages/vision_model.py", "Vision model", ":material/image_search:"
    ),
    PageEntry("Verified vision", "pages/vision_submit.py", "Submit a run", ":material/upload:"),
    PageEntry("Verified vision", "pages/vision_review.py", "Review inbox", ":material/inbox:"),
    PageEntry("Verified vision", "pages/vision_run.py", "Run a measurement", ":material/speed:"),
    PageEntry(
        "Federated track", "pages/fl_ranked.py", "Ranked track", ":material/emoji_events:", True
    ),
    PageEntry(
        "Federated track",
        "pages/fl_submit.py",
        "Submit to the ranked track",
        ":material/upload_file:",
    ),
    PageEntry("Federated track", "pages/fl_run_detail.py", "Run detail", ":material/show_chart:"),
)


def existing_pages() -> list[PageEntry]:
    """Pages whose file is present in this checkout."""
    return [p for p in PAGES if (paths.REPO_ROOT / p.file).exists()]


def main_pages() -> list[PageEntry]:
    """Each track's entry pages, for links from the home page."""
    return [p for p in existing_pages() if p.main]
