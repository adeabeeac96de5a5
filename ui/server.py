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
"""

from __future__ import annotations

import sys
from pathlib import Path

APP = Path(__file__).resolve().parent.parent / "app.py"


def main(argv: list[str]) -> int:
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.web import cli

    PagesManager.uses_pages_directory = False  # app.py navigates with st.navigation
    sys.argv = ["streamlit", "run", str(APP), *argv]
    return cli.main()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
