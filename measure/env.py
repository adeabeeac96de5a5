"""What a run record says about where it ran: tool commit, lock file, machine, hashes."""

from __future__ import annotations

import importlib.metadata
import os
import platform
import site
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import psutil

from analytics.core import paths
from analytics.core.hashing import file_sha256, sha256_hex

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".webp")


def image_files(folder: Path) -> list[Path]:
    """The images of an input set, sorted by name; raises when there are none."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"--inputs {folder}: not a folder; fix: give a folder of images")
    files = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if not files:
        raise ValueError(f"--inputs {folder}: no {'/'.join(IMAGE_SUFFIXES)} files; fix: add images")
    return files


def display_path(path: Path) -> str:
    """A path relative to the repository when inside it, else absolute."""
    path = Path(path).resolve()
    try:
        return str(path.relative_to(paths.REPO_ROOT))
    except ValueError:
        return str(path)


def resolve_path(text: str) -> Path:
    """Inverse of ``display_path``."""
    path = Path(text)
    return path if path.is_absolute() else paths.REPO_ROOT / path


def git(*args: str, strip: bool = True) -> str | None:
    """Output of ``git ARGS`` in the repository, or None when git fails or is absent."""
    try:
        done = subprocess.run(
            ["git", *args], cwd=paths.REPO_ROOT, capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.strip() if strip else done.stdout


def weights_roots() -> dict[str, list[Path]]:
    """Declared roots a weights path is stored relative to, most specific first."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    torch_home = Path(os.environ.get("TORCH_HOME") or cache / "torch")
    hf_home = Path(os.environ.get("HF_HOME") or cache / "huggingface")
    site_dirs = [*site.getsitepackages(), site.getusersitepackages()]
    site_dirs += [sysconfig.get_paths()[k] for k in ("purelib", "platlib")]
    return {
        "site-packages": list(dict.fromkeys(Path(d) for d in site_dirs)),
        "torch-hub": [torch_home / "hub"],
        "hf-cache": [Path(os.environ.get("HF_HUB_CACHE") or hf_home / "hub")],
        "repo": [paths.REPO_ROOT],
    }


def weights_entry(path: Path) -> dict[str, str]:
    """``{file, root, path, sha256}`` of one weights file, its path relative to a declared root
    (``external``: outside every root, only the file name is kept)."""
    path = Path(path).resolve()
    for root, folders in weights_roots().items():
        for folder in folders:
            try:
                rel = path.relative_to(folder.resolve())
            except (ValueError, OSError):
                continue
            return {
                "file": path.name,
                "root": root,
                "path": rel.as_posix(),
                "sha256": file_sha256(path),
            }
    return {"file": path.name, "root": "external", "path": path.name, "sha256": file_sha256(path)}


def resolve_weights(item: dict[str, Any]) -> Path | None:
    """Where a record's weights entry lies on this machine (None when it is not found).

    Version-1 entries hold an absolute path: used as is, else its part after ``site-packages/``
    is looked up under this machine's site-packages."""
    root, text = item.get("root"), str(item["path"])
    if root is None:
        path = Path(text)
        if path.is_file() or "site-packages/" not in text:
            return path if path.is_file() else None
        root, text = "site-packages", text.split("site-packages/", 1)[1]
    if Path(text).is_absolute() or ".." in Path(text).parts:
        return None
    for folder in weights_roots().get(root, []):
        if (folder / text).is_file():
            return folder / text
    return None


def git_state() -> dict[str, Any]:
    """The tool's commit and whether the working tree had uncommitted changes."""
    status = git("status", "--porcelain", "--untracked-files=no")
    return {
        "git_commit": git("rev-parse", "HEAD"),
        "git_dirty": bool(status) if status is not None else None,
    }


def lock_state() -> dict[str, Any]:
    """Hashes of requirements.txt and of the installed distributions (a pip-freeze equivalent)."""
    requirements = paths.REPO_ROOT / "requirements.txt"
    freeze = sorted(
        f"{d.metadata['Name']}=={d.version}"
        for d in importlib.metadata.distributions()
        if d.metadata["Name"]
    )
    return {
        "requirements_file": "requirements.txt",
        "requirements_sha256": file_sha256(requirements) if requirements.is_file() else None,
        "pip_freeze": freeze,
        "pip_freeze_sha256": sha256_hex("\n".join(freeze)),
    }


def cpu_model() -> str:
    """The CPU's model name as the kernel reports it."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def environment(device: str, gpu_facts: dict[str, Any] | None) -> dict[str, Any]:
    """Machine facts for the record; GPU facts come from NVML (``measure.nvml``)."""
    freq = psutil.cpu_freq()
    env: dict[str, Any] = {
        "device": device,
        "device_kind": "gpu" if device.startswith("cuda") else "cpu",
        "cpu_model": cpu_model(),
        "cpu_count_logical": psutil.cpu_count(logical=True),
        "cpu_max_mhz": freq.max if freq else None,
        "memory_total_mib": psutil.virtual_memory().total / 2**20,
        "python_version": sys.version.split()[0],
        "torch_version": _version("torch"),
        "platform": platform.platform(),
        "hostname_sha256": sha256_hex(platform.node())[:12],
        "pid": os.getpid(),
    }
    env.update(gpu_facts or {})
    env["device_name"] = env.get("gpu_name") if env["device_kind"] == "gpu" else env["cpu_model"]
    env.setdefault("power_limited", "unknown" if env["device_kind"] == "gpu" else "n/a")
    return env
