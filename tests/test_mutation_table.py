"""The table of equivalent mutants (``tools/mutation_equivalents.tsv``) stays true to the code it describes."""

import csv
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "tools" / "mutation_equivalents.tsv"
CATEGORIES = {"performance", "dtype", "default", "boundary", "same-value"}


def _rows():
    with open(TABLE, newline="") as table:
        return list(csv.DictReader(table, delimiter="\t"))


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def test_every_row_has_a_category_and_a_reason():
    rows = _rows()
    assert rows
    for row in rows:
        assert row["category"] in CATEGORIES, row["mutant"]
        assert len(row["reason"]) > 20, row["mutant"]
        assert row["before"] != row["after"], row["mutant"]


def test_every_row_names_code_that_is_still_there():
    """A row whose line was edited away no longer explains anything: the row must go or be redone."""
    sources = {}
    for row in _rows():
        module = row["function"].removeprefix("locproj.").split(".x", 1)[0].replace(".", "/")
        if module not in sources:
            sources[module] = _flat((ROOT / "src" / "locproj" / f"{module}.py").read_text())
        assert _flat(row["before"]) in sources[module], row["mutant"]


def test_rows_of_the_same_change_agree():
    """The same line can occur twice in a function (two mutants, one change): the tool cannot tell them apart,
    so their rows must say the same."""
    categories = {}
    for row in _rows():
        key = (row["function"], row["before"], row["after"])
        assert categories.setdefault(key, row["category"]) == row["category"], row["mutant"]
