"""Importer for the τ²-bench leaderboard: ``tau2-bench/submissions/<dir>/submission.json``.

Headline: pass^1 per domain (``results.<domain>.pass_1``, already in percent), one benchmark per
domain and leaderboard track. The tracks are the leaderboard's own (``manifest.json``):

- ``submissions`` (current text board, τ²-bench 1.x, GPT-5.2 user simulator):
  ``tau2-airline``, ``tau2-retail``, ``tau2-telecom``, ``tau2-banking`` (banking_knowledge, only
  with the leaderboard's standard AllTools retrieval: other retrieval pipelines are different
  scaffolds);
- ``legacy_submissions`` (τ²-bench 0.x, GPT-4.1 user simulator): ``tau2-legacy-<domain>``;
- ``voice_submissions`` (audio-native full-duplex agents, voice user simulator v1.0):
  ``tau2-voice-<domain>``.

Dropped and counted: the ``A_EXAMPLE_*`` templates, folders not in the manifest (not on the site),
``submission_type: custom`` entries, modified prompts (the flag, or a "prompt addendum" in the
notes), another user simulator than the track's, another retrieval config than AllTools, a
cascaded multi-provider pipeline, runs of the original τ-bench (v1) filed as legacy, and a
domain whose result is null (not evaluated).

Provenance: a submission filed by the model's own vendor (``submitting_organization`` equal to
``model_organization`` after the alias table below, e.g. Qwen = Alibaba) is ``self-reported``;
one filed by Sierra (the benchmark's authors) or another third party is ``independent``, as is a
vendor filing whose notes say Sierra evaluated it independently.
"""

from __future__ import annotations

import re
from pathlib import Path

from analytics.llm.ingest import protocols
from analytics.llm.ingest.common import (
    Drops,
    IngestError,
    ModelObs,
    ScoreObs,
    clean_text,
    read_source_json,
)
from analytics.llm.ingest.organisations import canonical_org, org_key

SOURCE = "tau2-bench"
SOURCE_NAME = "τ²-bench leaderboard"
LEADERBOARD_URL = "https://taubench.com/"

DOMAINS = {
    "airline": "airline",
    "retail": "retail",
    "telecom": "telecom",
    "banking_knowledge": "banking",
}
TRACKS = {"submissions": "text", "legacy_submissions": "legacy", "voice_submissions": "voice"}
BENCHMARK_PREFIX = {"text": "tau2", "legacy": "tau2-legacy", "voice": "tau2-voice"}
STANDARD_RETRIEVAL = "alltools"


TEMPLATE = "example template (A_EXAMPLE_*), not a submission"
NOT_LISTED = "folder not in manifest.json (not on the leaderboard site)"
NULL_DOMAIN = "domain not evaluated (null result or null pass_1)"
ORIGINAL_TAU = "original τ-bench (v1) run filed as legacy, not τ²-bench"
VERSION = "τ²-bench version other than the track's (1.x current/voice, 0.x legacy)"
NO_BANKING = "banking_knowledge result in a track without a banking benchmark"
DUPLICATE = "same model and variant twice in one track (latest submission kept)"
SCAFFOLD_CUSTOM = f"{protocols.SCAFFOLD}: submission_type custom"
SCAFFOLD_PROMPTS = f"{protocols.SCAFFOLD}: modified prompts"
SCAFFOLD_USER_SIM = f"{protocols.SCAFFOLD}: another user simulator than the track's"
SCAFFOLD_RETRIEVAL = f"{protocols.SCAFFOLD}: banking retrieval other than AllTools"
SCAFFOLD_PIPELINE = f"{protocols.SCAFFOLD}: cascaded pipeline of several providers' models"

_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_ADDENDUM = re.compile(r"prompt addendum", re.IGNORECASE)
_SIERRA_RAN = re.compile(r"independently evaluated by sierra", re.IGNORECASE)


def _org_key(name: str | None) -> str:
    return org_key(canonical_org(name) or "")


def source_kind(data: dict) -> str:
    """``self-reported`` when the model's vendor filed the submission, else ``independent``."""
    notes = str((data.get("methodology") or {}).get("notes") or "")
    same = _org_key(data.get("submitting_organization")) == _org_key(data.get("model_organization"))
    return "self-reported" if same and not _SIERRA_RAN.search(notes) else "independent"


def variant_of(data: dict) -> str | None:
    """``reasoning_effort`` in lower case; ``enabled`` (thinking on) becomes ``thinking``."""
    effort = clean_text(data.get("reasoning_effort"))
    if effort is None:
        return None
    effort = effort.lower()
    return "thinking" if effort == "enabled" else effort


def _version_major(version: str | None) -> int | None:
    match = re.match(r"^v?(\d+)\.", (version or "").strip())
    return int(match.group(1)) if match else None


def protocol_drop(track: str, data: dict) -> str | None:
    """Why a whole submission is not a headline run of its track, or None."""
    method = data.get("methodology") or {}
    verification = method.get("verification") or {}
    version = clean_text(method.get("tau2_bench_version"))
    user_sim = (clean_text(method.get("user_simulator")) or "").lower()
    if str(data.get("submission_type") or "standard").lower() == "custom":
        return SCAFFOLD_CUSTOM
    if track == "legacy" and version and "original" in version.lower():
        return ORIGINAL_TAU
    if verification.get("modified_prompts") is True or _ADDENDUM.search(
        str(method.get("notes") or "")
    ):
        return SCAFFOLD_PROMPTS
    if str(data.get("model_organization") or "").strip().lower() == "multiple providers":
        return SCAFFOLD_PIPELINE
    major = _version_major(version)
    if track == "legacy":
        if major != 0:
            return VERSION
        if user_sim and not user_sim.startswith("gpt-4.1"):
            return SCAFFOLD_USER_SIM
    else:
        if major is None or major < 1:
            return VERSION
        expected = "gpt-5.2" if track == "text" else "v1.0"
        if not user_sim.startswith(expected):
            return SCAFFOLD_USER_SIM
    return None


def read_submission(path: Path) -> dict:
    """Parsed submission.json; IngestError naming the file when a required key is missing."""
    data = read_source_json(path)
    if not isinstance(data, dict):
        raise IngestError(f"{path}: not a JSON object; expected a τ²-bench submission")
    for key in ("model_name", "model_organization", "submitting_organization", "results"):
        if key not in data:
            raise IngestError(f"{path}: missing key {key!r}; expected a τ²-bench submission.json")
    if not isinstance(data["results"], dict):
        raise IngestError(
            f"{path}: 'results' is not an object; expected {{domain: {{pass_1: ...}}}}"
        )
    if clean_text(data["model_name"]) is None:
        raise IngestError(f"{path}: empty 'model_name'; restore the file from its source")
    return data


def domain_scores(path: Path, data: dict) -> list[tuple[str, float | None, dict]]:
    """(domain, pass_1 or None, result) for every known domain key in ``results``."""
    out = []
    for domain, result in data["results"].items():
        if domain not in DOMAINS:
            raise IngestError(
                f"{path}: unknown domain {domain!r} in 'results'; expected one of {sorted(DOMAINS)}"
            )
        if result is None:
            out.append((domain, None, {}))
            continue
        if not isinstance(result, dict):
            raise IngestError(
                f"{path}: results.{domain} is not an object; expected {{pass_1: ...}}"
            )
        value = result.get("pass_1")
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise IngestError(
                f"{path}: results.{domain}.pass_1 is {value!r}; expected a number (percent)"
            )
        out.append((domain, None if value is None else float(value), result))
    return out


def read_manifest(root: Path) -> dict[str, str]:
    """Folder name -> track, from ``submissions/manifest.json``."""
    path = root / "submissions" / "manifest.json"
    if not path.is_file():
        raise IngestError(
            f"{path}: missing; point --shared at shared/data (tau2-bench/submissions)"
        )
    data = read_source_json(path)
    if not isinstance(data, dict) or not all(isinstance(data.get(k), list) for k in TRACKS):
        raise IngestError(
            f"{path}: expected lists {sorted(TRACKS)}; restore the file from its source"
        )
    return {folder: track for key, track in TRACKS.items() for folder in data[key]}


def _submitted(data: dict) -> str:
    return str(data.get("submission_date") or "")


def _date(value: object) -> str | None:
    text = clean_text(value)
    return text if text and _ISO.match(text) else None


def _hf_id(data: dict) -> str | None:
    for ref in data.get("references") or []:
        url = str((ref or {}).get("url") or "")
        if "huggingface.co/" in url:
            parts = url.split("huggingface.co/", 1)[1].strip("/").split("/")
            if len(parts) >= 2 and parts[0] not in {"spaces", "datasets", "papers"}:
                return "/".join(parts[:2])
    return None


def model_obs(data: dict) -> ModelObs:
    """What one submission states about its model."""
    release = (data.get("model_release") or {}).get("release_date")
    name = clean_text(data["model_name"])
    return ModelObs(
        name=name,
        source=SOURCE,
        organisation=clean_text(data.get("model_organization")),
        release_date=_date(release),
        hf_id=_hf_id(data),
        display_name=name,
        variant=variant_of(data),
    )


def load(root: Path, drops: Drops) -> tuple[list[ModelObs], list[ScoreObs]]:
    """Headline pass^1 scores of every listed submission; every skip is counted."""
    files = sorted((root / "submissions").glob("*/submission.json"))
    if not files:
        raise IngestError(
            f"{root}/submissions: no */submission.json files; point --shared at shared/data"
        )
    manifest = read_manifest(root)
    kept: dict[tuple[str, str, str | None], tuple[str, dict]] = {}
    for path in files:
        folder = path.parent.name
        if folder.startswith("A_EXAMPLE_"):
            drops.add(SOURCE, TEMPLATE)
            continue
        data = read_submission(path)
        scores = domain_scores(path, data)
        evaluated = [s for s in scores if s[1] is not None]
        if len(evaluated) < len(scores):
            drops.add(SOURCE, NULL_DOMAIN, len(scores) - len(evaluated))
        track = manifest.get(folder)
        reason = NOT_LISTED if track is None else protocol_drop(track, data)
        if reason is not None:
            drops.add(SOURCE, reason, max(len(evaluated), 1))
            continue
        key = (track, clean_text(data["model_name"]), variant_of(data))
        previous = kept.get(key)
        if previous is not None:
            drops.add(SOURCE, DUPLICATE, max(len(evaluated), 1))
            if _submitted(previous[1]) >= _submitted(data):
                continue
        kept[key] = (folder, data)
    models, out = [], []
    for (track, _, _), (folder, data) in sorted(kept.items(), key=lambda kv: kv[1][0]):
        rows = _score_rows(root / "submissions" / folder / "submission.json", track, data, drops)
        if rows:
            models.append(model_obs(data))
            out.extend(rows)
    return models, out


def _score_rows(path: Path, track: str, data: dict, drops: Drops) -> list[ScoreObs]:
    kind, date, variant = source_kind(data), _date(data.get("submission_date")), variant_of(data)
    name = clean_text(data["model_name"])
    rows = []
    for domain, value, result in domain_scores(path, data):
        if value is None:
            continue
        if domain == "banking_knowledge":
            retrieval = str(result.get("retrieval_config") or "").lower()
            if track != "text" or retrieval != STANDARD_RETRIEVAL:
                drops.add(SOURCE, SCAFFOLD_RETRIEVAL if track == "text" else NO_BANKING)
                continue
        bench = f"{BENCHMARK_PREFIX[track]}-{DOMAINS[domain]}"
        rows.append(
            ScoreObs(name, bench, value, kind, SOURCE_NAME, LEADERBOARD_URL, date, SOURCE, variant)
        )
    return rows
