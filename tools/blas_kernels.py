"""Run a pipeline target under two OpenBLAS kernels and compare what they computed.

    python tools/blas_kernels.py [--kernels A B] [--mirror DIR] [--workdir DIR] [-- SNAKEMAKE_ARGS...]
    python tools/blas_kernels.py --compare RESULTS_A RESULTS_B

Each kernel runs in its own copy of the working tree (uncommitted changes included), with
``OPENBLAS_CORETYPE`` set for its Snakemake process only; the Snakemake process prints the kernel
that OpenBLAS really loaded (threadpoolctl) before the workflow starts, and its jobs inherit its
environment. The two ``results/`` folders are then compared: tables byte for byte, the decisions
in the result files (integer, boolean and string arrays, attributes, errors, accuracies, support
vectors, chosen parameters) exactly, other floating arrays within ``--rtol`` of their scale.
Exit status: 0 when nothing differs beyond that tolerance, 1 when something does, 2 when a run
failed or the kernel did not take.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import h5py
import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("fingerprint", ROOT / ".ci" / "fingerprint.py")
fingerprint = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fingerprint)

#: Kernel pairs by the CPU's most advanced vector extension (first match in /proc/cpuinfo).
KERNEL_PAIRS = (("avx512f", ("SkylakeX", "Haswell")), ("avx2", ("Haswell", "Sandybridge")),
                ("avx", ("Sandybridge", "Nehalem")))
#: Not copied into a run's tree: generated, or the environment.
NOT_COPIED = {".git", ".venv", "results", "data", "logs", ".snakemake"}
#: Float arrays that hold decisions (counts, rates, grid values), compared exactly; matched on
#: the array's path inside its file.
DECISION_FLOATS = re.compile(r"error|accuracy|percent|fraction|support|solves|C_values|(^|/)(chosen|grid)(/|$)")
#: metadata.yaml's blocks that are provenance or measured, as in .ci/fingerprint.py.
METADATA_SKIPPED = ("versions", "code", "timing")
DEFAULT_RTOL = 1e-9
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf", re.IGNORECASE)

# Runs in the Snakemake process: the kernel OpenBLAS loaded, then Snakemake itself.
_PROBE = """
import sys, numpy, scipy.linalg, threadpoolctl
found = sorted({(i.get("architecture") or "?") for i in threadpoolctl.threadpool_info()
                if i["internal_api"] == "openblas"})
print("OpenBLAS kernel in the Snakemake process:", ", ".join(found), flush=True)
with open(sys.argv[1], "w") as f:
    f.write(",".join(found))
sys.argv = ["snakemake", *sys.argv[2:]]
from snakemake.cli import main
main()
"""


@dataclass(frozen=True)
class Difference:
    """One thing that differs between the two results folders."""

    path: str
    item: str
    kind: str  # 'table', 'decision', 'float' (beyond the tolerance), 'missing'; 'within' (listed only)
    text: str

    def line(self) -> str:
        """The printed line: kind, file, item and description."""
        where = f"{self.path} {self.item}" if self.item else self.path
        return f"{self.kind:9s} {where}: {self.text}"


@dataclass
class Comparison:
    """The outcome of :func:`compare`: the differences and what was compared."""

    differences: list
    n_files: int = 0
    n_items: int = 0
    within: list = field(default_factory=list)
    fingerprint_total: int = 0
    fingerprint_differing: int = 0

    @property
    def failed(self) -> bool:
        return bool(self.differences)

    def summary(self, rtol: float) -> str:
        counts = {kind: sum(d.kind == kind for d in self.differences)
                  for kind in ("table", "decision", "float", "missing")}
        verdict = "DIFFER" if self.failed else "MATCH"
        return (f"{verdict}: {counts['table']} tables, {counts['decision']} decisions, {counts['float']} float arrays "
                f"beyond rtol {rtol:g}, {counts['missing']} missing items ({self.n_files} files, {self.n_items} "
                f"items compared)\n{len(self.within)} float arrays differ within the tolerance; "
                f"{self.fingerprint_differing} of {self.fingerprint_total} fingerprint entries differ (bytes)")


# --------------------------------------------------------------------------- comparing


def result_files(root: Path) -> dict[str, Path]:
    """The files the fingerprint covers under ``root``, by path relative to it."""
    files = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if (not path.is_file() or path.name.startswith(".") or path.suffix in fingerprint.SKIPPED_SUFFIXES
                or path.name in fingerprint.MEASURED_FILES or "figures" in relative.parts):
            continue
        files[str(relative)] = path
    return files


def numbers_in(text: str) -> tuple[str, list[float]]:
    """``text`` with its numbers replaced by ``#``, and those numbers."""
    values = [float(m) for m in NUMBER.findall(text)]
    return NUMBER.sub("#", text), values


def describe_lines(lines_a: list[str], lines_b: list[str], unit: str = "lines") -> str:
    """How two texts of lines (or CSV rows) differ: lines, numbers and the largest difference."""
    if len(lines_a) != len(lines_b):
        return f"{len(lines_a)} against {len(lines_b)} {unit}"
    changed, numbers, largest = 0, 0, 0.0
    for a, b in zip(lines_a, lines_b):
        if a == b:
            continue
        changed += 1
        (shape_a, values_a), (shape_b, values_b) = numbers_in(a), numbers_in(b)
        if shape_a != shape_b or len(values_a) != len(values_b):
            continue
        pairs = [(x, y) for x, y in zip(values_a, values_b) if not (x == y or (np.isnan(x) and np.isnan(y)))]
        numbers += len(pairs)
        largest = max([largest, *(abs(x - y) for x, y in pairs)])
    text = f"{changed} of {len(lines_a)} {unit} differ"
    return text + (f", {numbers} numbers, largest difference {largest:.4g}" if numbers else "")


def describe_table(relative: str, a: bytes, b: bytes) -> str:
    """How two versions of a table differ: CSV by rows (cells joined), other text by lines."""
    text_a, text_b = a.decode(errors="replace"), b.decode(errors="replace")
    if relative.endswith(".csv"):
        rows_a = [",".join(r) for r in csv.reader(io.StringIO(text_a))]
        rows_b = [",".join(r) for r in csv.reader(io.StringIO(text_b))]
        return describe_lines(rows_a, rows_b, "rows")
    return describe_lines(text_a.splitlines(), text_b.splitlines())


def metadata(path: Path) -> dict:
    """A metadata.yaml without its provenance and measured blocks."""
    data = yaml.safe_load(path.read_text()) or {}
    for key in METADATA_SKIPPED:
        data.pop(key, None)
    return data


def compare_table(relative: str, path_a: Path, path_b: Path) -> list[Difference]:
    """The difference of two tables (none or one), metadata.yaml by its keys."""
    if path_a.name == "metadata.yaml":
        a, b = metadata(path_a), metadata(path_b)
        keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        return [Difference(relative, "", "table", f"keys {', '.join(map(str, keys))} differ")] if keys else []
    a, b = path_a.read_bytes(), path_b.read_bytes()
    return [] if a == b else [Difference(relative, "", "table", describe_table(relative, a, b))]


def h5_items(handle) -> dict[str, object]:
    """Every array (by path) and attribute (``path@name``) of an HDF5 file, measured ones left out."""
    items = {}

    def attributes(prefix, obj):
        for name, value in obj.attrs.items():
            if not fingerprint.measured(name):
                items[f"{prefix}@{name}"] = value

    attributes("", handle)

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset) and not fingerprint.measured(name):
            items[name] = obj[()]
        attributes(name, obj)

    handle.visititems(visit)
    return items


def as_array(value) -> np.ndarray:
    """An HDF5 value as an array, byte strings decoded."""
    array = np.asarray(value)
    if array.dtype.kind in "SO":
        array = np.asarray([v.decode() if isinstance(v, bytes) else str(v) for v in array.ravel()]).reshape(array.shape)
    return array


def is_decision(name: str, array: np.ndarray) -> bool:
    """Attributes, non-float arrays and the named float arrays are decisions, compared exactly."""
    return "@" in name or array.dtype.kind not in "fc" or bool(DECISION_FLOATS.search(name))


def exact_difference(a: np.ndarray, b: np.ndarray) -> str | None:
    """``None`` when equal (NaN equal to NaN), else a short description."""
    if a.shape != b.shape or a.dtype.kind != b.dtype.kind:
        return f"{a.dtype}{a.shape} against {b.dtype}{b.shape}"
    if a.dtype.kind in "fc":
        same = (a == b) | (np.isnan(a) & np.isnan(b))
    else:
        same = a == b
    if np.all(same):
        return None
    n_diff = int(np.size(same) - np.count_nonzero(same))
    text = f"{n_diff} of {a.size} entries differ"
    if a.dtype.kind in "iufb":
        delta = np.abs(a.astype(float) - b.astype(float))[~np.asarray(same)]
        text += f", largest difference {np.nanmax(delta) if np.any(np.isfinite(delta)) else np.nan:.4g}"
    elif a.size == 1:
        text += f": {str(a.ravel()[0])[:60]!r} against {str(b.ravel()[0])[:60]!r}"
    return text


def float_difference(a: np.ndarray, b: np.ndarray, rtol: float) -> tuple[str | None, bool]:
    """``(description, beyond)``: ``None`` when bitwise equal; ``beyond`` when the largest
    difference exceeds ``rtol`` times the larger absolute value in either array (NaN and inf
    must sit at the same places)."""
    text = exact_difference(a, b)
    if text is None:
        return None, False
    if a.shape != b.shape:
        return text, True
    finite = np.isfinite(a) & np.isfinite(b)
    if np.any((a != b) & ~finite & ~(np.isnan(a) & np.isnan(b))):
        return text + " (non-finite entries move)", True
    scale = max(float(np.max(np.abs(a[finite]), initial=0.0)), float(np.max(np.abs(b[finite]), initial=0.0)))
    largest = float(np.max(np.abs(a[finite] - b[finite]), initial=0.0))
    relative = largest / scale if scale > 0 else np.inf
    n_diff = int(np.count_nonzero(a[finite] != b[finite]))
    return f"{n_diff} of {a.size} entries differ, largest {largest:.3g} ({relative:.2g} of the scale {scale:.3g})", \
        relative > rtol


def compare_h5(relative: str, path_a: Path, path_b: Path, rtol: float) -> tuple[list, int, list]:
    """The differences of two result files, their number of items and the float arrays that differ
    within ``rtol``."""
    with h5py.File(path_a, "r") as ha, h5py.File(path_b, "r") as hb:
        items_a, items_b = h5_items(ha), h5_items(hb)
    found, within = [], []
    for name in sorted(set(items_a) | set(items_b)):
        if name not in items_a or name not in items_b:
            found.append(Difference(relative, name, "missing", f"only in {'A' if name in items_a else 'B'}"))
            continue
        a, b = as_array(items_a[name]), as_array(items_b[name])
        if is_decision(name, a):
            text = exact_difference(a, b)
            if text:
                found.append(Difference(relative, name, "decision", text))
            continue
        text, beyond = float_difference(a, b, rtol)
        if beyond:
            found.append(Difference(relative, name, "float", text))
        elif text:
            within.append(Difference(relative, name, "within", text))
    return found, len(set(items_a) | set(items_b)), within


def fingerprint_counts(root_a: Path, root_b: Path) -> tuple[int, int]:
    """(entries, entries that differ) of the two folders' fingerprints (.ci/fingerprint.py)."""
    def entries(root):
        return {(str(Path(p).relative_to(root)), item): digest for p, item, digest in fingerprint.fingerprint(root)}

    a, b = entries(root_a), entries(root_b)
    keys = set(a) | set(b)
    return len(keys), sum(a.get(key) != b.get(key) for key in keys)


def compare(root_a: Path, root_b: Path, rtol: float = DEFAULT_RTOL) -> Comparison:
    """Every table and result file under two results folders (module docstring)."""
    files_a, files_b = result_files(root_a), result_files(root_b)
    result = Comparison([])
    for relative in sorted(set(files_a) | set(files_b)):
        result.n_files += 1
        if relative not in files_a or relative not in files_b:
            side = "A" if relative in files_a else "B"
            result.differences.append(Difference(relative, "", "missing", f"only in {side}"))
            continue
        if relative.endswith(".h5"):
            found, n_items, within = compare_h5(relative, files_a[relative], files_b[relative], rtol)
            result.n_items += n_items
            result.within.extend(within)
        else:
            found = compare_table(relative, files_a[relative], files_b[relative])
            result.n_items += 1
        result.differences.extend(found)
    result.fingerprint_total, result.fingerprint_differing = fingerprint_counts(root_a, root_b)
    return result


# --------------------------------------------------------------------------- running


def default_kernels(cpuinfo: Path = Path("/proc/cpuinfo")) -> tuple[str, str]:
    """Two OpenBLAS kernels this CPU runs, from its flags (:data:`KERNEL_PAIRS`)."""
    flags = set()
    if cpuinfo.is_file():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("flags"):
                flags |= set(line.split(":", 1)[1].split())
    for flag, pair in KERNEL_PAIRS:
        if flag in flags:
            return pair
    raise SystemExit("no AVX flag in /proc/cpuinfo: name two OpenBLAS kernels with --kernels A B")


def source_files(repo: Path) -> list[Path]:
    """The working tree's files (tracked and untracked, as they are now), without :data:`NOT_COPIED`."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=repo,
                            check=True, capture_output=True).stdout.decode().split("\0")
    return [Path(name) for name in listed if name and Path(name).parts[0] not in NOT_COPIED
            and (repo / name).is_file()]


def copy_tree(repo: Path, files: list[Path], target: Path) -> None:
    """``files`` (relative paths) from ``repo`` to ``target``, with their metadata."""
    for name in files:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(repo / name, target / name)


def run_kernel(tree: Path, kernel: str, snakemake_args: list[str], cores: int) -> str:
    """The workflow in ``tree`` with ``OPENBLAS_CORETYPE=kernel``; returns the kernel OpenBLAS loaded."""
    env = {**os.environ, "OPENBLAS_CORETYPE": kernel, "PYTHONPATH": str(tree / "src")}
    loaded = tree / ".openblas_kernel"
    command = [sys.executable, "-c", _PROBE, str(loaded), "--cores", str(cores), *snakemake_args]
    start = time.perf_counter()
    with open(tree / "run.log", "w") as log:
        status = subprocess.run(command, cwd=tree, env=env, stdout=log, stderr=subprocess.STDOUT).returncode
    found = loaded.read_text() if loaded.is_file() else "?"
    print(f"  {kernel}: OpenBLAS loaded {found}; Snakemake exit status {status} after "
          f"{time.perf_counter() - start:.0f} s (log: {tree / 'run.log'})", flush=True)
    if status != 0:
        raise SystemExit(2)
    if {k.lower() for k in found.split(",")} != {kernel.lower()}:
        print(f"  the kernel did not take: asked for {kernel}, OpenBLAS loaded {found}")
        raise SystemExit(2)
    return found


def run_both(kernels, snakemake_args, cores: int, workdir: Path) -> tuple[Path, Path]:
    """One fresh copy of the working tree per kernel (the second copied from the first, so both
    run the same code), each run there; returns their ``results/`` folders."""
    files = source_files(ROOT)
    trees = [workdir / kernel for kernel in kernels]
    for tree in trees:
        if tree.exists():
            raise SystemExit(f"{tree} exists: name another --workdir")
    copy_tree(ROOT, files, trees[0])
    copy_tree(trees[0], files, trees[1])
    print(f"{len(files)} files of {ROOT} copied to {trees[0]} and {trees[1]}")
    print(f"snakemake --cores {cores} {' '.join(snakemake_args)}", flush=True)
    for kernel, tree in zip(kernels, trees):
        run_kernel(tree, kernel, snakemake_args, cores)
    return trees[0] / "results", trees[1] / "results"


def results_folder(path: Path) -> Path:
    """``path``, or ``path/results`` when it holds one (a run's tree)."""
    return path / "results" if (path / "results").is_dir() else path


def parse_args(argv=None) -> argparse.Namespace:
    """The command line; the Snakemake arguments are what follows ``--``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     epilog="Arguments after -- replace the default target: "
                                            "papers --configfile config/papers_smoke.yaml --config data_mirror=MIRROR")
    parser.add_argument("--kernels", nargs=2, metavar=("A", "B"),
                        help="OpenBLAS kernels (OPENBLAS_CORETYPE); default from the CPU flags: SkylakeX and "
                             "Haswell with AVX-512, Haswell and Sandybridge with AVX2 only")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("RESULTS_A", "RESULTS_B"),
                        help="compare two existing results folders (or run trees holding results/) without running")
    parser.add_argument("--mirror", type=Path,
                        default=Path(os.environ.get("LOCPROJ_DATA_MIRROR", ROOT.parent / "shared" / "datasets")),
                        help="the data mirror (default: LOCPROJ_DATA_MIRROR, else ../shared/datasets beside the "
                             "repository)")
    parser.add_argument("--workdir", type=Path, help="where the two copies go (default: a new temporary folder)")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--rtol", type=float, default=DEFAULT_RTOL,
                        help="float arrays (not decisions) may differ by this much relative to their largest "
                             "absolute value (default 1e-9)")
    parser.add_argument("--verbose", action="store_true", help="also list the float arrays that differ within --rtol")
    parser.add_argument("snakemake_args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if args.snakemake_args[:1] == ["--"]:
        args.snakemake_args = args.snakemake_args[1:]
    return args


def main(argv=None) -> int:
    """Run (or take) the two results folders, print their differences; the exit status."""
    args = parse_args(argv)
    if args.compare:
        root_a, root_b = (results_folder(path) for path in args.compare)
        names = ("A", "B")
    else:
        kernels = tuple(args.kernels or default_kernels())
        snakemake_args = args.snakemake_args or [
            "papers", "--configfile", "config/papers_smoke.yaml", "--config", f"data_mirror={args.mirror.resolve()}"]
        workdir = args.workdir or Path(tempfile.mkdtemp(prefix="blas_kernels-"))
        root_a, root_b = run_both(kernels, snakemake_args, args.cores, workdir.resolve())
        names = kernels
    print(f"A = {root_a} ({names[0]})\nB = {root_b} ({names[1]})")
    result = compare(root_a, root_b, args.rtol)
    for difference in result.differences + (result.within if args.verbose else []):
        print(difference.line())
    print(result.summary(args.rtol))
    return 1 if result.failed else 0


if __name__ == "__main__":
    sys.exit(main())
