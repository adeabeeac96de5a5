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
                url_path=page.url_path,
                default=page.file == HOME,
            )
        )
    return sections


st.set_page_config(page_title="Model Atlas", page_icon=":material/insights:", layout="wide")
st.navigation(build_navigation()).run()
