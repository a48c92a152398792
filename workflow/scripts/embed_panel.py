from locproj.core.io import provenance_attrs
from locproj.protocols.embedding import run_panel
from locproj.workflow import run_rule


def main(smk):
    run_panel(smk.params.panel, smk.input[0], smk.output[0], seed=smk.params.seed,
              provenance=provenance_attrs(smk.params.panel, seed=smk.params.seed))


run_rule(snakemake, main)
