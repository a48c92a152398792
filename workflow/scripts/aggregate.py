from pathlib import Path

from locproj.engine.job_costs import experiment_timing
from locproj.experiments import aggregate_experiment
from locproj.workflow import run_rule


def main(smk):
    out_dir = Path(smk.output.metadata).parent
    aggregate_experiment(smk.params.spec, smk.input, out_dir, seed=smk.params.seed, notes=smk.params.notes,
                         timing=experiment_timing(smk.config, out_dir.name))


run_rule(snakemake, main)
