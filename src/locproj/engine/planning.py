"""Values that planning a run computes from the config and the code, kept between runs.

Planning a run of ``papers`` asks the cost model for every cell's seconds and memory and every job
for the digest of the code it runs (:mod:`locproj.engine.code_digests`); answering needs the method
registry, and so scikit-learn, whose import alone takes about a second. The workflow keeps the answers
in a file per digest of the config, the code and the files the config names
(:func:`locproj.workflow.checked_once`): :func:`use` loads it when the Snakefile is read, :func:`planned`
memoises a function of the config in it, and :func:`save` writes what was added, atomically. Without
:func:`use` (a job, a library user) a planned function just computes. A value is a function of the
config and the code, so the file of another config or code is never read.
"""

from __future__ import annotations

import functools
import pickle
from pathlib import Path

_KEPT: dict = {}
_STATE = {"path": None, "added": False}


def use(path) -> None:
    """Keep planned values in the file ``path`` from now on (read what it holds)."""
    path = Path(path)
    _KEPT.clear()
    if path.is_file():
        _KEPT.update(pickle.loads(path.read_bytes()))
    _STATE.update(path=path, added=False)


def stop() -> None:
    """Keep nothing from now on: a planned function computes again every time."""
    _KEPT.clear()
    _STATE.update(path=None, added=False)


def save() -> None:
    """Write the planned values to the file of :func:`use`, if any were added."""
    from ..core.io import atomic_path

    if _STATE["path"] is not None and _STATE["added"]:
        with atomic_path(_STATE["path"]) as path:
            path.write_bytes(pickle.dumps(dict(_KEPT)))
        _STATE["added"] = False


def recall(key: tuple, compute):
    """The kept value of ``key`` (its function's name first, then its arguments by ``repr``), or
    ``compute()`` kept under it."""
    if _STATE["path"] is None:
        return compute()
    if key not in _KEPT:
        _KEPT[key] = compute()
        _STATE["added"] = True
    return _KEPT[key]


def planned(function):
    """Memoise ``function(config, *args, **options)`` in the kept values (the config is the one the
    file is of)."""
    @functools.wraps(function)
    def wrapper(config, *args, **options):
        key = (function.__module__, function.__qualname__, repr(args), repr(sorted(options.items())))
        return recall(key, lambda: function(config, *args, **options))

    return wrapper
