"""A method that fails: what its failure costs, what of it is recorded, and the checks of its output.

An experiment's or a method entry's ``on_error`` says what a failure costs:

``record``
    a split (or job) whose fit or evaluation raises gets a result file that records the failure
    (:func:`failure_record`: the exception's type, its message and the method's own frame) instead
    of its numbers; a grid point whose fit raises in the inner cross-validation has no CV error, and
    the split fails only if every grid point fails. The cell shows ``failed`` in the tables, with
    the reason and the job's log, and every other cell is computed; Snakemake exits 0.
``raise``
    the first failure stops the run with one message naming the method and the cell.

The default is ``record`` for a method given by import path and ``raise`` for a built-in method, so
that a paper's table never loses a cell silently. A method's error shows its own frames (the user's
file and line, or the library the estimator comes from), never locproj's.
"""

from __future__ import annotations

import contextlib
import logging
import traceback
from pathlib import Path

import numpy as np

from ..core.memory import NotEnoughMemoryError
from ..errors import UserError

ON_ERROR = ("record", "raise")

#: The log file of the rule this process runs (set by :func:`locproj.workflow.run_rule`), for the
#: records of its failures.
_RULE_LOG: list[str] = []


def rule_log() -> str:
    """The log file of the rule this process runs ('' outside a rule)."""
    return _RULE_LOG[0] if _RULE_LOG else ""


def set_rule_log(path) -> None:
    """Name the log file of the rule this process runs."""
    _RULE_LOG[:] = [str(path)]
_PACKAGE = Path(__file__).resolve().parents[1]   # the locproj package
log = logging.getLogger("locproj.methods")


class MethodError(UserError):
    """A method's error inside a job: the method, the cell and the method's own frames."""


class MethodOutputError(ValueError):
    """What a method returned has the wrong shape or non-finite values."""


def default_on_error(by_import_path: bool) -> str:
    """``record`` for a method given by import path, ``raise`` for a built-in one."""
    return "record" if by_import_path else "raise"


def on_error_of(job: dict) -> str:
    """A job's ``on_error``: its configuration's (set only where it is not the default) or the default
    of its method (a job of a method by import path records where its code comes from)."""
    return job.get("on_error") or default_on_error("estimator_source" in job)


def configured_on_error(spec: dict, entry: dict | None) -> dict:
    """``{"on_error": ...}`` for a job's configuration where the method entry's (or else the
    experiment's) ``on_error`` is not its method's default; ``{}`` otherwise, so that the jobs of every
    experiment that does not set it keep their configuration."""
    entry = entry or {}
    chosen = entry.get("on_error") or spec.get("on_error")
    default = default_on_error("estimator" in entry)
    return {"on_error": chosen} if chosen and chosen != default else {}


def method_frames(error: BaseException) -> list[traceback.FrameSummary]:
    """The frames of ``error``'s traceback outside locproj (the method's own code), or of the first
    error it was raised from that has some; file names relative to the working directory."""
    while error is not None:
        frames = [frame for frame in traceback.extract_tb(error.__traceback__)
                  if not Path(frame.filename).resolve().is_relative_to(_PACKAGE)]
        if frames:
            for frame in frames:
                frame.filename = _shown(frame.filename)
            return frames
        error = error.__cause__
    return []


def _shown(filename: str) -> str:
    """A file name relative to the working directory when it lies below it."""
    path = Path(filename).resolve()
    return path.relative_to(Path.cwd()).as_posix() if path.is_relative_to(Path.cwd()) else filename


def failure_record(error: BaseException) -> dict:
    """What a result file records of a failure: the exception's type and message, and the innermost
    frame of the method's own code; where the method's code is locproj's, that of the error it all
    began with; none for an output check's error (its message says what came back)."""
    first = error
    while first.__cause__ is not None:
        first = first.__cause__
    frames = method_frames(error)
    if not frames and not isinstance(first, MethodOutputError):
        frames = traceback.extract_tb(first.__traceback__)
    frame = f"{_shown(frames[-1].filename)}:{frames[-1].lineno} in {frames[-1].name}" if frames else ""
    return {"error_type": type(error).__name__, "error_message": str(error), "error_frame": frame}


def failure_text(record: dict) -> str:
    """One line for a recorded failure: ``ValueError: boom (my_methods.py:12 in fit)``."""
    where = f" ({record['error_frame']})" if record.get("error_frame") else ""
    return f"{record['error_type']}: {record['error_message']}{where}"


def failed_text(job: dict, partition: str, split=None) -> str:
    """``method 'mine' failed on digits (m10, split 3) in experiment 'x'``."""
    where = f", split {split}" if split is not None else ""
    return (f"method {job['method']!r} failed on {job['dataset']} ({partition}{where}) in experiment "
            f"{job['experiment']!r}")


def raised(error: BaseException, job: dict, partition: str, split=None) -> Exception:
    """The error to stop the run with: for a method by import path whose own code raised, a
    :class:`MethodError` showing only its frames (printed without locproj's traceback); otherwise
    (locproj's own code) a ``RuntimeError`` naming the cell, chained to the original."""
    context = f"{failed_text(job, partition, split)}: {type(error).__name__}: {error}"
    if isinstance(error, NotEnoughMemoryError):   # its message says what to do: no traceback
        return MethodError(context)
    frames = method_frames(error)
    if "estimator_source" in job and (frames or isinstance(error, MethodOutputError)):
        shown = "".join(traceback.format_list(frames)).rstrip()
        return MethodError(context + (f"\nin the method's code:\n{shown}" if shown else ""))
    return RuntimeError(context)


@contextlib.contextmanager
def handled(job: dict, partition: str, split, write_failure):
    """Run one split (or job): under ``on_error: record`` a failure is logged and written by
    ``write_failure(record)`` instead of stopping the job; under ``raise`` it stops the job, naming
    the method and the cell (:func:`raised`)."""
    try:
        yield
    except Exception as error:
        if on_error_of(job) != "record":
            raise raised(error, job, partition, split) from error
        record = failure_record(error)
        log.warning("%s (recorded in its result file): %s", failed_text(job, partition, split),
                    failure_text(record))
        write_failure(record)


def check_output(Z, n_rows: int, *, width: int | None = None, what: str = "transform"):
    """``Z`` as returned by a method's ``what``, checked: ``n_rows`` rows, ``width`` columns when given
    (a method fitted with that ``n_components``), finite values; a :class:`MethodOutputError` saying
    what was expected and what came back otherwise."""
    Z = np.asarray(Z)
    expected = f"{n_rows} rows" + (f" of {width} columns" if width is not None else "")
    if Z.ndim != 2 or Z.shape[0] != n_rows or (width is not None and Z.shape[1] != width):
        raise MethodOutputError(f"{what} returned an array of shape {Z.shape} for {n_rows} samples; expected "
                                f"{expected}")
    if Z.dtype.kind in "fc" and not np.all(np.isfinite(Z)):
        bad = int(np.count_nonzero(~np.isfinite(Z)))
        raise MethodOutputError(f"{what} returned {bad} non-finite values (NaN or infinite) in its {Z.shape} "
                                "array; expected finite values")
    return Z
