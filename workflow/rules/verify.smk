# `snakemake verify`, as `git fsck`: every file the pipeline keeps for the experiments (config
# `verify`: experiments or targets; default all) opened as its readers open it, checksums verified;
# it lists the missing and the damaged ones and fails if there are any (docs/experiments.md says
# how to remake them). No output, so it runs whenever it is asked for.
from locproj.experiments import cached_files


localrules:
    verify,


rule verify:
    log:
        "logs/verify.log",
    conda:
        "../envs/locproj.yaml"
    params:
        files=lambda wildcards: cached_files(
            config, config.get("verify") or list(EXPERIMENTS), TARGETS
        ),
    script:
        "../scripts/verify.py"
