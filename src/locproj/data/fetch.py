"""Fetch one raw data file: from a local mirror if present there, else from its URLs in order.

A file appears at its destination only after its sha256 has been checked (written to a temporary
name, verified, then renamed), so an interrupted or failed fetch never leaves a partial file.
"""

from __future__ import annotations

import http.client
import logging
import shutil
import urllib.request
from pathlib import Path

from ..core.io import atomic_path, sha256_file
from .errors import DataError

log = logging.getLogger(__name__)

TIMEOUT_SECONDS = 60


def fetch_file(
    dataset: str,
    name: str,
    sha256: str | None,
    urls: list[str | dict],
    destination: str | Path,
    mirror: str | Path | None = None,
) -> Path:
    """Place the verified file ``name`` of ``dataset`` at ``destination``.

    Sources are tried in order: ``mirror/name`` (when ``mirror`` is set and holds the file), then
    each URL. A source whose bytes do not match ``sha256`` is rejected and the next one tried. When
    ``sha256`` is None the first readable source is accepted and its checksum logged as a warning
    (so that it can be recorded in the config); it is also written next to the file as
    ``<name>.sha256``. A URL given as ``{"url": ..., "sha256": ...}`` is checked against its own
    checksum instead: an address serving another packing of the same data (a repository archive,
    say), whose content the dataset's ``content_sha256`` then pins.

    Parameters
    ----------
    dataset : str
        The dataset's name, for messages.
    name : str
        The file's name.
    sha256 : str or None
        The file's checksum; None accepts the first readable source.
    urls : list of str or dict
        The addresses, in order; a dict ``{"url": ..., "sha256": ...}`` has its own checksum.
    destination : str or Path
        Where the file is placed.
    mirror : str or Path, optional
        A local folder that may hold the file.

    Returns
    -------
    Path
        ``destination``.
    """
    destination = Path(destination)
    attempts: list[str] = []
    for label, expected, copy in _sources(name, sha256, urls, mirror):
        try:
            with atomic_path(destination) as tmp:
                copy(tmp)
                _check_sha256(tmp, expected, label)
        except (OSError, ValueError, http.client.HTTPException) as error:
            attempts.append(f"{label}: {error}")
            continue
        if expected is None:
            _record_unknown_checksum(dataset, name, destination)
        return destination
    raise DataError(_failure_message(dataset, name, mirror, attempts))


def _sources(name, sha256, urls, mirror):
    """(label, expected sha256, copy function) of every source, in the order they are tried."""
    if mirror:
        candidate = Path(mirror) / name
        if candidate.is_file():
            yield f"mirror {candidate}", sha256, lambda tmp: shutil.copyfile(candidate, tmp)
    for entry in urls:
        url, expected = (entry["url"], entry["sha256"]) if isinstance(entry, dict) else (entry, sha256)
        yield url, expected, lambda tmp, url=url: _download(url, tmp)


def _download(url: str, target: Path) -> None:
    request = urllib.request.Request(url, headers={"User-Agent": "locproj"})
    with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response, open(target, "wb") as out:
        shutil.copyfileobj(response, out)


def _check_sha256(path: Path, expected: str | None, label: str) -> None:
    if expected is None:
        return
    actual = sha256_file(path)
    if actual != expected:
        raise ValueError(f"sha256 mismatch (expected {expected}, got {actual})")


def _record_unknown_checksum(dataset: str, name: str, destination: Path) -> None:
    digest = sha256_file(destination)
    destination.with_name(destination.name + ".sha256").write_text(f"{digest}  {name}\n")
    log.warning(
        "dataset %r: no sha256 is configured for %s; the downloaded file has sha256 %s. "
        "Add it to config/datasets.yaml (datasets.%s.files) so later downloads are verified.",
        dataset, name, digest, dataset,
    )


def _failure_message(dataset, name, mirror, attempts) -> str:
    tried = "\n".join(f"  - {attempt}" for attempt in attempts) or "  (no source configured)"
    if mirror:
        where = f"the data mirror {mirror!s} (config key `data_mirror`) does not hold a valid copy"
    else:
        where = "no data mirror is set (config key `data_mirror`)"
    return (
        f"Could not obtain file {name!r} of dataset {dataset!r}: {where}, and every address failed.\n"
        f"Tried:\n{tried}\n"
        f"Put a verified copy of {name} in a folder and pass --config data_mirror=<folder>, "
        f"or run where the addresses above are reachable."
    )
