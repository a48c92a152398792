# Experiments, through their protocol (locproj.protocols; the engine is locproj.experiments): one
# rule per kind of job (a block of splits of one shape, a block of r values, a panel), with the
# experiment among its wildcards (locproj.experiments.job_kinds), then one aggregation rule per
# kind of experiment (those of one protocol whose outputs have the same paths).
#
# A job's params carry the digest of the code it runs (`code`: locproj.engine.code_digests), and the
# profiles rerun a job when its params, input, mtime or software environment change, not when the
# text of its rule does: so one loop defines every job rule, whatever its script. The script is read
# from the loop's job when the rule is defined, and from the rule itself when its job runs, since
# the loop's variable holds the last job by then (job_script).
#
# Each job's estimated seconds (None where the cost model has none) feed the run's predicted wall
# time (common.smk, onstart) and its priority: the longest jobs start first.
JOB_SECONDS = {}
for _job in job_kinds(config, EXPERIMENTS, scripts=SCRIPTS):
    JOB_SECONDS[_job.name] = _job.seconds

    rule:
        name:
            _job.name
        input:
            **_job.input,
        output:
            _job.output,
        log:
            _job.log,
        benchmark:
            _job.benchmark
        wildcard_constraints:
            **_job.wildcard_constraints,
        priority: _job.priority
        conda:
            "../envs/locproj.yaml"
        threads: config.get("threads", 1)
        resources:
            **job_resources(config, mem_mb=_job.mem_mb, runtime=_job.runtime),
        params:
            **_job.params,
        script:
            job_script(locals())


for _name, _experiments in aggregation_kinds(config, EXPERIMENTS).items():

    rule:
        name:
            _name
        input:
            unpack(
                lambda wc, es=_experiments: aggregation_inputs(
                    config, experiment_of(wc, es)
                )
            ),
        output:
            **aggregate_outputs(_experiments),
        log:
            f"logs/aggregate/{experiment_name(_experiments)}.log",
        wildcard_constraints:
            experiment=one_of(_experiments),
        conda:
            "../envs/locproj.yaml"
        resources:
            **job_resources(config, mem_mb=2000, runtime=30),
        params:
            spec=lambda wc, es=_experiments: EXPERIMENTS[experiment_of(wc, es)],
            seed=config["seed"],
            notes=lambda wc, es=_experiments: experiment_notes(
                config, experiment_of(wc, es)
            ),
            code=lambda wc, es=_experiments: aggregation_code(
                config, experiment_of(wc, es), SCRIPTS
            ),
        script:
            "../scripts/aggregate.py"


# A paper's fidelity figure: its published numbers against ours, from the comparison.csv of each
# of its experiments, read by its protocol (locproj.experiments.paper_fidelity); the first section
# of the paper's report page (subcategories are listed alphabetically: "fidelity" before the
# experiments' names).
if FIDELITY:

    rule fidelity:
        input:
            unpack(lambda wc: FIDELITY[wc.paper]),
        output:
            png=report(
                "results/{paper}/fidelity.png",
                caption="../report/fidelity.rst",
                category="{paper}",
                subcategory="fidelity",
            ),
            pdf="results/{paper}/fidelity.pdf",
        log:
            "logs/fidelity/{paper}.log",
        wildcard_constraints:
            paper=one_of(list(FIDELITY)),
        conda:
            "../envs/locproj.yaml"
        resources:
            **job_resources(config, mem_mb=1000, runtime=10),
        params:
            title=lambda wc: paper_title(wc.paper),
            notes=lambda wc: {
                e: experiment_notes(config, e) for e in FIDELITY[wc.paper]
            },
            protocols=lambda wc: experiment_protocols(config, FIDELITY[wc.paper]),
        script:
            "../scripts/fidelity.py"


# A target per paper (config `targets`): every experiment it names, and every experiment of the
# targets it names (`papers`: all of them; TARGETS, locproj.engine.config.expand_targets), with the
# papers' fidelity figures; and one per experiment that no target names (`demo`). An experiment of a
# paper is asked for by its paper's target, or by its files (`snakemake results/lpk_toy/checks.md`).
for _target, _experiments in rule_targets(TARGETS, EXPERIMENTS).items():

    rule:
        name:
            _target
        default_target: False
        input:
            [path for e in _experiments for path in target_outputs(e)],
            fidelity_figures(_target),
