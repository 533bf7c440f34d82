"""What both sides of the Pi check compute on a frame (runs under the Pi's Python 3.11 and numpy 1.24 too)."""

from __future__ import annotations


def detections(m, img, cal) -> list[dict]:
    """The reader's dice on a frame before it judges them (vision.reader.look with the model m): at the
    calibrated die size on the tray's region when there is a calibration, else over the pyramid, every
    detection from the detector's PEAK up. Centres, size, heat and the face net's class probabilities,
    sorted by position."""
    import cv2

    from vision import reader
    from vision.detector import PEAK

    die_px = None if cal is None else cal.die_px
    roi = None if cal is None else reader.region(cal, die_px)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) if img.ndim == 3 else img
    found = reader.look(gray, m, die_px=die_px, roi=roi, least=PEAK)
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

    th = reader.model().thresholds
    return float(th.die), float(th.face)


def floor(empty) -> dict:
    """The floor net's outline and unsure share on an empty frame, and the floor vision.tray finds."""
    from vision import floornet, tray

    p = floornet.probability(empty)
    r = floornet.floor_region(empty, p=p)
    return {"net": None if r is None else [[float(x), float(y)] for x, y in r],
            "unsure": floornet.unsure_share(p), "found": [list(q) for q in tray.find_floor(empty)]}
