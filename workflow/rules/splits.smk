# Seeded train/test splits: m per class (Table 2's files hold `n_splits`), a count or a fraction of
# each class with an explicit number of splits (the dimension-curve protocol), or the LPK holdout
# (random or, as for paper 002's Olivetti, by group: t test samples per subject, k folds).


rule split_per_class:
    input:
        lambda wc: data_file(config, wc.name),
    output:
        "results/splits/{name}_{partition}.h5",
    log:
        "logs/splits/{name}_{partition}.log",
    wildcard_constraints:
        name=NAME_PATTERN,
        partition=r"m\d+",
    conda:
        "../envs/locproj.yaml"
    resources:
        **job_resources(config, mem_mb=500, runtime=5),
    params:
        n_splits=config["n_splits"],
        seed=config["seed"],
    script:
        "../scripts/splits.py"


rule split_partitions:
    input:
        lambda wc: data_file(config, wc.name),
    output:
        "results/splits/{name}_{partition}_n{n}.h5",
    log:
        "logs/splits/{name}_{partition}_n{n}.log",
    wildcard_constraints:
        name=NAME_PATTERN,
        partition=PARTITION_PATTERN,
        n=r"\d+",
    conda:
        "../envs/locproj.yaml"
    resources:
        **job_resources(config, mem_mb=500, runtime=5),
    params:
        n_splits=lambda wc: int(wc.n),
        seed=config["seed"],
    script:
        "../scripts/splits.py"


rule split_holdout:
    input:
        lambda wc: data_file(config, wc.name),
    output:
        "results/splits/{name}_holdout.h5",
    log:
        "logs/splits/{name}_holdout.log",
    wildcard_constraints:
        name=NAME_PATTERN,
    conda:
        "../envs/locproj.yaml"
    resources:
        **job_resources(config, mem_mb=500, runtime=5),
    params:
        n_splits=1,
        seed=config["seed"],
    script:
        "../scripts/splits.py"


rule split_holdout_by_group:
    input:
        lambda wc: data_file(config, wc.name),
    output:
        "results/splits/{name}_holdout_t{t}f{k}.h5",
    log:
        "logs/splits/{name}_holdout_t{t}f{k}.log",
    wildcard_constraints:
        name=NAME_PATTERN,
        t=r"\d+",
        k=r"\d+",
    conda:
        "../envs/locproj.yaml"
    resources:
        **job_resources(config, mem_mb=500, runtime=5),
    params:
        n_splits=1,
        seed=config["seed"],
        by_group=lambda wc: {"test_per_group": int(wc.t), "n_folds": int(wc.k)},
    script:
        "../scripts/splits.py"


rule splits:
    input:
        split_targets(),
