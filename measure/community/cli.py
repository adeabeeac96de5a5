"""``python -m measure submit | inbox | maintainer | audit``: the community commands.

    submit RECORD --github NAME --out BUNDLE.zip
    inbox add BUNDLE.zip | list [--status S] | accept ID | reject ID --reason TEXT
    maintainer hash-password [--name NAME]
    audit verify [--inbox DIR] [--runs DIR] | import-marks [--runs DIR]

``inbox list`` first repairs what a killed accept or reject left (``inbox.repair``), so it never
shows a decision without its audit line (one that still lacks it is marked "no audit line").
``audit verify`` exits 1 on damage and on unchained (legacy) lines, naming them.

accept and reject take ``--maintainer NAME`` and read the password from $MODELATLAS_PASSWORD,
else from the terminal (hidden) or the first line of stdin; failed sign-ins count towards the
server-side lockout (``auth.Throttle``, shared with the pages). Every command takes
``--inbox-dir`` (default $MODELATLAS_INBOX_DIR, else data/inbox). Exit codes: 0 done,
1 refused (invalid bundle, duplicate, access denied, already decided), 2 usage.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
import tomllib
from pathlib import Path

from analytics.core import atomic, problems
from measure import review_trail
from measure.community import audit, auth, bundle, inbox
from measure.community.validate import validate_bundle


def _error(message: str, code: int = 1) -> int:
    print(f"error: {message}", file=sys.stderr)
    return code


def submit_main(argv: list[str]) -> int:
    """Package a record, check it as the inbox would, and write the bundle."""
    p = argparse.ArgumentParser(prog="python -m measure submit")
    p.add_argument("record", type=Path, help="data/runs/records/<run_id>.json")
    p.add_argument("--github", required=True, help="your GitHub user name (shown with the result)")
    p.add_argument("--out", type=Path, required=True, help="the bundle to write, e.g. run.zip")
    args = p.parse_args(argv)
    data = bundle.build(args.record, args.github)  # a SubmitError or BundleError: dispatch.run
    checked = validate_bundle(data, str(args.out), compare_ours=False)
    atomic.write_bytes(args.out, data)
    print(
        f"wrote {args.out} ({len(data)} bytes, bundle {checked.bundle_id}); upload it on the "
        "'Submit a run' page or send it to the maintainers"
    )
    for flag in checked.flags:
        print(f"note: the reviewer will see flag {flag.code}: {flag.message}")
    return 0


def _inbox_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m measure inbox")
    p.add_argument("--inbox-dir", type=Path, help="default $MODELATLAS_INBOX_DIR or data/inbox")
    sub = p.add_subparsers(dest="action", required=True)
    add = sub.add_parser("add", help="validate a bundle and queue it")
    add.add_argument("bundle", type=Path)
    add.add_argument("--runs-dir", type=Path, help="our runs (default data/runs)")
    listing = sub.add_parser("list", help="list bundles")
    listing.add_argument("--status", choices=(inbox.QUEUED, inbox.ACCEPTED, inbox.REJECTED))
    listing.add_argument("--runs-dir", type=Path, help="where results go (default data/runs)")
    for name in ("accept", "reject"):
        cmd = sub.add_parser(name, help=f"{name} a queued bundle (maintainers only)")
        cmd.add_argument("id")
        cmd.add_argument("--maintainer", required=True)
        cmd.add_argument("--reason", required=name == "reject", default="")
        cmd.add_argument("--runs-dir", type=Path, help="where results go (default data/runs)")
    return p


def secrets_tables() -> dict[str, str]:
    """[maintainers] from .streamlit/secrets.toml in the working and home folders (as Streamlit)."""
    found: dict[str, str] = {}
    for path in (
        Path.home() / ".streamlit" / "secrets.toml",
        Path.cwd() / ".streamlit" / "secrets.toml",
    ):
        if path.is_file():
            try:
                found |= tomllib.loads(path.read_text()).get("maintainers", {})
            except (OSError, tomllib.TOMLDecodeError) as exc:
                raise auth.AuthError(str(path), f"unreadable ({exc})", "fix its TOML") from None
    return found


def _password() -> str:
    if os.environ.get(auth.ENV_PASSWORD):
        return os.environ[auth.ENV_PASSWORD]
    if sys.stdin.isatty():
        return getpass.getpass("maintainer password: ")
    return sys.stdin.readline().rstrip("\n")


def login(name: str, inbox_root: Path | None = None) -> auth.Maintainer:
    """The maintainer ``name`` once the password checks out; AuthError otherwise."""
    maintainers = auth.load_maintainers(secrets_tables())
    if not maintainers:
        raise auth.AuthError(auth.HOW_TO_CONFIGURE)
    throttle = auth.Throttle(inbox.inbox_dir(inbox_root) / auth.THROTTLE_FILE)
    return auth.sign_in(name, _password(), maintainers, throttle, auth.cli_client())


def _print_entry(entry: dict, unaudited: bool = False) -> None:
    flags = f", {len(entry['flags'])} flag(s)" if entry["flags"] else ""
    note = " (no audit line: not a decision)" if unaudited else ""
    print(
        f"{entry['id']}  {entry['status']:<8}{note}  {entry['adapter']} on {entry['gpu']} "
        f"({entry['precision']}) by {entry['github']}: median {entry['median_ms']:.3f} ms"
        f"{flags}"
    )


def inbox_main(argv: list[str]) -> int:
    """The inbox commands (a refusal is a Problem: one line from ``dispatch.run``, exit 1)."""
    args = _inbox_parser().parse_args(argv)
    if args.action == "add":
        entry = inbox.add_file(args.bundle, args.inbox_dir, args.runs_dir)
        print(f"queued {entry['id']} for review")
        _print_entry(entry)
        for flag in entry["flags"]:
            print(f"flag {flag['code']}: {flag['message']}")
    elif args.action == "list":
        try:
            inbox.repair(args.inbox_dir, args.runs_dir)
        except inbox.InboxError as exc:  # still list, each decision marked unconfirmed
            print(f"warning: {exc}", file=sys.stderr)
        found = inbox.entries(args.inbox_dir, args.status)
        unaudited = inbox.unaudited(args.inbox_dir) if found else set()
        for entry in found:
            _print_entry(entry, entry["id"] in unaudited)
        if not found:
            kind = f"{args.status} " if args.status else ""
            print(f"no {kind}bundles in {inbox.inbox_dir(args.inbox_dir)}")
    else:
        who = login(args.maintainer, args.inbox_dir)
        if args.action == "accept":
            entry = inbox.accept(args.id, who, args.inbox_dir, args.runs_dir, args.reason)
        else:
            entry = inbox.reject(args.id, who, args.reason, args.inbox_dir, args.runs_dir)
        print(f"{entry['status']} {entry['id']} by {who.name}")
    return 0


def maintainer_main(argv: list[str]) -> int:
    """``maintainer hash-password``: print NAME:HASH for MODELATLAS_MAINTAINERS."""
    p = argparse.ArgumentParser(prog="python -m measure maintainer")
    sub = p.add_subparsers(dest="action", required=True)
    make = sub.add_parser("hash-password", help="read a password, print its salted scrypt hash")
    make.add_argument("--name", help="print NAME:HASH, ready for MODELATLAS_MAINTAINERS")
    args = p.parse_args(argv)
    if os.environ.get(auth.ENV_PASSWORD):  # like accept and reject: no prompt in scripts
        password = os.environ[auth.ENV_PASSWORD]
    elif sys.stdin.isatty():
        password = getpass.getpass("password: ")
        if getpass.getpass("again: ") != password:
            return _error("the two passwords differ; nothing printed")
    else:
        password = sys.stdin.readline().rstrip("\n")
    try:
        stored = auth.hash_password(password)
    except ValueError as exc:
        return _error(str(exc))
    print(f"{args.name}:{stored}" if args.name else stored)
    return 0


def audit_main(argv: list[str]) -> int:
    """``audit verify``: check the audit log's hash chain; one line naming a damaged line."""
    p = argparse.ArgumentParser(prog="python -m measure audit")
    sub = p.add_subparsers(dest="action", required=True)
    check = sub.add_parser("verify", help="find edited, dropped or reordered audit lines")
    check.add_argument("--inbox", "--inbox-dir", dest="inbox_dir", type=Path,
                       help="default $MODELATLAS_INBOX_DIR or data/inbox")
    check.add_argument("--runs", "--runs-dir", dest="runs_dir", type=Path,
                       help="runs folder of the review trail (default data/runs)")
    marks = sub.add_parser("import-marks", help="trail entries for marks stored before the trail")
    marks.add_argument("--runs", "--runs-dir", dest="runs_dir", type=Path)
    args = p.parse_args(argv)
    if args.action == "import-marks":
        added = review_trail.import_existing(
            args.runs_dir, via="python -m measure audit import-marks"
        )
        print(f"{review_trail.trail_log(args.runs_dir)}: {len(added)} entries added")
        return 0
    code = _verify_inbox_log(args.inbox_dir)
    return max(code, _verify_trail(args.runs_dir))


def _verify_trail(runs_dir: Path | None) -> int:
    """The committed review trail: its chain, and every marks file against its latest entry."""
    log, problems_ = review_trail.check(runs_dir)  # an AuditError names the damaged line
    if problems_:
        return _error(problems_[0])
    path = review_trail.trail_log(runs_dir)
    print(f"{path}: intact, {log.lines} lines, head {log.head}; every committed marks file "
          "matches its run's latest entry")
    return 0


def _verify_inbox_log(inbox_dir: Path | None) -> int:
    folder = inbox.inbox_dir(inbox_dir)
    if folder.exists() and not folder.is_dir():  # /dev/null holds no log: never "intact"
        fix = "pass the inbox folder (the one holding audit.jsonl)"
        return _error(problems.line(str(folder), "is not a folder", fix))
    path = folder / audit.AUDIT_FILE
    if path.exists() and not path.is_file():  # a FIFO would hang the read
        return _error(problems.line(str(path), "is not a regular file", "restore the log"))
    log = inbox.verify_audit(inbox_dir)  # an InboxError names the damaged line
    if log.legacy_lines:
        what = (
            f"not intact: line(s) {audit.ranges(log.legacy_lines)} of {log.lines} are unchained "
            "(no prev_sha256: written before the chain existed, or stripped since), so they "
            "cannot be verified"
        )
        fix = "compare those lines with a backup of the log; a log with them never verifies"
        return _error(problems.line(f"{path}", what, fix))
    notes = ""
    if log.torn_lines:
        notes += f"; skipped cut line(s) {audit.ranges(log.torn_lines)} (interrupted appends)"
    if log.pending:
        cut = audit.ranges([n for n, _ in log.pending])
        notes += f"; line(s) {cut} at the end are an interrupted append, not a decision"
    print(f"{path}: intact, {log.lines} lines, head {log.head}{notes}")
    return 0


def main(argv: list[str]) -> int:
    """Dispatch ``[command, *args]`` from ``python -m measure``."""
    command, rest = argv[0], argv[1:]
    handlers = {
        "submit": submit_main,
        "inbox": inbox_main,
        "maintainer": maintainer_main,
        "audit": audit_main,
    }
    return handlers[command](rest)
