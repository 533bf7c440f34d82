"""vision.bench's timing pass: each 8-dice scene calibrated and read alone, its CPU time per frame size."""

from __future__ import annotations

from vision import bench


def test_timing_pass_reads_each_scene_alone_and_files_it_by_size(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(bench, "CACHE", tmp_path / "v1")
    todo = [bench.Case(0, (640, 480), 8, "clean", 4_200_000), bench.Case(1, (1280, 960), 8, "cocked", 4_200_001)]
    out = bench._timed(todo)
    assert sorted(out) == ["1280x960", "640x480"]
    assert len(out["640x480"]) == 1 and len(out["1280x960"]) == 1
    assert all(0.0 < ms < 5000.0 for ms in out["640x480"] + out["1280x960"])
    assert len(list((tmp_path / "v1").glob("*.png"))) == 6  # rendered once, into the cache given
