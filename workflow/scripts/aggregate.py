from pathlib import Path

from locproj.experiments import aggregate_experiment
from locproj.workflow import run_rule


def main(smk):
    aggregate_experiment(smk.params.spec, smk.input, Path(smk.output.metadata).parent, seed=smk.params.seed,
                         notes=smk.params.notes)


run_rule(snakemake, main)
