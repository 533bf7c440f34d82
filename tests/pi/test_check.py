"""tests/pi/check.py's comparison (the Pi check itself runs in `make test-pi`): it catches each difference."""

from __future__ import annotations

from check import compare


def _die(**kw) -> dict:
    return {"x": 100.0, "y": 50.0, "size": 30.0, "score": 0.9, "face": 4, "conf": 0.97, **kw}


def test_compare_passes_equal_dice_in_any_order_and_flags_each_difference() -> None:
    a, b = _die(), _die(x=300.0, face=2)
    assert compare([a, b], [b, _die(x=100.3, y=49.8, score=0.905)]) == []
    assert "centre 0.60 px away" in compare([a], [_die(x=100.6)])[0]
    assert "face 5" in compare([a], [_die(face=5)])[0]
    assert "conf 0.9500" in compare([a], [_die(conf=0.95)])[0]
    assert "score" in compare([a], [_die(score=0.88)])[0]
    assert "1 dice, the main environment found 2" in compare([a, b], [a])[0]


def test_a_reading_may_differ_only_by_a_die_on_a_threshold() -> None:
    from check import on_the_edge

    want = {"dice": [[4, "ok", 100.0, 50.0], [2, "ok", 300.0, 50.0]]}
    got = {"dice": [[None, "unreadable", 100.0, 50.0], [2, "ok", 300.2, 50.0]]}
    on_edge = [_die(conf=0.905), _die(x=300.0, face=2)]
    assert on_the_edge(want, got, on_edge, (0.5, 0.9))  # conf 0.905 by a face cut of 0.9: may tip
    assert not on_the_edge(want, got, [_die(conf=0.95), _die(x=300.0)], (0.5, 0.9))  # far from it: a real difference
    assert not on_the_edge(want, got, on_edge, None)  # a reader without thresholds: compared strictly
