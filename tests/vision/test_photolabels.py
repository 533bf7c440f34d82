"""The corrections to the shared photos' labels (vision/label_fixes.json) and where they apply."""

import json

from vision import bench, photolabels
from vision.photolabels import fixed_boxes

NAME = "00077_jpg.rf.1ba5c681db1351f32b70f66ae14fdbde.jpg"  # one of the corrected photos
LABELS = [[312.5, 152.8, 432.5, 275.2, 4], [437.5, 130.2, 597.5, 297.8, 3], [172.2, 512.2, 299.8, 639.8, 3]]


def test_every_correction_is_well_formed():
    fixes = json.loads(photolabels.FIXES.read_text())
    n = 0
    for source, photos in fixes.items():
        if source == "about":
            continue
        assert source in bench.SOURCES
        for name, items in photos.items():
            for f in items:
                x1, y1, x2, y2 = f["box"]
                assert 0 <= x1 < x2 and 0 <= y1 < y2, name
                assert f["face"] in range(1, 7) and f["was"] in (None, 1, 2, 3, 4, 5, 6) and f["was"] != f["face"], name
                n += 1
    assert n >= 5


def test_a_wrong_face_is_set_right_and_only_on_its_own_box():
    out = fixed_boxes("rune55", NAME, LABELS)
    assert [b[4] for b in out] == [4, 3, 5]  # the die at the bottom shows five pips, not three
    assert out[:2] == LABELS[:2] and out[2][:4] == LABELS[2][:4]
    assert LABELS[2][4] == 3  # the caller's list is not changed
    moved = [list(b) for b in LABELS]
    moved[2][0] += 5.0  # not the label's box: left as it is
    assert fixed_boxes("rune55", NAME, moved) == moved
    other = [list(b) for b in LABELS]
    other[2][4] = 6  # the label's face is not the one the correction was made for
    assert fixed_boxes("rune55", NAME, other) == other


def test_a_die_with_no_box_gets_one_and_other_photos_are_untouched():
    name = "00129_jpg.rf.0e0b34a2c0b7edaf5aa5b0647f7acc06.jpg"
    boxes = [[252.8, 45.0, 475.2, 280.0, 6]]
    out = fixed_boxes("rune55", name, boxes)
    assert out[0] == boxes[0] and len(out) == 2 and out[1][4] == 3
    assert fixed_boxes("webcam", name, boxes) == boxes  # another source
    assert fixed_boxes("rune55", "00077_jpg.rf.0000.jpg", LABELS) == LABELS  # another photo


def test_the_bench_and_the_training_read_the_corrected_labels(tmp_path):
    import cv2
    import numpy as np

    from vision.train.data import photo_samples

    (tmp_path / "images").mkdir()
    cv2.imwrite(str(tmp_path / "images" / NAME), np.full((640, 640), 128, np.uint8))
    (tmp_path / "labels.jsonl").write_text(json.dumps({"image": f"images/{NAME}", "values": [3, 3, 4], "boxes": LABELS}) + "\n")
    rec = bench.photo_records(tmp_path, "rune55")
    assert [b[4] for b in rec[0]["boxes"]] == [4, 3, 5]
    (sample,) = photo_samples(tmp_path, "rune55")
    assert sorted(int(c) + 1 for c in sample.dice[:, 3]) == [3, 4, 5]
