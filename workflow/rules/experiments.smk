# One job per (experiment, dataset, m, split, method), then one aggregation per experiment.
from locproj.experiments import experiment_jobs, job_config, result_path


def experiment_results(experiment):
    return [result_path(experiment, *job) for job in experiment_jobs(config, experiment)]


def table_name(experiment):
    return config["experiments"][experiment].get("table_name", "table")


def experiment_outputs(experiment):
    return [f"results/{experiment}/{table_name(experiment)}.md", f"results/{experiment}/comparison.md"]



rule fit:
    input:
        data=lambda wc: data_file(wc.dataset),
        splits=lambda wc: split_file(wc.dataset, wc.m),
    output:
        "results/{experiment}/{dataset}/m{m}/{method}/split{split}.h5",
    log:
        "logs/fit/{experiment}/{dataset}/m{m}/{method}/split{split}.log",
    params:
        job=lambda wc: job_config(config, wc.experiment, wc.dataset, wc.method),
    threads: config.get("threads", 1)
    wildcard_constraints:
        experiment=NAME_PATTERN,
        method=NAME_PATTERN,
        split=r"\d+",
    conda:
        "../envs/locproj.yaml"
    script:
        "../scripts/run_job.py"


for _experiment in config.get("experiments", {}):
    _out = f"results/{_experiment}"

    rule:
        name:
            f"aggregate_{_experiment}"
        input:
            experiment_results(_experiment),
        output:
            tables=multiext(f"{_out}/{table_name(_experiment)}", ".csv", ".md", ".tex"),
            comparison=multiext(f"{_out}/comparison", ".csv", ".md"),
            figures=directory(f"{_out}/figures"),
        log:
            f"logs/aggregate/{_experiment}.log",
        params:
            spec=config["experiments"][_experiment],
        conda:
            "../envs/locproj.yaml"
        script:
            "../scripts/aggregate.py"

    rule:
        name:
            _experiment
        input:
            experiment_outputs(_experiment),
        default_target: False
