from pathlib import Path

from locproj.experiments import paper_fidelity
from locproj.workflow import run_rule


def main(smk):
    paper_fidelity(dict(smk.input.items()), smk.params.protocols, Path(smk.output.png).with_suffix(""),
                   title=smk.params.title, notes=smk.params.notes)


run_rule(snakemake, main)
