"""What both sides of the Pi check compute on a frame (runs under the Pi's Python 3.11 and numpy 1.24 too)."""

from __future__ import annotations


def detections(det, img, cal) -> list[dict]:
    """The detector's dice on a frame: at the calibrated die size when there is a calibration, else
    over the pyramid. Centres, size, heat and class probabilities, sorted by position."""
    die_px = None if cal is None else cal.die_px
    found = det.detect(img, die_px=die_px)
    rows = [{"x": d.x, "y": d.y, "size": d.size, "score": d.score, "face": d.face, "conf": d.conf,
             "probs": list(d.probs)} for d in found]
    return sorted(rows, key=lambda r: (round(r["y"]), r["x"]))


def reading(img, cal, n) -> dict:
    """The reader's verdict, reasons and faces on a frame."""
    from vision.reader import read

    r = read(img, cal, n)
    return {"verdict": r.verdict, "reasons": list(r.reasons), "values": list(r.values),
            "statuses": sorted(d.status for d in r.dice)}
