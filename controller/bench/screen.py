"""`yatzycam bench` section "screen": render + framebuffer write time on this machine.

A Special 8 game (8 dice, 31 rows, the heaviest pad) with 2 players, mid-game, with a
reroll notice and advice, is rendered at 800x480 and 480x320 and written to an
emulated framebuffer (a file plus a sysfs folder, as on a Pi) in RGB565. Ten game
states are cycled; fonts and text widths are memoised, as in the app. Times are per
frame, single-threaded: ``wall`` is elapsed time, ``cpu`` the CPU time the process spent
on the CPU (what one core does; on a machine shared with other work the wall figure
includes waiting for the core). The target (<= 30 ms at 800x480) is checked on both.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np

from controller.screen import scoreboard as sb
from hardware.display import FramebufferSink


def _fake_fb(root: Path, size: tuple[int, int], bpp: int) -> tuple[Path, Path]:
    w, h = size
    d = root / "sys" / "fb0"
    d.mkdir(parents=True)
    stride = w * bpp // 8
    (d / "bits_per_pixel").write_text(f"{bpp}\n")
    (d / "stride").write_text(f"{stride}\n")
    (d / "virtual_size").write_text(f"{w},{h}\n")
    dev = root / "fb0"
    dev.write_bytes(bytes(stride * h))
    return dev, root / "sys"


def _stats(ms: list[float]) -> dict:
    a = np.array(ms)
    return {"median_ms": round(float(np.median(a)), 2), "p95_ms": round(float(np.percentile(a, 95)), 2),
            "max_ms": round(float(a.max()), 2)}


def bench(quick: bool = False) -> dict:
    n = 30 if quick else 200
    views = [sb.sample_view("special8", 2, progress=p, seed=i,
                            notice="Tärning utanför brickan — kasta igen" if i % 3 == 0 else None,
                            advice="Behåll 6 6 6, kasta resten" if i % 2 == 0 else None)
             for i, p in enumerate(np.linspace(0.05, 0.95, 10))]
    out: dict = {"frames_per_size": n, "game": "special8, 2 players, 10 game states cycled", "format": "RGB565 to a file"}
    for size in ((800, 480), (480, 320)):
        with tempfile.TemporaryDirectory() as tmp:
            dev, sysfs = _fake_fb(Path(tmp) / f"{size[0]}x{size[1]}", size, 16)
            sink = FramebufferSink(dev, sysfs)
            t = time.perf_counter()
            sb.render(views[0], size)  # the first frame loads the fonts and fills the text caches
            first = (time.perf_counter() - t) * 1000
            total, render, write, cpu = [], [], [], []
            for i in range(n):
                v = views[i % len(views)]
                c0 = time.process_time()
                t0 = time.perf_counter()
                frame = sb.render(v, size)
                t1 = time.perf_counter()
                sink.show(frame)
                t2 = time.perf_counter()
                cpu.append((time.process_time() - c0) * 1000)
                render.append((t1 - t0) * 1000)
                write.append((t2 - t1) * 1000)
                total.append((t2 - t0) * 1000)
            sink.close()
        key = f"{size[0]}x{size[1]}"
        out[key] = {"first_render_ms": round(first, 1), "render_write_wall": _stats(total), "render_write_cpu": _stats(cpu),
                    "render_wall": _stats(render), "write_wall": _stats(write)}
    out["target_800x480_ms"] = 30
    out["meets_target_wall_median"] = out["800x480"]["render_write_wall"]["median_ms"] <= 30
    out["meets_target_cpu_p95"] = out["800x480"]["render_write_cpu"]["p95_ms"] <= 30
    return out


if __name__ == "__main__":
    import json

    print(json.dumps(bench(True), indent=1))
