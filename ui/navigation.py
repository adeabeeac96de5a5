"""The app's page table: one place for section, file, title and icon of every page."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from analytics.core import paths

_LEGACY_URLS = {
    "llm_hardware_fit": "hardware_fit",
    "llm_finetune_planner": "finetune_planner",
    "overview_home": "home",
}
"""Pages whose URL predates the track prefix (home is served at ``/``; ``home`` names it)."""
HOME = "pages/overview/home.py"
"""The default page. No page file sits directly in ``pages/``: Streamlit's old automatic
navigation lists those files by name (and runs them without ``app.py``) on a freshly started
server until the first ``st.navigation`` call, e.g. for a shared ``/home`` link."""

MAINTAINERS = "Maintainers"
"""The last navigation section: pages only a signed-in maintainer can use (each opens on a
sign-in form, or a note for the operator when no maintainer is configured)."""


class PageEntry(NamedTuple):
    section: str
    file: str
    title: str
    icon: str
    main: bool = False  # linked from the home page as a track's entry point

    @property
    def url_path(self) -> str:
        """The page's URL path: track folder and file stem joined (``llm_leaderboard``).

        Stable links: these are the URLs the flat ``pages/`` folder had before it was grouped by
        track, so shared links keep working.
        """
        parts = Path(self.file).with_suffix("").parts[1:]
        stem = "_".join(parts)
        return _LEGACY_URLS.get(stem, stem)


PAGES: tuple[PageEntry, ...] = (
    PageEntry("Overview", HOME, "Home", ":material/home:"),
    PageEntry(
        "LLM leaderboard", "pages/llm/leaderboard.py", "Leaderboard", ":material/leaderboard:", True
    ),
    PageEntry("LLM leaderboard", "pages/llm/model.py", "Model detail", ":material/article:"),
    PageEntry("LLM leaderboard", "pages/llm/movers.py", "Movers", ":material/trending_up:"),
    PageEntry("LLM leaderboard", "pages/llm/compare.py", "Compare", ":material/radar:"),
    PageEntry("LLM leaderboard", "pages/llm/benchmark.py", "Benchmark", ":material/fact_check:"),
    PageEntry("LLM leaderboard", "pages/llm/charts.py", "Charts", ":material/scatter_plot:"),
    PageEntry(
        "LLM leaderboard",
        "pages/llm/hardware_fit.py",
        "What fits my hardware",
        ":material/memory:",
        True,
    ),
    PageEntry(
        "LLM leaderboard",
        "pages/llm/finetune_planner.py",
        "Fine-tune planner",
        ":material/tune:",
        True,
    ),
    PageEntry(
        "Verified vision",
        "pages/vision/leaderboard.py",
        "Vision leaderboard",
        ":material/visibility:",
        True,
    ),
    PageEntry(
        "Verified vision", "pages/vision/model.py", "Vision model", ":material/image_search:"
    ),
    PageEntry("Verified vision", "pages/vision/submit.py", "Submit a run", ":material/upload:"),
    PageEntry(
        "Federated track", "pages/fl/ranked.py", "Ranked track", ":material/emoji_events:", True
    ),
    PageEntry(
        "Federated track",
        "pages/fl/submit.py",
        "Submit to the ranked track",
        ":material/upload_file:",
    ),
    PageEntry("Federated track", "pages/fl/run_detail.py", "Run detail", ":material/show_chart:"),
    PageEntry(MAINTAINERS, "pages/vision/review.py", "Review inbox", ":material/inbox:"),
    PageEntry(MAINTAINERS, "pages/vision/run.py", "Run a measurement", ":material/speed:"),
)


def existing_pages() -> list[PageEntry]:
    """Pages whose file is present in this checkout."""
    return [p for p in PAGES if (paths.REPO_ROOT / p.file).exists()]


def maintainer_pages() -> list[PageEntry]:
    """The pages of the Maintainers section."""
    return [p for p in PAGES if p.section == MAINTAINERS]


def main_pages() -> list[PageEntry]:
    """Each track's entry pages, for links from the home page."""
    return [p for p in existing_pages() if p.main]
