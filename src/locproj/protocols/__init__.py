"""Experiment protocols: what the jobs of an experiment compute, and how they are aggregated.

An experiment names its ``protocol`` in the config (default :data:`DEFAULT_PROTOCOL`,
``cv_table``); :data:`PROTOCOLS` maps the name to the protocol's object, whose contract is
:class:`.base.Protocol`:

``cv_table`` (:mod:`.cv_table`)
    Per-class random splits, the inner cross-validation of :mod:`locproj.engine.selection` choosing the
    hyper-parameters and p, then the test error at the chosen p: Table 2 of paper 000.
``dimension_curve`` (:mod:`.dimension_curve`)
    The same jobs on per-class partitions (a count or a fraction of each class), also recording
    the test error of the refitted projection at every dimension: Fig. 4 of paper 001.
``train_test_curve`` (:mod:`.train_test_curve`)
    Fixed hyper-parameters, no CV: per partition (a repetition), the test error of each method and
    classifier against a swept dimension or training-set size: Figs. 5-6 of paper 004.
``holdout_curve`` (:mod:`.holdout_curve`)
    The LPK paper's split (a stratified third for test, 5×2 CV on the rest): C chosen by validation
    accuracy per method and projected dimension r, then test accuracy and % support vectors over
    the ten fold models: Figs. 8-10 of paper 002.
``embedding`` (:mod:`.embedding`)
    One fit per panel, training and novel points mapped to 2-D or 3-D and drawn, basis vectors drawn
    as images: Figs. 1-3 of paper 001.

The split protocols share the jobs of :mod:`.split_jobs` (splits, blocks, seeds) and the CV and
evaluation core (:mod:`locproj.engine.selection`, :mod:`locproj.core.evaluation`); a protocol module adds only
what differs. Adding a protocol is one module (with the config keys it takes,
:attr:`.base.Protocol.config_keys`) and one line here (``docs/protocols.md``): the config schema
takes its name and keys from the code (:func:`locproj.workflow.config_schema`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .base import Protocol

#: The registry: protocol name -> the module whose ``PROTOCOL`` it is (a module of this package,
#: or a full module path). A module is imported when its protocol is first asked for, so that a job
#: loads only its own protocol.
PROTOCOLS = {
    "cv_table": "cv_table",
    "dimension_curve": "dimension_curve",
    "train_test_curve": "train_test_curve",
    "holdout_curve": "holdout_curve",
    "embedding": "embedding",
}

#: The protocol of an experiment whose config names none.
DEFAULT_PROTOCOL = "cv_table"


def protocol_named(name: str) -> Protocol:
    """The protocol object registered under ``name``."""
    if name not in PROTOCOLS:
        raise ValueError(f"unknown protocol {name!r}; use one of {tuple(PROTOCOLS)}")
    module = PROTOCOLS[name]
    return importlib.import_module(module if "." in module else f"{__name__}.{module}").PROTOCOL


def protocol_of(spec: dict) -> Protocol:
    """The protocol an experiment's config entry names (default :data:`DEFAULT_PROTOCOL`)."""
    return protocol_named(spec.get("protocol", DEFAULT_PROTOCOL))
