"""Every shell example in README.md runs as shown.

The rule, by the fenced block's info string (a reader sees only shell code):

- ```` ```sh ````: run here, line by line in order, in a fresh folder that looks like a clone (the
  repository's top-level entries linked in), with this venv's ``yatzycam`` first on PATH,
  ``LANG=C`` and a temporary HOME and XDG folders (nothing touches the user's files). Each
  line must exit 0, or the code its comment names (``# exit 2: ...``), without a traceback;
  a line exiting 0 prints something, a line exiting 2 one line on stderr.
- ```` ```sh make ````: ``make`` targets; not run here (``.ci/run`` runs ``make test`` and
  ``make demo``).
- ```` ```sh pi ````: on the Raspberry Pi (sudo, apt, systemd, the camera and the pins); not run.
- ```` ```text ````: not a command (the code layout).

Any other fence, or an indented code block, fails the test, so the rule cannot be dodged.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
KINDS = {"sh": "run", "sh make": "make", "sh pi": "pi", "text": "text"}
# how many command lines of each kind the README shows: a change to the README changes these on purpose
EXPECTED = {"run": 13, "make": 2, "pi": 8}
FENCE = re.compile(r"^```(.*)$")
EXIT = re.compile(r"#\s*exit (\d+)")


def blocks(text: str) -> list[tuple[str, int, list[str]]]:
    """(info string, line number of the opening fence, lines) of every fenced block."""
    out: list[tuple[str, int, list[str]]] = []
    info, start, body = None, 0, []
    for n, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if m and info is None:
            info, start, body = m.group(1).strip(), n, []
        elif line.startswith("```") and info is not None:
            assert line.strip() == "```", f"README.md:{n}: a closing fence with text"
            out.append((info, start, body))
            info = None
        elif info is not None:
            body.append(line)
        else:
            assert not re.match(r"^ {4}\S", line), f"README.md:{n}: an indented code block (use a fenced one)"
    assert info is None, f"README.md:{start}: a fence never closed"
    return out


def commands(text: str) -> dict[str, list[tuple[int, str]]]:
    """The command lines (line number, line) of every kind; comment and blank lines left out."""
    out: dict[str, list[tuple[int, str]]] = {k: [] for k in KINDS.values()}
    for info, start, body in blocks(text):
        assert info in KINDS, f"README.md:{start}: fence '```{info}': use one of {sorted(KINDS)}"
        for i, line in enumerate(body, start + 1):
            if line.strip() and not line.lstrip().startswith("#"):
                out[KINDS[info]].append((i, line.strip()))
    return out


def test_every_example_is_marked_and_counted():
    found = commands(README.read_text(encoding="utf-8"))
    counts = {k: len(v) for k, v in found.items() if k != "text"}
    assert counts == EXPECTED, counts
    for _, line in found["run"]:  # what is run needs no Pi, no root and no make
        assert not re.match(r"(sudo|make|apt|apt-get|systemctl|journalctl|git)\b", line), line
    for _, line in found["make"]:
        assert line.startswith("make "), line
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 250


def test_every_link_and_picture_is_in_the_repository():
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)]+)\)", text)
    files = [x for x in links if not x.startswith(("#", "http"))]
    assert len(files) >= 10 and any(x.endswith(".png") for x in files)
    for x in files:
        path = (ROOT / x.split("#")[0]).resolve()
        assert path.is_file() and path.is_relative_to(ROOT), x
    for anchor in (x for x in links if x.startswith("#")):  # a heading of the README
        heads = {re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-") for h in re.findall(r"^#+ (.+)$", text, re.M)}
        assert anchor[1:] in heads, anchor


def test_a_wrong_fence_is_refused():
    with pytest.raises(AssertionError, match="use one of"):
        commands("```bash\nyatzycam --version\n```\n")
    with pytest.raises(AssertionError, match="indented"):
        commands("text\n\n    yatzycam --version\n")


def clone_like(tmp: Path) -> Path:
    """A folder holding links to the repository's top-level entries, as a fresh clone would (writes land here)."""
    work = tmp / "clone"
    work.mkdir()
    for entry in ROOT.iterdir():
        if entry.name in (".git", ".venv") or entry.name.endswith(".egg-info") or entry.name.startswith(".pytest"):
            continue
        (work / entry.name).symlink_to(entry)
    return work


@pytest.mark.slow
def test_every_shell_example_runs_as_shown(tmp_path):
    work = clone_like(tmp_path)
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LC_", "XDG_", "YATZYCAM")) and k not in ("STATE_DIRECTORY", "LANGUAGE")}
    env.update(PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}", LANG="C", HOME=str(home),
               XDG_DATA_HOME=str(home / "data"), XDG_CONFIG_HOME=str(home / "config"),
               XDG_CACHE_HOME=str(home / "cache"), XDG_STATE_HOME=str(home / "state"))
    home.mkdir()
    ran, failures = 0, []
    for n, line in commands(README.read_text(encoding="utf-8"))["run"]:
        m = EXIT.search(line)
        want = int(m.group(1)) if m else 0
        r = subprocess.run(["bash", "-o", "pipefail", "-c", line], cwd=work, env=env, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=1800)
        ran += 1
        why = []
        if r.returncode != want:
            why.append(f"exit {r.returncode}, the README says {want}")
        if "Traceback" in r.stderr:
            why.append("a traceback")
        if want == 0 and not r.stdout.strip():
            why.append("nothing on stdout")
        if want == 2 and len(r.stderr.strip().splitlines()) != 1:
            why.append(f"{len(r.stderr.strip().splitlines())} lines on stderr, not one")
        if why:
            failures.append(f"README.md:{n}: {line}\n  {'; '.join(why)}\n  stderr: {r.stderr.strip()[-500:]}")
    assert ran == EXPECTED["run"]
    assert not failures, "\n".join(failures)
    assert (work / "games.db").is_file() and not (work / "games.db").is_symlink()  # written in the clone, not the repository
    assert not (ROOT / "games.db").exists()
