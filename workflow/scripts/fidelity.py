from pathlib import Path

from locproj.fidelity import paper_fidelity
from locproj.workflow import run_rule


def main(smk):
    comparisons = {name: path for name, path in smk.input.items()}
    paper_fidelity(comparisons, Path(smk.output.png).with_suffix(""), title=smk.params.title, notes=smk.params.notes)


run_rule(snakemake, main)
