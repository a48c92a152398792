from pathlib import Path

from locproj.experiments import aggregate_experiment
from locproj.workflow import run_rule


def main(smk):
    aggregate_experiment(smk.params.spec, list(smk.input), Path(smk.output.tables[0]).parent)


run_rule(snakemake, main)
