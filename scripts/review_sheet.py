"""Maintainer tool for the hand review of measured runs (seed 000: every output is looked at).

For each run it draws an overlay sheet (ground truth green, every detection above the task's
threshold red with its output index and score) and prints a proposed mark per output
(``analytics.vision.review.proposed_marks``). Look at the sheet; then store the marks, changing any
proposal you disagree with:

    .venv/bin/python scripts/review_sheet.py                      # latest ranked run per adapter
    .venv/bin/python scripts/review_sheet.py --run RUN_ID --out /tmp/review
    .venv/bin/python scripts/review_sheet.py --run RUN_ID --store --reviewer "Name" \
        --set 3=fail:"box covers two faces" --set 5=ok

Stored marks go to data/runs/vision_failures/<run_id>.parquet (``save_failure_marks``); the
note of each stored mark says it was checked on the overlay sheet. ``--reviewer`` must be a
configured maintainer (``MODELATLAS_MAINTAINERS`` or ``[maintainers]`` in
.streamlit/secrets.toml; the name is checked, no password is asked), and every save appends a
``review-marks`` line to the inbox audit log *before* the marks file is written, under the inbox
lock (``measure.community.inbox.save_marks``; ``--inbox-dir``, default $MODELATLAS_INBOX_DIR or
data/inbox).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd
from PIL import Image, ImageDraw

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analytics.core import db, problems  # noqa: E402
from analytics.vision import review, runs  # noqa: E402
from measure import review_trail  # noqa: E402
from measure.adapters.catalog import adapter_catalog  # noqa: E402
from measure.community import auth, cli, inbox  # noqa: E402
from measure.tasks import load_tasks  # noqa: E402

GREEN, RED = (0, 170, 0), (220, 0, 0)


def latest_ranked(con) -> list[str]:
    """The run each leaderboard shows: the latest rankable run per adapter, task and device."""
    catalog = adapter_catalog()
    out = []
    for task in load_tasks():
        for device in runs.devices(con):
            board = runs.leaderboard(con, catalog, task, device)
            if not board.ranked.empty:
                out += board.ranked["run_id"].tolist()
    return out


def sheet(run: pd.Series, outputs: pd.DataFrame, truth: dict, folder: Path) -> Image.Image:
    """The task's input images side by side, ground truth and detections drawn on each."""
    tiles = []
    for name, boxes in truth.items():
        img = Image.open(folder / name).convert("RGB")
        draw = ImageDraw.Draw(img)
        for x, y, w, h in boxes:
            draw.rectangle([x, y, x + w, y + h], outline=GREEN, width=3)
        for det in outputs[
            (outputs["input_name"] == name) & outputs["above_threshold"]
        ].itertuples():
            draw.rectangle([det.x, det.y, det.x + det.w, det.y + det.h], outline=RED, width=2)
            draw.text((det.x + 3, det.y + 3), f"#{det.output_index} {det.score:.2f}", fill=RED)
        draw.text((4, 4), name, fill=(255, 255, 0))
        tiles.append(img)
    width = sum(t.width for t in tiles) + 8 * len(tiles)
    canvas = Image.new("RGB", (width, max(t.height for t in tiles) + 24), (40, 40, 40))
    x = 0
    for tile in tiles:
        canvas.paste(tile, (x, 24))
        x += tile.width + 8
    ImageDraw.Draw(canvas).text((4, 4), f"{run['run_id']} ({run['adapter']})", fill=(255, 255, 255))
    return canvas


def _apply(marks: pd.DataFrame, settings: list[str]) -> pd.DataFrame:
    """Apply ``INDEX=ok|fail[:note]`` changes the reviewer made after looking."""
    marks = marks.copy()
    for item in settings:
        index, _, rest = item.partition("=")
        verdict, _, note = rest.partition(":")
        if verdict not in ("ok", "fail") or not index.lstrip("-").isdigit():
            raise SystemExit(f"--set {item!r}: write INDEX=ok or INDEX=fail[:note]")
        hit = marks["output_index"] == int(index)
        if not hit.any():
            raise SystemExit(f"--set {item!r}: no output #{index} in this run's marks")
        marks.loc[hit, "failure"] = verdict == "fail"
        if note:
            marks.loc[hit, "note"] = note
    return marks


def reviewer(name: str) -> auth.Maintainer:
    """The configured maintainer ``name``; SystemExit with one line otherwise (default deny)."""
    try:
        maintainers = auth.load_maintainers(cli.secrets_tables())
    except auth.AuthError as exc:
        raise SystemExit(f"error: {exc}") from None
    if not maintainers:
        raise SystemExit(f"error: {auth.HOW_TO_CONFIGURE}")
    if name not in maintainers:
        raise SystemExit(
            "error: "
            + problems.line(
                "--reviewer",
                f"{name!r} is not a configured maintainer",
                "pass your maintainer name as configured in MODELATLAS_MAINTAINERS or "
                ".streamlit/secrets.toml",
            )
        )
    return auth.Maintainer(name)


def store(
    run_id: str,
    marks: pd.DataFrame,
    who: auth.Maintainer,
    inbox_root: Path | None = None,
    runs_dir: Path | None = None,
) -> Path:
    """Save the marks: audit line first, then the marks file (``inbox.save_marks``)."""
    try:
        return inbox.save_marks(
            run_id,
            who,
            int(marks["failure"].astype(bool).sum()),
            lambda: runs.save_failure_marks(
                run_id,
                marks,
                who.name,
                runs_dir,
                lambda frame: review_trail.record(
                    run_id, frame, who.name, "scripts/review_sheet.py", runs_dir
                ),
            ),
            inbox_root,
            file=f"{run_id}.parquet",
            via="scripts/review_sheet.py",
        )
    except inbox.InboxError as exc:
        raise SystemExit(f"error: {exc}") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="append", help="run id (default: latest ranked runs)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/review"), help="sheet folder")
    parser.add_argument("--store", action="store_true", help="store the marks (after looking)")
    parser.add_argument("--reviewer", default="", help="who looked (required with --store)")
    parser.add_argument("--set", action="append", default=[], help="INDEX=ok|fail[:note]")
    parser.add_argument("--inbox-dir", type=Path, help="audit log's inbox (default data/inbox)")
    args = parser.parse_args(argv)
    if args.store and not args.reviewer:
        parser.error("--store needs --reviewer")
    who = reviewer(args.reviewer) if args.store else None
    con = db.connect()
    tasks = load_tasks()
    all_runs = runs.all_runs(con).set_index("run_id", drop=False)
    args.out.mkdir(parents=True, exist_ok=True)
    for run_id in args.run or latest_ranked(con):
        if run_id not in all_runs.index:
            raise SystemExit(f"run {run_id!r} is not stored under data/runs; check the id")
        run = all_runs.loc[run_id]
        task = tasks[run["task"]]
        if task.ground_truth is None:
            print(f"{run_id}: task {task.name} has no ground truth of ours; skipped")
            continue
        outputs = db.query(con, "SELECT * FROM vision_outputs WHERE run_id = ?", [run_id])
        truth = review.ground_truth(task.ground_truth)
        path = args.out / f"{run_id}.png"
        sheet(run, outputs, truth, task.inputs).save(path)
        marks = _apply(review.proposed_marks(outputs, truth), args.set)
        print(f"\n{run_id}: sheet {path}")
        print(marks.to_string(index=False))
        if who is not None:
            marks["note"] = marks["note"] + " (checked by eye on the overlay sheet)"
            print("stored:", store(run_id, marks, who, args.inbox_dir))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
