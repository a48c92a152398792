"""Memory known before it is spent: how much a fit may use, and a clear error before it asks for more.

A fit that holds dense ``n x n`` state (LFDA's within-class affinity, a kernel matrix, Isomap's
geodesics) is killed by the kernel's out-of-memory killer when ``n`` is too large for the machine, and
a killed process raises nothing. So each such method estimates its peak from ``n`` and ``d`` first and
calls :func:`check_memory`, which raises :class:`NotEnoughMemoryError` in time.

The memory a fit may use (:func:`available_memory_bytes`) is the smallest of

* the machine's available memory (``MemAvailable`` of ``/proc/meminfo``; elsewhere, the free physical
  memory the OS reports, else no limit),
* the room left under the process's cgroup limit (v2 ``memory.max`` less ``memory.current``, v1
  ``memory.limit_in_bytes`` less ``memory.usage_in_bytes``): what SLURM and containers enforce,
* the limits set by :func:`memory_limit`, less what the process holds already: a pipeline job enters
  it with its ``mem_mb`` resource and the config's ``max_memory`` (:func:`locproj.workflow.run_rule`).
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

from ..errors import UserError

GB = 1e9
_NO_LIMIT = 1 << 60   # cgroup v1 writes a page-rounded 2^63 - 1 for "no limit"
_UNITS = {"": 1, "B": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40,
          "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12, "KIB": 2**10, "MIB": 2**20, "GIB": 2**30,
          "TIB": 2**40}
#: The limits set by :func:`memory_limit`, innermost last: ``(bytes, where it came from, count_held)``.
_LIMITS: list[tuple[int, str, bool]] = []

WAYS_OUT = ("a smaller m (training samples per class)",
            "a sampled view of the dataset (the config's views: with sample:)",
            "another method")


class NotEnoughMemoryError(UserError, MemoryError):
    """A fit would need more memory than the process may use: raised before anything is allocated;
    the message names ``n``, the need, what is available and why, and the ways out."""


def parse_memory(value, what: str = "max_memory") -> int:
    """Bytes from ``value``: an int (bytes) or a string such as ``"8G"``, ``"8000M"``, ``"16GB"``,
    ``"512MiB"`` (K, M, G, T are powers of 1024; KB, MB, GB, TB powers of 1000); a
    :class:`~locproj.errors.UserError` naming ``what`` otherwise."""
    if isinstance(value, bool):
        raise UserError(f"{what}: {value!r} is not an amount of memory; give bytes or a string such as '8G'")
    if isinstance(value, int) and value > 0:
        return value
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*", value) if isinstance(value, str) else None
    if match is None or match.group(2).upper() not in _UNITS or float(match.group(1)) <= 0:
        raise UserError(f"{what}: {value!r} is not an amount of memory; give a positive number of bytes or a "
                        "string such as '8G', '8000M' or '16GB' (K, M, G, T: powers of 1024; KB, MB, GB, TB: of 1000)")
    return int(float(match.group(1)) * _UNITS[match.group(2).upper()])


@contextlib.contextmanager
def memory_limit(limit, where: str = "memory_limit", count_held: bool = True):
    """Limit the memory every fit inside the block may use to ``limit`` (bytes or a string, see
    :func:`parse_memory`; None: no limit of its own) for the whole process, less what it holds already
    (``count_held=False``: for the fit alone); ``where`` says where the limit came from in the error
    message. Nested limits all apply."""
    if limit is None:
        yield
        return
    _LIMITS.append((parse_memory(limit, where), where, count_held))
    try:
        yield
    finally:
        _LIMITS.pop()


def resident_bytes() -> int:
    """The resident memory of this process now (0 where it cannot be read)."""
    try:
        return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _machine_available() -> tuple[int, str] | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024, "the machine's available memory (MemAvailable)"
    except (OSError, ValueError, IndexError):
        pass
    try:  # off Linux: the free physical pages, where the OS reports them
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"), "the machine's free memory"
    except (AttributeError, OSError, ValueError):
        return None


def _read_int(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None   # "max": no limit


def _cgroup_dirs(root: Path = Path("/sys/fs/cgroup"), table: Path = Path("/proc/self/cgroup")):
    """``(version, folder)`` of the memory cgroup of this process and of each cgroup above it."""
    try:
        lines = table.read_text().splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controllers == "":
            version, base = 2, root
        elif "memory" in controllers.split(","):
            version, base = 1, root / "memory"
        else:
            continue
        folder = base / path.lstrip("/")
        while True:
            found.append((version, folder))
            if folder == base or base not in folder.parents:
                break
            folder = folder.parent
    return found


def _cgroup_available(root: Path = Path("/sys/fs/cgroup"),
                      table: Path = Path("/proc/self/cgroup")) -> tuple[int, str] | None:
    """The least room left under a memory limit of this process's cgroups (None without a limit)."""
    best = None
    for version, folder in _cgroup_dirs(root, table):
        limit_file, usage_file = (("memory.max", "memory.current") if version == 2
                                  else ("memory.limit_in_bytes", "memory.usage_in_bytes"))
        limit = _read_int(folder / limit_file)
        if limit is None or limit >= _NO_LIMIT:
            continue
        room = limit - (_read_int(folder / usage_file) or 0)
        if best is None or room < best[0]:
            best = (room, f"the cgroup limit of {limit / GB:.2f} GB ({folder / limit_file}), less what the "
                          "cgroup uses")
    return best


def available_memory(limit=None) -> tuple[int, str]:
    """``(bytes, where that limit comes from)``: the memory a fit may use now (module docstring); with
    ``limit`` (bytes or a string), that limit too. ``(2**63 - 1, 'no known limit')`` when none is known."""
    candidates = [found for found in (_machine_available(), _cgroup_available()) if found is not None]
    held = resident_bytes()
    limits = list(_LIMITS) + ([(parse_memory(limit, "limit"), "the limit passed", True)] if limit is not None else [])
    for size, where, count_held in limits:
        less = f", less the {held / GB:.2f} GB this process holds" if count_held else ""
        candidates.append((size - held if count_held else size, f"{where} = {size / GB:.2f} GB{less}"))
    return min(candidates, key=lambda c: c[0], default=(2**63 - 1, "no known limit"))


def available_memory_bytes(limit=None) -> int:
    """The memory a fit may use now, in bytes (:func:`available_memory`)."""
    return available_memory(limit)[0]


def check_memory(need_bytes: float, *, n: int, what: str, ways_out=WAYS_OUT, limit=None) -> None:
    """A :class:`NotEnoughMemoryError` when ``need_bytes`` (the estimated peak of ``what`` on ``n``
    samples) exceeds the memory available (:func:`available_memory`, with ``limit``); its message says
    ``n``, the need, what is available and where that limit comes from, and ``ways_out``."""
    available, where = available_memory(limit)
    if need_bytes <= available:
        return
    ways = "; ".join(ways_out)
    raise NotEnoughMemoryError(
        f"{what} on n = {n} samples needs about {need_bytes / GB:.2f} GB at its peak, but only "
        f"{max(available, 0) / GB:.2f} GB is available ({where}); nothing was allocated. Ways out: {ways}.")


def dense_square_bytes(n: int, count: float = 1.0) -> float:
    """Bytes of ``count`` float64 ``n x n`` arrays."""
    return 8.0 * count * n * n
