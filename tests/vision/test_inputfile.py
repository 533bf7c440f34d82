"""vision.inputfile: what can never be a file is named, a FIFO is refused without waiting."""

from __future__ import annotations

import os

import pytest

from vision import inputfile


def test_not_a_file_names_what_is_there(tmp_path):
    (tmp_path / "plain").write_text("x")
    os.mkfifo(tmp_path / "fifo")
    assert inputfile.not_a_file(tmp_path / "plain") is None
    assert inputfile.not_a_file(tmp_path / "missing") is None  # not there yet: can be made
    assert inputfile.not_a_file(tmp_path) == "is a folder, not a file"
    assert inputfile.not_a_file(tmp_path / "fifo") == "is a FIFO (named pipe), not a file"
    assert inputfile.not_a_file("/dev/null") == "is a device, not a file"
    assert inputfile.not_a_file(tmp_path / "plain" / "under") == "Not a directory"
    assert inputfile.not_a_file(tmp_path / ("x" * 300)) == "File name too long"


def test_a_fifo_is_refused_before_a_byte_is_read(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(inputfile.NotARegularFile, match="is a FIFO"):
        inputfile.read_bytes(tmp_path / "fifo", 100)
    (tmp_path / "big").write_bytes(b"x" * 101)
    with pytest.raises(inputfile.NotARegularFile, match="too large"):
        inputfile.read_bytes(tmp_path / "big", 100)
