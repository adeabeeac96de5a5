"""Streamlit entry point: `streamlit run app.py`. One navigation, thin pages."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

HERE = Path(__file__).parent

# (section, file, title, icon). Pages are added by each track; see README "Layout".
PAGES: list[tuple[str, str, str, str]] = [
    ("Overview", "pages/home.py", "Home", ":material/home:"),
    ("LLM leaderboard", "pages/llm_leaderboard.py", "Leaderboard", ":material/leaderboard:"),
    ("LLM leaderboard", "pages/llm_model.py", "Model detail", ":material/article:"),
    ("LLM leaderboard", "pages/llm_movers.py", "Movers", ":material/trending_up:"),
    ("LLM leaderboard", "pages/llm_compare.py", "Compare", ":material/radar:"),
    ("LLM leaderboard", "pages/hardware_fit.py", "What fits my hardware", ":material/memory:"),
    ("LLM leaderboard", "pages/finetune_planner.py", "Fine-tune planner", ":material/tune:"),
    (
        "Verified vision",
        "pages/vision_leaderboard.py",
        "Vision leaderboard",
        ":material/visibility:",
    ),
    ("Verified vision", "pages/vision_model.py", "Vision model", ":material/image_search:"),
    ("Verified vision", "pages/vision_submit.py", "Submit a run", ":material/upload:"),
    ("Verified vision", "pages/vision_review.py", "Review inbox", ":material/inbox:"),
    ("Verified vision", "pages/vision_run.py", "Run a measurement", ":material/speed:"),
    ("Federated track", "pages/fl_ranked.py", "Ranked track", ":material/emoji_events:"),
    (
        "Federated track",
        "pages/fl_submit.py",
        "Submit to the ranked track",
        ":material/upload_file:",
    ),
    ("Federated track", "pages/fl_run_detail.py", "Run detail", ":material/show_chart:"),
]


def build_navigation() -> dict[str, list]:
    """Group existing page files into navigation sections."""
    sections: dict[str, list] = {}
    for section, file, title, icon in PAGES:
        if (HERE / file).exists():
            sections.setdefault(section, []).append(
                st.Page(file, title=title, icon=icon, default=file == "pages/home.py")
            )
    return sections


st.set_page_config(page_title="Model Atlas", page_icon=":material/insights:", layout="wide")
st.navigation(build_navigation()).run()
