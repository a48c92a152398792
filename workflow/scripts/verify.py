import logging

from locproj.experiments import verify_files
from locproj.workflow import run_rule


def main(smk):
    report, problems = verify_files(smk.params.files)
    logging.getLogger("locproj.verify").info(report)
    if problems:
        raise SystemExit(1)


run_rule(snakemake, main)
