"""Streamlit entry point: `streamlit run app.py`. One navigation, thin pages."""

from __future__ import annotations

import streamlit as st

from ui.navigation import HOME, existing_pages


def build_navigation() -> dict[str, list]:
    """Group the page table into navigation sections."""
    sections: dict[str, list] = {}
    for page in existing_pages():
        sections.setdefault(page.section, []).append(
            st.Page(
                page.file,
                title=page.title,
                icon=page.icon,
                url_path="overview" if page.file == HOME else page.url_path,  # served at /
                default=page.file == HOME,
            )
        )
        if page.file == HOME:  # the home page is served at /; its old /home links still work
            sections[page.section].append(
                st.Page(page.file, title=page.title, url_path=page.url_path, visibility="hidden")
            )
    return sections


st.set_page_config(page_title="Model Atlas", page_icon=":material/insights:", layout="wide")
# Always fully expanded: Streamlit otherwise folds a menu of more than 12 pages to 10 plus "View
# N more" as soon as the sidebar holds anything else (the maintainer's sign-in line), which hid
# the federated track and the maintainers' own pages right after sign-in.
st.navigation(build_navigation(), expanded=True).run()
