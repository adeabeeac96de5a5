"""Start the app's server: ``python -m ui.server [streamlit options]`` is ``streamlit run
app.py [options]`` with one difference that makes shared links work on a fresh server.

Streamlit treats a project with a ``pages/`` folder beside the main script as an old-style
(v1) multipage app until a script run calls ``st.navigation``: the very first run of a
freshly started server is wrapped in a v1 navigation of ``pages/*.py`` (our pages live in
sub-folders, so it lists none), which does not know ``/llm_leaderboard`` and sends the browser a
"Page not found" dialog before ``app.py``'s own navigation renders the right page under it.
Declaring up front that the app navigates itself (the flag ``st.navigation`` sets on its first
call) removes that first v1 run; ``tests/test_screenshots.py`` opens a deep link as the first
request of a fresh server and checks that no dialog appears.

Start-up also does, once, the work that would otherwise fall on the first visitor's page
(:func:`prepare`; ``bench/pages.py`` calls it too, so its "cold" figures are what that visitor
waits for): it imports the app's modules, builds one throw-away plotly figure (plotly's first
figure loads its templates and validators, about 0.3 s), and skips Streamlit's check for "this
script was not started with ``streamlit run``" (it is), which walks the whole call stack with
``inspect.stack()`` on the first element of the process (another 0.3 s). No data is read: caches
stay empty until a page asks.
"""

from __future__ import annotations

import sys
from pathlib import Path

APP = Path(__file__).resolve().parent.parent / "app.py"
APP_MODULES = ("ui.llm", "ui.fl", "ui.vision", "ui.community", "plotly.express", "pyarrow.parquet")
"""Imported at start-up (:func:`prepare`), before any visitor."""
CACHE_LOGGERS = ("cache_data_api", "cache_resource_api")


def prepare() -> None:
    """The server's one-time start-up work (see the module docstring); reads no data."""
    import importlib
    import logging

    import streamlit.delta_generator
    from streamlit.runtime.pages_manager import PagesManager

    PagesManager.uses_pages_directory = False  # app.py navigates with st.navigation
    streamlit.delta_generator._use_warning_has_been_displayed = True  # run by streamlit run
    # before the server starts, each st.cache_data / st.cache_resource decorator logs "No
    # runtime found, using MemoryCacheStorageManager": not so, the functions run under the
    # runtime (their caches are made on first call); those lines are silenced here only
    quiet = [logging.getLogger(f"streamlit.runtime.caching.{m}") for m in CACHE_LOGGERS]
    levels = [log.level for log in quiet]
    for log in quiet:
        log.setLevel(logging.ERROR)
    try:
        for name in APP_MODULES:
            importlib.import_module(name)
    finally:
        for log, level in zip(quiet, levels, strict=True):
            log.setLevel(level)
    import pandas as pd
    import plotly.express as px

    warm_up = pd.DataFrame({"x": [1.0], "y": ["warm-up"], "kind": ["a"]})
    px.bar(warm_up, x="x", y="y", color="kind", orientation="h").to_json()  # loads the templates


def main(argv: list[str]) -> int:
    from streamlit.web import cli

    prepare()
    sys.argv = ["streamlit", "run", str(APP), *argv]
    return cli.main()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
