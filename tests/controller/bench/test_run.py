"""controller.bench.run: the sections by name, their figures, a section not built yet."""

from __future__ import annotations

import json

from controller.bench import run as B
from controller.cli.main import main


def test_a_section_gives_its_figures_and_its_time():
    out = B.run(["rules"], quick=True)
    assert set(out) == {"machine", "rules"}
    assert out["machine"]["python"]
    yatzy = out["rules"]["yatzy"]
    assert yatzy["multisets"] == 252 and yatzy["rolls_sampled"] > 0
    assert out["rules"]["section_s"] >= 0


def test_a_section_whose_module_is_missing_is_reported_not_skipped(monkeypatch):
    monkeypatch.setitem(B.SECTIONS, "later", "controller.bench.not_built_yet:bench")
    seen = []
    out = B.run(["later"], quick=True, done=lambda name, figures: seen.append(name))
    assert out["later"] == {"missing": "controller.bench.not_built_yet is not built yet"}
    assert seen == ["later"]


def test_the_bench_command_prints_one_json_object(capsys):
    assert main(["bench", "--only", "rules", "--quick", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"machine", "rules"} and "section_s" in out["rules"]
