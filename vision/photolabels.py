"""The shared photo folder's labels as the project reads them: `labels.jsonl` with the corrections of
`label_fixes.json` applied.

A few labels of the public photo sets are wrong: a box whose face is not the one the die shows, or a
die with no box. Each correction in `label_fixes.json` was looked at by eye on its photo; they are
kept here, beside the code, because the photos themselves are read from a folder the user gives. The
bench, `vision.thresholds` and the training read a photo's boxes through `fixed_boxes`, so all three
see the same labels.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

FIXES = Path(__file__).with_name("label_fixes.json")
SAME = 1.0  # pixels: a correction's box is the label's box when every corner is this close


@lru_cache(maxsize=1)
def _fixes() -> dict:
    return json.loads(FIXES.read_text())


def fixed_boxes(source: str, image: str, boxes: list) -> list:
    """A photo's label boxes ([x1, y1, x2, y2, face], `image` its file name) with its corrections: a
    correction whose box is one of the labels' (within SAME pixels) and whose `was` is that box's face
    sets its face; one with `was` null adds its box. A correction that matches nothing changes nothing
    (another copy of the photo set)."""
    fixes = _fixes().get(source, {}).get(Path(image).name)
    if not fixes:
        return boxes
    out = [list(b) for b in boxes]
    for f in fixes:
        if f["was"] is None:
            out.append([*map(float, f["box"]), int(f["face"])])
            continue
        for b in out:
            if b[4] == f["was"] and all(abs(u - v) <= SAME for u, v in zip(b[:4], f["box"])):
                b[4] = int(f["face"])
                break
    return out
