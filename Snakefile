# locproj: regenerate the tables and figures of the local-projection papers from raw data.
import os
import sys
from pathlib import Path

from snakemake.utils import min_version

# This checkout's code runs everywhere: here, and in every job, also in the conda environment
# (workflow/envs/locproj.yaml holds the dependencies only), whose jobs inherit PYTHONPATH.
SOURCE = Path(workflow.basedir) / "src"
if SOURCE.is_dir():
    sys.path.insert(0, str(SOURCE))
    os.environ.update(
        PYTHONPATH=os.pathsep.join(
            [str(SOURCE)] + [p for p in [os.environ.get("PYTHONPATH")] if p]
        )
    )

from locproj.engine.config_files import merge_config_files
from locproj.errors import UserError, user_error_message

min_version("9.17")


# config/config.yaml holds the options and the targets; the files it names under `config_files:`
# (datasets, views, each paper's experiments, the matrix) are merged beneath it and beneath every
# --configfile and --config, as are those a --configfile names (locproj.engine.config_files).
configfile: "config/config.yaml"


try:
    merge_config_files(config)
except UserError as error:
    raise SystemExit(user_error_message(error))


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/splits.smk"
include: "workflow/rules/experiments.smk"
include: "workflow/rules/verify.smk"


rule all:
    default_target: True
    input:
        all_targets(),
