from locproj.experiments import run_configured_job
from locproj.workflow import run_rule


def main(smk):
    run_configured_job(smk.params.job, smk.wildcards.get("partition", "holdout"), smk.params.splits, smk.input.data, smk.input.splits,
                       list(smk.output), n_jobs=smk.threads)


run_rule(snakemake, main)
