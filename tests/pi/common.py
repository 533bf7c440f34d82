"""What both sides of the Pi check compute on a frame (runs under the Pi's Python 3.11 and numpy 1.24 too)."""

from __future__ import annotations


def detections(det, img, cal) -> list[dict]:
    """The detector's dice on a frame as the reader asks for them: at the calibrated die size on the
    tray's region when there is a calibration, else over the pyramid. Centres, size, heat and class
    probabilities, sorted by position."""
    die_px = None if cal is None else cal.die_px
    roi = None
    if cal is not None:
        from vision import reader

        if hasattr(reader, "region"):
            roi = reader.region(cal, die_px)
    found = det.detect(img, die_px=die_px, roi=roi)
    rows = [{"x": d.x, "y": d.y, "size": d.size, "score": d.score, "face": d.face, "conf": d.conf,
             "probs": list(d.probs)} for d in found]
    return sorted(rows, key=lambda r: (round(r["y"]), r["x"]))


def reading(img, cal, n) -> dict:
    """The reader's verdict, reasons and dice (value, status, centre) on a frame."""
    from vision.reader import read

    r = read(img, cal, n)
    return {"verdict": r.verdict, "reasons": list(r.reasons), "values": list(r.values),
            "dice": sorted([[d.value, d.status, round(d.center[0], 2), round(d.center[1], 2)] for d in r.dice],
                           key=lambda d: (d[3], d[2]))}


def thresholds() -> tuple[float, float] | None:
    """The reader's (die, face) thresholds for the committed model, when it has them."""
    from vision import reader

    if not hasattr(reader, "model"):
        return None
    th = reader.model()[1]
    return float(th.die), float(th.face)
