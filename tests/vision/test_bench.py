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


def test_calibrated_falls_back_as_the_appliance_does(tmp_path, monkeypatch) -> None:
    import numpy as np

    monkeypatch.setattr(bench, "CACHE", tmp_path / "v1")
    _, empty, ref, _ = bench.render_case(bench.Case(0, (640, 480), 5, "clean", 4_200_002))
    cal, no_ref, no_tray = bench._calibrated(empty, ref, 5)
    assert cal is not None and cal.pip_a is not None and (no_ref, no_tray) == (0, 0)
    # a reference throw that shows no dice: calibrated from the empty tray alone
    cal, no_ref, no_tray = bench._calibrated(empty, empty.copy(), 5)
    assert cal is not None and cal.pip_a is None and (no_ref, no_tray) == (1, 0)
    # no tray in view: no calibration, the frame is read as a plain photo
    grey = np.full_like(empty, 128)
    assert bench._calibrated(grey, ref, 5) == (None, 1, 1)


def test_own_set_has_the_bench_layout_on_other_seeds_and_lists_what_it_got_wrong(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(bench, "CACHE", tmp_path / "v1")
    monkeypatch.setattr(bench, "jobs", lambda: 1)
    mine, theirs = bench.cases(40, 4_300_000), bench.cases(40)
    assert [(c.size, c.n_dice, c.condition) for c in mine] == [(c.size, c.n_dice, c.condition) for c in theirs]
    assert [c.seed for c in mine] == list(range(4_300_000, 4_300_040)) and theirs[0].seed == 1000
    # the verdict is the reader's: a scene read wrong is listed (a clean one refused here)
    real = bench._one_scene
    monkeypatch.setattr(bench, "_one_scene", lambda c: {**real(c), "verdict": "reroll", "reasons": ("cocked",)}
                        if c.index == 0 else real(c))
    assert bench.main(["--own", "4300000", "--cases", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("0 seed 4300000 clean 1280x960 5 dice: reroll cocked")
    assert "clean: 1/2" in out and "cocked: 1/1" in out and any(line.startswith("silent wrong: ") for line in out)
    # the bench's own seeds are refused: a development set must not be tuned on them
    assert bench.main(["--own", "1000"]) == 2
    assert "start at 1000000" in capsys.readouterr().err
    # and a missing or malformed number is one line, not a traceback
    assert bench.main(["--own"]) == 2 and bench.main(["--own", "22000000", "--cases", "x"]) == 2
    assert capsys.readouterr().err.count("usage:") == 2


def test_own_set_leaves_out_a_seed_synthetic_cannot_lay_out(tmp_path, monkeypatch, capsys) -> None:
    """Own seed 28,000,124 (8 dice at 640x480) cannot be laid out ("could not place 8 dice well apart"):
    `--own` says so and counts the rest; the bench itself would stop rather than count fewer scenes."""
    import pytest

    monkeypatch.setattr(bench, "CACHE", tmp_path / "v1")
    monkeypatch.setattr(bench, "jobs", lambda: 1)
    bad = bench.cases(125, 28_000_000)[124]
    assert bad.seed == 28_000_124 and bad.n_dice == 8 and bad.condition == "cocked"
    res = bench._one_scene(bad)
    assert "could not place" in res["unrendered"] and res["case"] == bad
    real = bench._one_scene
    monkeypatch.setattr(bench, "cases", lambda n, seed0=1000: [bench.Case(0, (640, 480), 5, "clean", 4_300_001), bad])
    assert bench.own(4_300_000, 2) == 0
    out = capsys.readouterr().out.splitlines()
    assert "124 seed 28000124 cocked: not rendered (could not place 8 dice well apart), left out" in out
    assert ("clean: 1/1" in out or "clean: 0/1" in out) and "silent wrong: 0/1 []" in out
    monkeypatch.setattr(bench, "_one_scene", lambda c: real(bad))
    with pytest.raises(RuntimeError, match="could not be rendered"):
        bench._scenes(1)
