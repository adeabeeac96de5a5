"""Typical rental price per GPU-hour from SkyPilot's catalogs (lambda, runpod, vast ``vms.csv``).

Statistic (documented in docs/data.md): for each provider, the median on-demand price per GPU
(``Price / AcceleratorCount``) over its rows for that GPU; the typical price is the median of
those provider medians, so a provider listing many regions does not outweigh the others. Spot
prices are ignored. GPUs without a row in any catalog keep ``usd_per_hour`` empty.

What backs each price is recorded beside it: ``price_offers`` (the on-demand offers, i.e. rows of
the vms.csv files, over all providers) and ``price_providers`` (how many provider catalogs had
one). The app calls a price from fewer than two offers, or from a single provider, "thin"
(``analytics/llm/finetune_view.py : is_thin``). The catalogs carry no date: ``price_date`` stays
empty and the commit in ``price_source_url`` dates the figures.
"""

from __future__ import annotations

import ast
import statistics
from collections import defaultdict
from pathlib import Path

from analytics.llm.ingest.common import Drops, parse_number, read_source_csv

SOURCE = "skypilot"
VMS_COLUMNS = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "GpuInfo")
REPO = "https://github.com/skypilot-org/skypilot-catalog/blob"
# provider -> commit of its vms.csv (shared/data/SOURCES.md)
COMMITS = {
    "lambda": "0f4070387edc953d7004cff197940e1918a1d6aa",
    "runpod": "01acdfd419ce5afae1289ff14825b893ced0c196",
    "vast": "01b8cdda287814b30ff0acb49746cca19fbd4355",
}
# AcceleratorName -> gpu_id where the name alone decides
SIMPLE = {
    "A10": "a10",
    "A10G": "a10g",
    "A100-80GB": "a100-80gb",
    "A100-80GB-SXM": "a100-80gb",
    "A40": "a40",
    "A6000": "rtx-a6000",
    "RTXA6000": "rtx-a6000",
    "B200": "b200",
    "H200": "h200",
    "H200-SXM": "h200",
    "L4": "l4",
    "L40S": "l40s",
    "MI300X": "mi300x",
    "RTX3070": "rtx-3070",
    "RTX3080": "rtx-3080",
    "RTX3090": "rtx-3090",
    "RTX4090": "rtx-4090",
    "RTX5090": "rtx-5090",
    "RTX6000-Ada": "rtx-6000-ada",
    "RTX6000Ada": "rtx-6000-ada",
}


def catalog_url(provider: str) -> str:
    """The vms.csv of one provider at the stored commit."""
    return f"{REPO}/{COMMITS[provider]}/catalogs/v8/{provider}/vms.csv"


def _per_gpu_gib(gpu_info: str, count: float) -> float | None:
    try:
        info = ast.literal_eval(gpu_info)
        total_mib = float(info["TotalGpuMemoryInMiB"])
    except (ValueError, SyntaxError, KeyError, TypeError):
        return None
    per = total_mib / max(count, 1.0)
    return per / 1024 if per > 1000 else per  # RunPod writes GiB in the MiB field


def gpu_id_for(accel: str, instance: str, gpu_info: str, count: float) -> str | None:
    """Catalog gpu_id for one offer; H100/A100/V100 need the instance name or memory size."""
    if accel in SIMPLE:
        return SIMPLE[accel]
    text = f"{instance} {gpu_info}".lower()
    mem = _per_gpu_gib(gpu_info, count)
    if accel == "H100":
        if "nvl" in text:
            return "h100-nvl"
        return "h100-pcie" if "pcie" in text else "h100-sxm"
    if accel == "A100":
        return "a100-80gb" if mem and mem > 60 else "a100-40gb"
    if accel in {"V100", "V100-32GB"}:
        return "v100-32gb" if accel == "V100-32GB" or (mem and mem > 20) else "v100-16gb"
    return None


def provider_offers(path: Path, provider: str, drops: Drops) -> dict[str, list[float]]:
    """gpu_id -> on-demand $/GPU-hour of every offer in one provider's vms.csv."""
    frame = read_source_csv(path, VMS_COLUMNS, "a SkyPilot v8 catalog")
    offers: dict[str, list[float]] = defaultdict(list)
    for _, row in frame[frame["AcceleratorName"] != ""].iterrows():
        count, price = parse_number(row["AcceleratorCount"]), parse_number(row["Price"])
        if not count or not price or price <= 0:
            drops.add(SOURCE, f"{provider}: offer without count or on-demand price")
            continue
        gpu = gpu_id_for(row["AcceleratorName"], row["InstanceType"], row["GpuInfo"], count)
        if gpu is None:
            drops.add(
                SOURCE, f"{provider}: accelerator {row['AcceleratorName']} not in gpus catalog"
            )
            continue
        offers[gpu].append(price / count)
    return offers


PRICE_COLUMNS = (
    "usd_per_hour", "price_date", "price_source_url", "price_offers", "price_providers"
)
"""The gpus.csv columns a price fills (schema "gpus" block)."""


def typical_prices(root: Path, drops: Drops) -> dict[str, dict]:
    """gpu_id -> {usd_per_hour, price_source_url, price_offers, price_providers}: the median over
    providers of provider medians, the catalogs it came from, and how many offers and providers
    back it."""
    per_provider: dict[str, dict[str, float]] = defaultdict(dict)
    counts: dict[str, int] = defaultdict(int)
    for provider in COMMITS:
        offers = provider_offers(root / "catalogs/v8" / provider / "vms.csv", provider, drops)
        for gpu, prices in offers.items():
            per_provider[gpu][provider] = statistics.median(prices)
            counts[gpu] += len(prices)
    out = {}
    for gpu, medians in sorted(per_provider.items()):
        out[gpu] = {
            "usd_per_hour": round(statistics.median(medians.values()), 4),
            "price_source_url": ";".join(catalog_url(p) for p in sorted(medians)),
            "price_offers": counts[gpu],
            "price_providers": len(medians),
        }
    return out


def price_columns(price: dict | None) -> dict:
    """The gpus.csv price cells of one GPU from its ``typical_prices`` entry (all empty without
    one; ``price_date`` is always empty: the catalogs carry no date)."""
    price = price or {}
    return {col: price.get(col) for col in PRICE_COLUMNS}
