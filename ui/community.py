"""Streamlit pieces of the community track: the maintainer login gate, the upload handler and
the model page's "Community results" section. Logic lives in ``measure.community``; the cached
loader of the results table lives with the other vision loaders in ``ui.vision``."""

from __future__ import annotations

import os
import re
from typing import Any

import streamlit as st

from measure.community import auth, inbox
from measure.community.validate import BundleError, check_size
from ui import vision

SESSION_KEY = "maintainer"

EXAMPLE_CONFIG = f"""# 1. make a hash (asks for the password twice):
python -m measure maintainer hash-password --name alice
# 2a. either export it before `streamlit run app.py`:
export {auth.ENV_MAINTAINERS}='alice:scrypt$16384$8$1$<salt>$<hash>'
# 2b. or put it in .streamlit/secrets.toml:
[maintainers]
alice = "scrypt$16384$8$1$<salt>$<hash>"
"""


def _secrets_table() -> dict[str, str]:
    try:
        return dict(st.secrets.get("maintainers", {}) or {})
    except Exception:  # no secrets.toml at all: Streamlit raises on first access
        return {}


def configured_maintainers() -> dict[str, str]:
    """Maintainers from Streamlit secrets and $MODELATLAS_MAINTAINERS (AuthError if malformed)."""
    return auth.load_maintainers(_secrets_table())


def throttle() -> auth.Throttle:
    """The server-side sign-in throttle, shared by every session (``<inbox>/login-throttle``)."""
    return auth.Throttle(inbox.inbox_dir() / auth.THROTTLE_FILE)


ENV_CLIENT_HEADER = "MODELATLAS_TRUSTED_CLIENT_HEADER"
"""The request header a trusted reverse proxy sets to the visitor's address (``X-Real-IP``, or
``X-Forwarded-For`` whose last entry the proxy appended); unset, the TCP peer is the client."""


def client_from(peer: str | None, headers: dict[str, str], trusted_header: str | None) -> str:
    """The client key: the configured trusted header's address when it is set and present (the
    last entry of a comma-separated list: the one our proxy added), else the TCP peer; a
    header nobody configured is never read, so a visitor cannot pick their own client key."""
    if trusted_header:
        value = {k.casefold(): v for k, v in headers.items()}.get(trusted_header.casefold())
        address = (value or "").split(",")[-1].strip()
        if address:
            return f"web:{address[:64]}"
    return f"web:{peer}" if peer else auth.WEB_LOCAL


def client() -> str:
    """The sign-in throttle's and the upload gate's client key (``client_from``): the trusted
    proxy header named by $MODELATLAS_TRUSTED_CLIENT_HEADER when configured, else the TCP peer
    (``web:localhost`` when Streamlit gives none: a local browser, tests)."""
    try:
        peer = st.context.ip_address
        headers = dict(st.context.headers or {})
    except Exception:  # outside a running app
        peer, headers = None, {}
    return client_from(peer, headers, os.environ.get(ENV_CLIENT_HEADER))


def _login_form(key: str, maintainers: dict[str, str]) -> None:
    with st.form(key=f"{key}_login"):
        name = st.text_input("Maintainer name", key=f"{key}_login_name")
        password = st.text_input("Password", type="password", key=f"{key}_login_password")
        sent = st.form_submit_button("Sign in")
    if sent:
        try:
            who = auth.sign_in(name, password, maintainers, throttle(), client())
        except auth.AuthError as exc:
            st.error(str(exc))
            return
        st.session_state[SESSION_KEY] = who.name
        st.rerun()


def _signed_in(key: str, maintainers: dict[str, str]) -> auth.Maintainer | None:
    """The session's maintainer while still configured (with a sign-out button), else None."""
    name = st.session_state.get(SESSION_KEY)
    if name not in maintainers:
        return None
    with st.sidebar:
        st.caption(f"Signed in as maintainer **{name}**")
        if st.button("Sign out", key=f"{key}_logout"):
            st.session_state.pop(SESSION_KEY, None)
            st.rerun()
    return auth.Maintainer(name)


def require_maintainer(key: str, *, neutral: bool = False) -> auth.Maintainer:
    """The signed-in maintainer; otherwise render why not (or a login form) and stop the page.

    Default deny: with no maintainer configured the page refuses and says how to configure one.
    ``neutral`` (the pages of the Maintainers section, which every visitor can open): the
    refusals are ``st.info`` notes for the operator, never an error box; a visitor only ever
    sees the sign-in form or that note.
    """
    note = st.info if neutral else st.error
    try:
        maintainers = configured_maintainers()
    except auth.AuthError as exc:
        note(f"Maintainer access is misconfigured: {exc}")
        st.stop()
    if not maintainers:
        if neutral:
            note(
                "Maintainers only. No maintainer is configured on this server, so this page "
                "stays closed. For the operator, to configure one:"
            )
        else:
            note("Maintainers only, and no maintainer is configured, so access is denied.")
            st.markdown("To configure one:")
        st.code(EXAMPLE_CONFIG, language="bash")
        st.stop()
    who = _signed_in(key, maintainers)
    if who is not None:
        return who
    st.info("Maintainers only: sign in to continue.")
    _login_form(key, maintainers)
    st.stop()


def maintainer_or_none(key: str) -> auth.Maintainer | None:
    """The signed-in maintainer, else None after offering a sign-in form (the page goes on).

    For a maintainer-only control inside a public page; with nobody configured (or a
    misconfiguration) it says so in one line and returns None.
    """
    try:
        maintainers = configured_maintainers()
    except auth.AuthError as exc:
        st.caption(f"Maintainer access is misconfigured: {exc}")
        return None
    if not maintainers:
        st.caption("Maintainers only; no maintainer is configured on this server.")
        return None
    who = _signed_in(key, maintainers)
    if who is None:
        with st.expander("Maintainer sign-in"):
            _login_form(key, maintainers)
    return who


def submit_upload(payload: bytes, name: str) -> dict[str, Any]:
    """Queue an uploaded bundle: ``{"ok", "id", "message", "flags"}`` for the submit page."""
    name = re.sub(r"[^A-Za-z0-9._-]", "_", name)[:100] or "upload.zip"  # shown in messages
    try:
        entry = inbox.add(payload, name)
    except (BundleError, inbox.InboxError) as exc:
        return {"ok": False, "id": None, "message": str(exc), "flags": []}
    message = (
        f"Accepted into the review queue as **{entry['id']}**: {entry['display_name']} on "
        f"{entry['gpu']} ({entry['precision']}) by {entry['github']}, median "
        f"{entry['median_ms']:.3f} ms. A maintainer will review it."
    )
    return {"ok": True, "id": entry["id"], "message": message, "flags": entry["flags"]}


def submit_uploaded(uploaded: Any) -> dict[str, Any]:
    """``submit_upload`` for a Streamlit upload, refused by its size before it is read."""
    name = re.sub(r"[^A-Za-z0-9._-]", "_", uploaded.name)[:100] or "upload.zip"
    try:
        check_size(uploaded.size, name)
    except BundleError as exc:
        return {"ok": False, "id": None, "message": str(exc), "flags": []}
    return submit_upload(uploaded.getvalue(), uploaded.name)


def community_section(adapter: str) -> None:
    """The model page's "Community results": accepted runs, apart from ours (seed 000)."""
    st.subheader("Community results")
    st.caption(
        "Runs of the same protocol on contributors' own GPUs, accepted after review. They never "
        "replace our numbers: the charts and rankings use only what we measured. "
        "**Reproduced** = a second contributor on the same GPU, input size and precision agrees "
        "within 10%; otherwise **Unverified**. **power-limited** = the GPU ran below its default "
        "power limit, so it is slower."
    )
    table, problem = vision.community_results(adapter)
    if problem:
        st.error(f"Community results are hidden: {problem}")
        return
    if table.empty:
        st.info(
            "No accepted community results for this model yet. Measure it on your GPU with "
            "`python -m measure run` and send the record from the 'Submit a run' page."
        )
        return
    st.dataframe(
        table,
        hide_index=True,
        key="community_results_table",
        column_config={"profile": st.column_config.LinkColumn("profile")},
        placeholder="—",
    )
