"""Run the bench sections by name and collect their figures.

A section whose module is not built yet is reported as missing, not silently skipped.
"""

from __future__ import annotations

import importlib
import platform
import time
from typing import Any, Callable, Iterable

SECTIONS: dict[str, str] = {
    "rules": "controller.bench.rules:bench",
    "game": "controller.bench.game:bench",
    "vision": "vision.bench:bench",
    "screen": "controller.bench.screen:bench",
    "app": "controller.bench.app:bench",
    "advisor": "controller.bench.advisor:bench",
}


def machine() -> dict[str, str]:
    """What the figures were measured on."""
    return {"python": platform.python_version(), "cpu": platform.processor() or platform.machine()}


def run_section(name: str, quick: bool) -> dict[str, Any]:
    """One section's figures, with ``section_s`` (its wall time) added."""
    mod_name, fn = SECTIONS[name].split(":")
    t0 = time.perf_counter()
    try:
        mod = importlib.import_module(mod_name)
    except ModuleNotFoundError as e:
        if e.name != mod_name:
            raise
        return {"missing": f"{mod_name} is not built yet"}
    figures = getattr(mod, fn)(quick)
    figures["section_s"] = round(time.perf_counter() - t0, 2)
    return figures


def run(names: Iterable[str], quick: bool, done: Callable[[str, dict], None] | None = None) -> dict[str, Any]:
    """``{"machine": ..., name: figures, ...}``; ``done(name, figures)`` after each section."""
    out: dict[str, Any] = {"machine": machine()}
    for name in names:
        out[name] = run_section(name, quick)
        if done is not None:
            done(name, out[name])
    return out
