from pathlib import Path

from locproj.protocols import aggregate
from locproj.workflow import run_rule


def main(smk):
    inputs = dict(smk.input.items()) if smk.params.spec.get("protocol") == "embedding" else list(smk.input)
    aggregate(smk.params.spec, inputs, Path(smk.output.metadata).parent, seed=smk.params.seed, notes=smk.params.notes)


run_rule(snakemake, main)
