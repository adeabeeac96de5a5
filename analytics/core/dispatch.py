"""Table-driven command dispatch shared by ``python -m analytics`` and ``python -m measure``.

Each command lives in a module exposing ``main(argv: list[str]) -> int`` and receives
``[command, *args]``, so one module may serve several commands. A ``Problem`` a command raises
is caught here, once for every command (``run``): its one line goes to stderr and the exit
status is the problem's ``exit_status``.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable

from analytics.core.problems import Problem

Commands = dict[str, tuple[str, str]]  # name -> (module, one-line help)


def usage(prog: str, commands: Commands) -> str:
    """The command list printed for ``--help`` or a bare call."""
    width = max(len(name) for name in commands) + 2
    lines = [f"usage: python -m {prog} <command> [options]", "", "commands:"]
    lines += [f"  {name:<{width}}{help_}" for name, (_, help_) in commands.items()]
    return "\n".join(lines)


def dispatch(prog: str, commands: Commands, argv: list[str]) -> int:
    """Run the command named by ``argv[0]``; exit code 2 with one line for an unknown one."""
    if not argv or argv[0] in {"-h", "--help"}:
        print(usage(prog, commands))
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    if name not in commands:
        choices = ", ".join(commands)
        print(f"error: unknown command {name!r}; choose one of: {choices}", file=sys.stderr)
        return 2
    module_name = commands[name][0]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        print(f"error: command {name!r} is not available ({module_name} missing)", file=sys.stderr)
        return 2
    return run(module.main, [name, *rest])


def run(main: Callable[[list[str]], int], argv: list[str]) -> int:
    """``main(argv)``'s exit status; a ``Problem`` it raises is printed as its one line
    (``error: <where>: <what>; fix: <how>``) and exits with the problem's ``exit_status``."""
    try:
        return int(main(argv) or 0)
    except BrokenPipeError:  # output piped into `head` and the like: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Problem as problem:
        print(f"error: {problem}", file=sys.stderr)
        return problem.exit_status
