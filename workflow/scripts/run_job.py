from locproj.experiments import run_configured_job
from locproj.workflow import run_rule


def main(smk):
    wc = smk.wildcards
    run_configured_job(smk.params.job, int(wc.m), int(wc.split), smk.input.data, smk.input.splits, smk.output[0],
                       n_jobs=smk.threads)


run_rule(snakemake, main)
