"""Command line: ``python -m measure <command> ...`` (table-driven like ``python -m analytics``).

Each command lives in a module exposing ``main(argv: list[str]) -> int`` and receives
``[command, *args]``. ``submit`` and ``inbox`` are provided by their own modules.
"""

from __future__ import annotations

import importlib
import sys

COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("measure.cli", "measure one adapter under the protocol and store its record"),
    "verify": ("measure.verify", "recompute a record's figures and check its hashes"),
    "sweep": ("measure.cli", "measure every registered adapter, each in its own process"),
    "submit": ("measure.community.cli", "package a run record as a community submission"),
    "inbox": ("measure.community.cli", "queue, list, accept or reject community submissions"),
    "maintainer": ("measure.community.cli", "make a maintainer password hash"),
}


def _usage() -> str:
    lines = ["usage: python -m measure <command> [options]", "", "commands:"]
    lines += [f"  {name:<8} {help_}" for name, (_, help_) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in {"-h", "--help"}:
        print(_usage())
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(
            f"error: unknown command {name!r}; choose one of: {', '.join(COMMANDS)}",
            file=sys.stderr,
        )
        return 2
    module_name = COMMANDS[name][0]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        print(
            f"error: command {name!r} is not available in this version ({module_name} missing)",
            file=sys.stderr,
        )
        return 2
    return int(module.main([name, *rest]) or 0)


if __name__ == "__main__":
    sys.exit(main())
