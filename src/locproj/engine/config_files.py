"""The configuration's files: ``config/config.yaml`` names the files that hold the rest of it.

``config/config.yaml`` holds the top-level options and the targets; its ``config_files:`` names the
files that hold the rest, in order: the datasets, the views, each paper's experiments, the matrix.
A ``--configfile`` may name files of its own the same way (``config/papers_smoke.yaml`` does). The
names are labels (an entry of a later ``--configfile`` with a name already used replaces that file);
the paths are from the working directory, as every path of the config is.

The Snakefile loads ``config/config.yaml`` (``configfile:``); Snakemake merges every ``--configfile``
and ``--config`` over it; :func:`merge_config_files` then merges the named files beneath all of that:
their keys are added, and what Snakemake merged wins where both set a value. So the configuration is
what it would be were the named files' contents in ``config/config.yaml``, with one rule: a named
file does not override ``config/config.yaml`` or a ``--configfile`` (a file named by a
``--configfile`` sits beneath it as well). :func:`load_config` makes the same configuration outside
Snakemake (the tools, the tests), with Snakemake's own loading and merging.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from ..errors import ConfigError

#: The config file the Snakefile loads, from the working directory.
CONFIG_FILE = "config/config.yaml"


def merge_config_files(config: dict, root: str | Path = ".") -> dict:
    """Merge the files named under ``config_files:`` beneath ``config``, in place; returns ``config``.

    The files are merged in order (a later one over an earlier one, as Snakemake merges), then
    beneath ``config``: a key ``config`` lacks is added after its own keys, a mapping both hold is
    merged entry by entry, and any other value of ``config`` is kept. ``config_files`` itself is
    removed. Paths are from ``root`` (the working directory). A file that is missing, is not a
    mapping or names ``config_files`` of its own is a :class:`~locproj.errors.ConfigError` naming it.
    """
    from snakemake.common.configfile import load_configfile
    from snakemake.utils import update_config

    files = config.pop("config_files", None)
    if files is None:
        return config
    if not isinstance(files, Mapping) or not all(isinstance(path, str) for path in files.values()):
        raise ConfigError(f"config_files must map names to file paths, got {files!r}")
    named: dict = {}
    for name, path in files.items():
        file = Path(root) / path
        if not file.is_file():
            raise ConfigError(f"config_files: {name}: {path} is not a file (paths are from the working directory)")
        try:
            part = load_configfile(str(file))
        except Exception as error:      # Snakemake's WorkflowError: not JSON or YAML, or not a mapping
            raise ConfigError(f"config_files: {name}: {path}: {error}") from None
        if "config_files" in part:
            raise ConfigError(f"config_files: {name}: {path} names config_files of its own; only "
                              f"{CONFIG_FILE} and a --configfile may")
        update_config(named, part)
    _merge_beneath(config, named)
    return config


def _merge_beneath(config: dict, beneath: Mapping) -> None:
    for key, value in beneath.items():
        if key not in config:
            config[key] = value
        elif isinstance(config[key], Mapping) and isinstance(value, Mapping):
            _merge_beneath(config[key], value)


def load_config(root: str | Path = ".", configfiles: Iterable[str | Path] = (), values: Mapping | None = None,
                path: str | Path = CONFIG_FILE) -> dict:
    """The configuration of ``snakemake --configfile configfiles... --config values...`` run in ``root``:
    ``path`` (``config/config.yaml``) as Snakemake loads and merges it with ``configfiles`` (each from
    ``root``) and ``values``, then :func:`merge_config_files`, as the Snakefile does. Not validated:
    the schema's defaults are not filled in."""
    import copy

    from snakemake.common.configfile import load_configfile
    from snakemake.utils import update_config

    root = Path(root)
    overwrite: dict = {}        # Snakemake's ConfigSettings.overwrite_config
    for file in configfiles:
        update_config(overwrite, load_configfile(str(root / file)))
    if values:
        update_config(overwrite, dict(values))
    config = copy.deepcopy(overwrite)       # Workflow.__init__, then the `configfile:` directive
    update_config(config, load_configfile(str(root / path)))
    update_config(config, overwrite)
    return merge_config_files(config, root)
