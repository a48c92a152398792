# Seeded train/test splits: m per class (20 by default) or the LPK holdout protocol.


rule split_per_class:
    input:
        lambda wc: data_file(wc.name),
    output:
        "results/splits/{name}_m{m}.h5",
    log:
        "logs/splits/{name}_m{m}.log",
    wildcard_constraints:
        name=NAME_PATTERN,
    conda:
        "../envs/locproj.yaml"
    resources:
        mem_mb=500,
        runtime=5,
    params:
        n_splits=config["n_splits"],
        seed=config["seed"],
    script:
        "../scripts/splits.py"


rule split_holdout:
    input:
        lambda wc: data_file(wc.name),
    output:
        "results/splits/{name}_holdout.h5",
    log:
        "logs/splits/{name}_holdout.log",
    wildcard_constraints:
        name=NAME_PATTERN,
    conda:
        "../envs/locproj.yaml"
    resources:
        mem_mb=500,
        runtime=5,
    params:
        n_splits=1,
        seed=config["seed"],
    script:
        "../scripts/splits.py"


rule splits:
    input:
        split_targets(),
