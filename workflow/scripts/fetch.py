from locproj.data import fetch_file
from locproj.workflow import run_rule


def main(smk):
    spec = smk.params.spec
    fetch_file(smk.wildcards.dataset, spec["name"], spec["sha256"], spec["urls"], smk.output[0], smk.params.mirror)


run_rule(snakemake, main)
