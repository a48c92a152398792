"""The fidelity figure of every paper (its published numbers against ours) from the committed
comparisons under docs/results, written to docs/results/fidelity/<paper target>.png; the same
figure as the workflow's results/<paper target>/fidelity.png from a run's results.

    python tools/fidelity_figures.py [--out docs/results/fidelity]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from locproj.engine.config import expand_targets, paper_targets
from locproj.engine.config_files import load_config
from locproj.experiments import comparison_outputs, experiment_notes, experiment_protocols, paper_fidelity
from locproj.report.fidelity import paper_title

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=ROOT / "docs" / "results",
                        help="the folder holding <experiment>/comparison.csv (default: docs/results)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "results" / "fidelity")
    args = parser.parse_args()
    config = load_config(ROOT)
    expand_targets(config["targets"], config["experiments"])
    for target, experiments in paper_targets(config["targets"], config["experiments"]).items():
        comparisons = {e: args.results / Path(path).relative_to("results")
                       for e, path in comparison_outputs(config, experiments).items()}
        missing = [str(path) for path in comparisons.values() if not path.is_file()]
        if not comparisons or missing:
            print(f"{target}: no figure ({'missing ' + ', '.join(missing) if missing else 'no published numbers'})")
            continue
        notes = {e: experiment_notes(config, e) for e in comparisons}
        written = paper_fidelity(comparisons, experiment_protocols(config, comparisons), args.out / target,
                                 title=paper_title(target), notes=notes, formats=("png",))
        print(f"{target}: {', '.join(map(str, written))}")


if __name__ == "__main__":
    main()
