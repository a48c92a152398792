# Seeded train/test splits, one rule for every layout of split file (locproj.engine.config.split_path):
# m per class (Table 2's files hold `n_splits`), a count or a fraction of each class with an explicit
# number of splits (the dimension-curve protocol), or the LPK holdout (random or, as for paper 002's
# Olivetti, by group: t test samples per subject, k folds).


rule split:
    input:
        lambda wc: data_file(config, wc.name),
    output:
        "results/splits/{name}_{layout}.h5",
    log:
        "logs/splits/{name}_{layout}.log",
    wildcard_constraints:
        name=NAME_PATTERN,
        layout=SPLIT_LAYOUT_PATTERN,
    conda:
        "../envs/locproj.yaml"
    resources:
        **job_resources(config, mem_mb=500, runtime=5),
    params:
        layout=lambda wc: split_layout(config, wc.layout),
        seed=config["seed"],
    script:
        "../scripts/splits.py"


rule splits:
    input:
        split_targets(),
