# locproj: regenerate the tables and figures of the local-projection papers from raw data.
from snakemake.utils import min_version

min_version("8.17")


configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/splits.smk"
include: "workflow/rules/experiments.smk"


rule all:
    default_target: True
    input:
        all_targets(),
