from locproj.data import read_dataset_file, write_view
from locproj.workflow import run_rule


def main(smk):
    write_view(read_dataset_file(smk.input[0]), smk.params.view, smk.wildcards.view, smk.output[0])


run_rule(snakemake, main)
