# One job per (experiment, dataset, m, method, block of splits), one result file per split, then
# one aggregation per experiment. A block's rule is defined per experiment so that its outputs can
# name the block's splits.
for _experiment in config.get("experiments", {}):
    for _splits in split_blocks(config, _experiment):
        _block = f"splits{_splits[0]:02d}-{_splits[-1]:02d}"

        rule:
            name:
                f"fit_{_experiment}_{_block}"
            input:
                data=lambda wc: data_file(wc.dataset),
                splits=lambda wc: split_file(wc.dataset, wc.m),
            output:
                [
                    result_path(_experiment, "{dataset}", "{m}", "{method}", s)
                    for s in _splits
                ],
            log:
                f"logs/fit/{_experiment}/{{dataset}}/m{{m}}/{{method}}/{_block}.log",
            wildcard_constraints:
                method=NAME_PATTERN,
            conda:
                "../envs/locproj.yaml"
            threads: config.get("threads", 1)
            resources:
                # the largest split (pie, m=30, LPP: 180 fits) takes about 1.5 min on one core;
                # runtime is per block of splits_per_job splits
                mem_mb=1500,
                runtime=lambda wc, splits=_splits: 5 + 2 * len(splits),
            params:
                job=lambda wc, e=_experiment: job_config(
                    config, e, wc.dataset, wc.method
                ),
                splits=_splits,
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
            notes=data_notes(config, config["experiments"][_experiment]["datasets"]),
        script:
            "../scripts/aggregate.py"

    rule:
        name:
            _experiment
        default_target: False
        input:
            experiment_outputs(_experiment),
