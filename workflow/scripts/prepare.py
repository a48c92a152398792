from locproj.data import prepare_dataset
from locproj.workflow import run_rule


def main(smk):
    prepare_dataset(smk.wildcards.dataset, smk.params.spec, list(smk.input), smk.output[0], seed=smk.params.seed)


run_rule(snakemake, main)
