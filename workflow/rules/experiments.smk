# Experiments, through their protocol (locproj.protocols; the engine is locproj.experiments): each
# experiment's job rules as its protocol gives them (one job per block of splits, block of r values
# or panel), then one aggregation per experiment and a target rule asking for what it writes.
#
# A job's params carry the digest of the code it runs (`code`: locproj.engine.code_digests), and the
# profiles rerun a job when its params, input, mtime or software environment change, not when the
# text of its rule does: so one loop defines every job rule, whatever its script. The script is read
# from the loop's job when the rule is defined, and from the rule itself when its job runs, since
# the loop's variable holds the last job by then (job_script).
#
# Each job's estimated seconds (None where the cost model has none) feed the run's predicted wall
# time (common.smk, onstart).
JOB_SECONDS = {}
for _job in [j for e in EXPERIMENTS for j in job_rules(config, e, scripts=SCRIPTS)]:
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


for _experiment, _spec in EXPERIMENTS.items():

    rule:
        name:
            f"aggregate_{_experiment}"
        input:
            unpack(lambda wc, e=_experiment: aggregation_inputs(config, e)),
        output:
            **aggregate_outputs(_experiment),
        log:
            f"logs/aggregate/{_experiment}.log",
        conda:
            "../envs/locproj.yaml"
        resources:
            **job_resources(config, mem_mb=2000, runtime=30),
        params:
            spec=_spec,
            seed=config["seed"],
            notes=experiment_notes(config, _experiment),
            code=aggregation_code(config, _experiment, SCRIPTS),
        script:
            "../scripts/aggregate.py"

    rule:
        name:
            _experiment
        default_target: False
        input:
            target_outputs(_experiment),


# A paper's fidelity figure: its published numbers against ours, from the comparison.csv of each
# of its experiments, read by its protocol (locproj.experiments.paper_fidelity); the first section of the paper's report page
# (subcategories are listed alphabetically: "fidelity" before the experiments' names).
for _paper, _comparisons in FIDELITY.items():

    rule:
        name:
            f"fidelity_{_paper}"
        input:
            **_comparisons,
        output:
            png=report(
                f"results/{_paper}/fidelity.png",
                caption="../report/fidelity.rst",
                category=_paper,
                subcategory="fidelity",
            ),
            pdf=f"results/{_paper}/fidelity.pdf",
        log:
            f"logs/fidelity/{_paper}.log",
        conda:
            "../envs/locproj.yaml"
        resources:
            **job_resources(config, mem_mb=1000, runtime=10),
        params:
            title=paper_title(_paper),
            notes={e: experiment_notes(config, e) for e in _comparisons},
            protocols=experiment_protocols(config, _comparisons),
        script:
            "../scripts/fidelity.py"


# A target per paper (config `targets`): every experiment it names, and every experiment of the
# targets it names (`papers`: all of them; TARGETS, locproj.engine.config.expand_targets), with the
# papers' fidelity figures. A target named after its one experiment (matrix: [matrix]) is that
# experiment's own rule above.
for _target, _experiments in TARGETS.items():
    if _target in EXPERIMENTS:
        continue

    rule:
        name:
            _target
        default_target: False
        input:
            [path for e in _experiments for path in target_outputs(e)],
            fidelity_figures(_target),
