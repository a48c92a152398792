# One job per (experiment, dataset, m, split, method), then one aggregation per experiment.
rule fit:
    input:
        data=lambda wc: data_file(wc.dataset),
        splits=lambda wc: split_file(wc.dataset, wc.m),
    output:
        "results/{experiment}/{dataset}/m{m}/{method}/split{split}.h5",
    log:
        "logs/fit/{experiment}/{dataset}/m{m}/{method}/split{split}.log",
    wildcard_constraints:
        experiment=NAME_PATTERN,
        method=NAME_PATTERN,
        split=r"\d+",
    conda:
        "../envs/locproj.yaml"
    threads: config.get("threads", 1)
    resources:
        # measured: the largest job (pie_pose27, m=30, LPP: 180 fits) peaks at 372 MB and takes
        # about 3 min on one core; full PIE (11554 images) stays within these bounds
        mem_mb=1500,
        runtime=30,
    params:
        job=lambda wc: job_config(config, wc.experiment, wc.dataset, wc.method),
    script:
        "../scripts/run_job.py"


for _experiment in config.get("experiments", {}):
    _out = f"results/{_experiment}"
    _table = f"{_out}/{table_name(_experiment)}"

    rule:
        name:
            f"aggregate_{_experiment}"
        input:
            experiment_results(_experiment),
        output:
            table_csv=report(
                f"{_table}.csv", caption="../report/table.rst", category=_experiment
            ),
            table_md=f"{_table}.md",
            table_tex=f"{_table}.tex",
            comparison_csv=report(
                f"{_out}/comparison.csv",
                caption="../report/comparison.rst",
                category=_experiment,
            ),
            comparison_md=f"{_out}/comparison.md",
            figures=report(
                directory(f"{_out}/figures"),
                patterns=["{name}.png"],
                caption="../report/figures.rst",
                category=_experiment,
            ),
            metadata=report(
                f"{_out}/metadata.yaml",
                caption="../report/metadata.rst",
                category=_experiment,
            ),
        log:
            f"logs/aggregate/{_experiment}.log",
        conda:
            "../envs/locproj.yaml"
        params:
            spec=config["experiments"][_experiment],
            seed=config["seed"],
        script:
            "../scripts/aggregate.py"

    rule:
        name:
            _experiment
        default_target: False
        input:
            experiment_outputs(_experiment),
