"""Run the bench sections by name and collect their figures.

A section whose module is not built yet is reported as missing, not silently skipped.
"""

from __future__ import annotations

import importlib
import inspect
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
    "calibration": "calibration.bench:bench",
}


def machine() -> dict[str, str]:
    """What the figures were measured on."""
    return {"python": platform.python_version(), "cpu": platform.processor() or platform.machine()}


def run_section(name: str, quick: bool, **options: Any) -> dict[str, Any]:
    """One section's figures, with ``section_s`` (its wall time) added. ``options`` (e.g. the vision
    section's ``data`` and ``models`` folders) go to the sections whose function takes them."""
    mod_name, fn = SECTIONS[name].split(":")
    t0 = time.perf_counter()
    try:
        mod = importlib.import_module(mod_name)
    except ModuleNotFoundError as e:
        if e.name != mod_name:
            raise
        return {"missing": f"{mod_name} is not built yet"}
    func = getattr(mod, fn)
    params = inspect.signature(func).parameters
    figures = func(quick, **{k: v for k, v in options.items() if v is not None and k in params})
    figures["section_s"] = round(time.perf_counter() - t0, 2)
    return figures


def run(names: Iterable[str], quick: bool, done: Callable[[str, dict], None] | None = None,
        **options: Any) -> dict[str, Any]:
    """``{"machine": ..., name: figures, ...}``; ``done(name, figures)`` after each section."""
    out: dict[str, Any] = {"machine": machine()}
    for name in names:
        out[name] = run_section(name, quick, **options)
        if done is not None:
            done(name, out[name])
    return out
