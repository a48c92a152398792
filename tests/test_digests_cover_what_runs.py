"""A job's code digest covers every locproj module its method can run: for every method entry (and
panel) of every committed config, what its job builds is built, fitted and applied on small data under
``sys.setprofile``, and every locproj module whose code ran is among those the job's digest hashes
(:func:`locproj.engine.code_digests.job_modules`)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import is_classifier

from locproj.engine.code_digests import estimator_modules, job_modules
from locproj.engine.config import replace_experiments
from locproj.engine.config_files import load_config
from locproj.protocols import protocol_of
from locproj.workflow import validate_config

ROOT = Path(__file__).resolve().parents[1]
#: The committed configurations: the pipeline's own, and each overlay of config/ over it.
OVERLAYS = [None, "config/demo.yaml", "config/smoke.yaml", "config/papers_smoke.yaml",
            "config/own_data_example.yaml", "config/own_method_example.yaml"]


def _jobs():
    """(config, experiment, the protocol's job params) of one job per method entry or panel."""
    found = {}
    for overlay in OVERLAYS:
        config = load_config(ROOT, [overlay] if overlay else [])
        config.setdefault("method_paths", [str(ROOT / "config"), str(ROOT)])
        replace_experiments(config)                      # then the schema's defaults, as the Snakefile does
        validate_config(config, ROOT / "workflow" / "schemas" / "config.schema.yaml")
        for experiment, spec in config["experiments"].items():
            protocol = protocol_of(spec)
            if protocol.name == "embedding":
                for name, panel in spec["panels"].items():
                    if "method" in panel:
                        key = ("panel", repr(sorted(panel.items())))
                        found.setdefault(key, (experiment, protocol, {"panel": panel}))
                continue
            dataset = protocol.datasets(spec)[0]
            for method, entry in (spec.get("methods") or {}).items():
                block = list((entry or {}).get("values", spec.get("values", [2])))[:1] or [2]
                job = protocol.job_config(config, experiment, dataset, method, block)
                key = (protocol.name, repr(job.get("method_spec", entry)), repr(job.get("fixed")), job.get("pca_first"))
                found.setdefault(key, (experiment, protocol, {"job": job}))
    return sorted(found.values(), key=lambda item: (item[0], repr(item[2])))


JOBS = _jobs()


def _data(n_classes: int, per_class: int = 12):
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(n_classes), per_class)
    X = rng.standard_normal((len(y), 16)) + y[:, None]
    return X, y


def _modules_run(run) -> set[str]:
    """The locproj modules whose functions ``run()`` called (a failure of ``run`` is re-raised)."""
    seen = set()

    def profile(frame, event, arg):
        if event == "call":
            name = frame.f_globals.get("__name__", "")
            if name == "locproj" or name.startswith("locproj."):   # a user's file counts by its own digest
                seen.add(name)

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return seen


def _fit_and_apply(protocol, params):
    """Build the job's estimator as its protocol does and fit and apply it; the holdout protocol's
    own path (its PCA step by hand, the SVMs) where the job is one of its."""
    estimator = protocol.job_estimator(params)
    binary = is_classifier(estimator)           # LPK and GPK: two classes
    subset = max([v for k, v in estimator.get_params().items() if k.endswith("n_subset") and v] or [0])
    X, y = _data(2 if binary else 4, max(12, subset // (2 if binary else 4) + 2))
    if protocol.name == "holdout_curve":
        from locproj.protocols.base import job_method
        from locproj.protocols.holdout_curve import method_kind, run_holdout
        from locproj.engine.registry import estimator_factory

        job, spec = params["job"], job_method(params["job"])
        n = len(y)
        folds = [(np.arange(0, n, 2), np.arange(1, n, 4))]
        job = {**job, "kind": method_kind(spec), "ordered": spec.ordered, "C_values": [1.0],
               "pca_first": min(job.get("pca_first") or 0, 10) or None}
        run_holdout(job, estimator_factory(spec, job["fixed"]), X, y, folds, np.arange(3, n, 4), [0], limit=2)
        return
    if "n_components" in estimator.get_params():
        estimator.set_params(n_components=2)
    for name in ("method__n_components", "pca__n_components"):
        if name in estimator.get_params():
            estimator.set_params(**{name: 2 if name.startswith("method") else 10})
    estimator.fit(X, y)
    if hasattr(estimator, "transform"):
        estimator.transform(X[:5])
    if hasattr(estimator, "predict"):
        estimator.predict(X[:5])


@pytest.mark.parametrize("experiment, protocol, params", JOBS,
                         ids=[f"{e}-{(p.get('job') or {}).get('method') or p['panel']['method']}" for e, _, p in JOBS])
def test_every_locproj_module_a_method_runs_is_in_its_jobs_digest(experiment, protocol, params):
    estimator = protocol.job_estimator(params)
    covered = job_modules(type(protocol).__module__, estimator_modules(estimator))
    ran = _modules_run(lambda: (protocol.job_estimator(params), _fit_and_apply(protocol, params)))
    assert ran, "nothing of locproj ran"
    assert ran <= covered, sorted(ran - covered)


def test_the_jobs_cover_every_built_in_method_and_the_pca_first_entries():
    methods = {(params.get("job") or {}).get("registry_method") or (params.get("job") or {}).get("method")
               for _, _, params in JOBS}
    assert {"lfda", "nca", "lsda", "olpp", "lpk", "lpp", "raw", "pca"} <= methods
    assert any((params.get("job") or {}).get("pca_first") for _, _, params in JOBS)               # holdout's
    assert any(((params.get("job") or {}).get("method_spec") or {}).get("pca_first") for _, _, params in JOBS)
