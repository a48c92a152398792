"""The documentation: every relative link resolves, the README stays a short front door, and no text
points at a tracker the reader does not have.

Links are read from README.md, CHANGELOG.md and every Markdown file under docs/: inline links
``[text](target)`` and images ``![alt](target)``, outside fenced code blocks and inline code. A
target that names a heading (``file.md#anchor`` or ``#anchor``) must name one of the target file's
headings, by GitHub's anchor rule.
"""

import functools
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
README_MAX_LINES = 200
README_MAX_WIDTH = 120
# the line .ci/run reads from the README and runs as the test suite
TEST_COMMAND = re.compile(r"^    \. \.venv/bin/activate && python -m pytest.*$", re.MULTILINE)

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
INLINE_CODE = re.compile(r"(`+)(?:.+?)\1")
LINK = re.compile(
    r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]"                      # [text] or ![alt], one level of nested brackets
    r"\(\s*(<[^>]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)"     # (target: <...>, or without spaces, balanced parens)
    r"(?:\s+\"[^\"]*\")?\s*\)"                              # an optional "title"
)
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"", re.IGNORECASE)
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def markdown_files() -> list[Path]:
    files = [README, ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return [path for path in files if path.is_file()]


def outside_fences(text: str):
    """(line number, line) of every line outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.splitlines(), start=1):
        marker = FENCE.match(line)
        if fence is None:
            if marker:
                fence = marker.group(1)
            else:
                yield number, line
        elif marker and marker.group(1)[0] == fence[0] and len(marker.group(1)) >= len(fence) \
                and not line.strip()[len(marker.group(1)):].strip():
            fence = None


def prose_lines(text: str):
    """(line number, line) of every line outside fenced code blocks, inline code blanked out."""
    for number, line in outside_fences(text):
        yield number, INLINE_CODE.sub("code", line)


def github_anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lowercase, only letters, digits, spaces, hyphens and underscores
    kept, spaces become hyphens (Markdown link syntax in the heading counts by its text)."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.replace("`", "").lower()
    kept = "".join(char for char in text if char.isalnum() or char in " -_")
    return kept.replace(" ", "-")


@functools.cache
def anchors(path: Path) -> set[str]:
    """Every anchor a Markdown file offers: its headings (repeats numbered as GitHub does) and
    explicit HTML anchors."""
    text = path.read_text(encoding="utf-8")
    found, seen = set(), {}
    for _, line in outside_fences(text):
        match = HEADING.match(line)
        if match:
            anchor = github_anchor(match.group(2))
            count = seen.get(anchor, 0)
            seen[anchor] = count + 1
            found.add(anchor if count == 0 else f"{anchor}-{count}")
    found.update(HTML_ANCHOR.findall(text))
    return found


def relative_links(path: Path):
    """(line number, target) of every link of a Markdown file that is not a web or mail address."""
    for number, line in prose_lines(path.read_text(encoding="utf-8")):
        for match in LINK.finditer(line):
            target = match.group(1).strip("<>")
            if target and not SCHEME.match(target):
                yield number, target


def broken_links(path: Path) -> list[str]:
    problems = []
    for number, target in relative_links(path):
        file_part, _, anchor = target.partition("#")
        where = f"{path.relative_to(ROOT)}:{number}: {target}"
        linked = (path.parent / unquote(file_part)).resolve() if file_part else path
        if not linked.exists():
            problems.append(f"{where}: no such file")
            continue
        if anchor and linked.suffix == ".md" and linked.is_file():
            if unquote(anchor).lower() not in anchors(linked):
                problems.append(f"{where}: no heading with anchor #{anchor} in {linked.relative_to(ROOT)}")
    return problems


def test_the_anchor_rule_is_githubs():
    assert github_anchor("Paper 002, Figs. 8-10 (the holdout protocol)") == "paper-002-figs-8-10-the-holdout-protocol"
    assert github_anchor("LPP's PCA step") == "lpps-pca-step"
    assert github_anchor("Running `papers` through SLURM") == "running-papers-through-slurm"
    assert github_anchor("LDA when n − c ≥ d") == "lda-when-n--c--d"


def test_the_link_reader_skips_code_and_web_addresses(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "# Title\n\nSee [a](missing.md) and ![b](img/b.png \"a title\"), [web](https://example.org),\n"
        "`[not](a-link.md)` and [the title](#title).\n\n```\n[inside](fenced.md)\n```\n",
        encoding="utf-8",
    )
    assert [target for _, target in relative_links(page)] == ["missing.md", "img/b.png", "#title"]
    assert anchors(page) == {"title"}


@pytest.mark.parametrize("path", markdown_files(), ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_points_at_an_existing_file_and_heading(path):
    problems = broken_links(path)
    assert not problems, "broken links:\n" + "\n".join(problems)


def test_the_readme_is_short_and_narrow():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines, at most {README_MAX_LINES} allowed"
    wide = [f"line {number}: {len(line)} characters" for number, line in enumerate(lines, start=1)
            if len(line) > README_MAX_WIDTH]
    assert not wide, f"README.md lines over {README_MAX_WIDTH} characters:\n" + "\n".join(wide)


def test_the_readme_holds_the_test_command_that_ci_runs():
    assert TEST_COMMAND.search(README.read_text(encoding="utf-8")), (
        "README.md needs the indented line '    . .venv/bin/activate && python -m pytest ...' that .ci/run reads"
    )


def test_no_text_refers_to_tracker_numbers():
    """A reader has no tracker: a numbered tracker reference says nothing to them."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    inside = subprocess.run(["git", "rev-parse", "--is-inside-work-tree"], cwd=ROOT, capture_output=True, text=True)
    if inside.returncode != 0 or inside.stdout.strip() != "true":
        pytest.skip("not a git checkout")
    pattern = "[Ii]ssue" + " [0-9]+|" + "[Ii]tem" + " [0-9]+"
    found = subprocess.run(["git", "grep", "-nE", pattern], cwd=ROOT, capture_output=True, text=True)
    assert found.returncode in (0, 1), found.stderr
    assert found.returncode == 1, "numbered tracker references (say what is meant instead):\n" + found.stdout


def test_the_version_lives_in_one_place_and_the_research_software_files_are_there():
    import tomllib
    from importlib.metadata import version

    import yaml

    import locproj

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "version" not in project and "version" in project["dynamic"]       # read from locproj.__version__
    assert version("locproj") == locproj.__version__
    assert project["license"] == "BSD-3-Clause" and (ROOT / "LICENSE").read_text().startswith("BSD 3-Clause")
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert citation["version"] == locproj.__version__                          # a tested copy (tests/test_packaging.py)
    assert len(citation["references"]) == 5                                   # the five papers it implements
    assert f"## [{locproj.__version__}]" in (ROOT / "CHANGELOG.md").read_text()
