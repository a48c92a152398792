# Experiments by protocol (locproj.protocols). The split protocols (cv_table, dimension_curve,
# train_test_curve) have one job per (experiment, dataset, partition, method, block of splits), one
# result file per split; an embedding experiment has one job per panel. Then one aggregation per
# experiment. A block's rule is defined per experiment so that its outputs can name its splits.
for _experiment, _spec in EXPERIMENTS.items():
    if protocol_of(_spec) not in SPLIT_PROTOCOLS or holdout_protocol(_spec):
        continue
    for _splits in split_blocks(config, _experiment):
        _block = f"splits{_splits[0]:02d}-{_splits[-1]:02d}"

        rule:
            name:
                f"fit_{_experiment}_{_block}"
            input:
                data=lambda wc: data_file(wc.dataset),
                splits=lambda wc, e=_experiment: split_path(
                    config, wc.dataset, wc.partition, n_splits(config, e)
                ),
            output:
                [
                    result_path(_experiment, "{dataset}", "{partition}", "{method}", s)
                    for s in _splits
                ],
            log:
                f"logs/fit/{_experiment}/{{dataset}}/{{partition}}/{{method}}/{_block}.log",
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


# holdout_curve (paper 002's Figs. 8-10): one job per (dataset, method entry, block of r values) on
# the LPK split (results/splits/{dataset}_holdout.h5), one file per job
for _experiment, _spec in EXPERIMENTS.items():
    if protocol_of(_spec) != "holdout_curve":
        continue
    for _method in _spec["methods"]:
        for _block in holdout.value_blocks(_spec, _method):

            rule:
                name:
                    f"fit_{_experiment}_{_method}_{holdout.block_name(_block)}"
                input:
                    data=lambda wc: data_file(wc.dataset),
                    splits=lambda wc, e=_experiment: split_path(
                        config,
                        wc.dataset,
                        "holdout",
                        by_group=EXPERIMENTS[e].get("by_group"),
                    ),
                output:
                    holdout.result_path(_experiment, "{dataset}", _method, _block),
                log:
                    f"logs/fit/{_experiment}/{{dataset}}/holdout/{_method}/{holdout.block_name(_block)}.log",
                # GPK/LPK jobs (minutes) first, so that the short projection jobs fill the gaps
                priority: holdout.job_priority(_spec, _method)
                conda:
                    "../envs/locproj.yaml"
                threads: config.get("threads", 1)
                resources:
                    # an LPK r on USPS (50 fits, C = 100 the slowest): up to a few minutes
                    mem_mb=1500,
                    runtime=lambda wc, block=_block: 10 + 5 * len(block),
                params:
                    job=lambda wc, e=_experiment, m=_method, b=_block: job_config(
                        config, e, wc.dataset, m, b
                    ),
                    splits=[0],
                script:
                    "../scripts/run_job.py"


for _experiment, _spec in EXPERIMENTS.items():
    if protocol_of(_spec) != "embedding":
        continue

    rule:
        name:
            f"embed_{_experiment}"
        input:
            lambda wc, s=_spec: data_file(s["panels"][wc.panel]["dataset"]),
        output:
            f"results/{_experiment}/panels/{{panel}}.h5",
        log:
            f"logs/embed/{_experiment}/{{panel}}.log",
        wildcard_constraints:
            panel=NAME_PATTERN,
        conda:
            "../envs/locproj.yaml"
        threads: config.get("threads", 1)
        resources:
            mem_mb=2000,
            runtime=10,
        params:
            panel=lambda wc, s=_spec: s["panels"][wc.panel],
            seed=config["seed"],
        script:
            "../scripts/embed_panel.py"


CAPTIONS = {  # protocol -> (table caption, figures caption)
    "cv_table": ("../report/table.rst", "../report/figures.rst"),
    "dimension_curve": ("../report/table_curve.rst", "../report/figures_curve.rst"),
    "train_test_curve": (
        "../report/table_train_test.rst",
        "../report/figures_train_test.rst",
    ),
    "holdout_curve": ("../report/table_holdout.rst", "../report/figures_holdout.rst"),
    "embedding": (None, "../report/figures_embedding.rst"),
}

CURVES_CAPTIONS = {
    "dimension_curve": "../report/curves.rst",
    "train_test_curve": "../report/curves_train_test.rst",
    "holdout_curve": "../report/curves_holdout.rst",
}


def aggregate_outputs(experiment):
    """The named outputs of an experiment's aggregation, by protocol. In the report they sit on
    their paper's page (REPORT_CATEGORIES), under the experiment's name."""
    out = f"results/{experiment}"
    page = dict(category=REPORT_CATEGORIES[experiment], subcategory=experiment)
    table_caption, figures_caption = CAPTIONS[protocol_of(EXPERIMENTS[experiment])]
    common = dict(
        figures=report(
            directory(f"{out}/figures"),
            patterns=["{name}.png"],
            caption=figures_caption,
            **page,
        ),
        metadata=report(
            f"{out}/metadata.yaml", caption="../report/metadata.rst", **page
        ),
    )
    if protocol_of(EXPERIMENTS[experiment]) == "embedding":
        return dict(
            checks_csv=report(
                f"{out}/checks.csv", caption="../report/checks.rst", **page
            ),
            checks_md=f"{out}/checks.md",
            **(
                dict(
                    comparison_csv=report(
                        f"{out}/comparison.csv",
                        caption="../report/comparison.rst",
                        **page,
                    ),
                    comparison_md=f"{out}/comparison.md",
                )
                if EXPERIMENTS[experiment].get("published")
                else {}
            ),
            **common,
        )
    table = f"{out}/{table_name(experiment)}"
    outputs = dict(
        table_csv=report(f"{table}.csv", caption=table_caption, **page),
        table_md=f"{table}.md",
        table_tex=f"{table}.tex",
        comparison_csv=report(
            f"{out}/comparison.csv",
            caption="../report/comparison.rst",
            **page,
        ),
        comparison_md=f"{out}/comparison.md",
        **common,
    )
    if EXPERIMENTS[experiment].get("ranks"):
        outputs.update(
            ranks_csv=report(f"{out}/ranks.csv", caption="../report/ranks.rst", **page),
            ranks_md=f"{out}/ranks.md",
            friedman_md=f"{out}/friedman.md",
            timing_csv=report(
                f"{out}/timing.csv", caption="../report/timing.rst", **page
            ),
            timing_md=f"{out}/timing.md",
        )
    if protocol_of(EXPERIMENTS[experiment]) in CURVES_CAPTIONS:
        outputs["curves"] = report(
            f"{out}/curves.csv",
            caption=CURVES_CAPTIONS[protocol_of(EXPERIMENTS[experiment])],
            **page,
        )
    return outputs


for _experiment, _spec in EXPERIMENTS.items():
    _embedding = protocol_of(_spec) == "embedding"

    rule:
        name:
            f"aggregate_{_experiment}"
        input:
            [] if _embedding else experiment_results(_experiment),
            **(panel_results(_experiment) if _embedding else {}),
        output:
            **aggregate_outputs(_experiment),
        log:
            f"logs/aggregate/{_experiment}.log",
        conda:
            "../envs/locproj.yaml"
        params:
            spec=_spec,
            seed=config["seed"],
            notes=experiment_notes(config, _experiment),
        script:
            "../scripts/aggregate.py"

    rule:
        name:
            _experiment
        default_target: False
        input:
            experiment_outputs(_experiment),


# A target per paper (config `targets`): every experiment it names, and every experiment of the
# targets it names (`papers`: all of them; TARGETS, locproj.experiments.expand_targets). A target
# named after its one experiment (matrix: [matrix]) is that experiment's own rule above.
for _target, _experiments in TARGETS.items():
    if _target in EXPERIMENTS:
        continue

    rule:
        name:
            _target
        default_target: False
        input:
            [path for e in _experiments for path in experiment_outputs(e)],
