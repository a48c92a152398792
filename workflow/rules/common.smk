# Config validation and the small input functions the other rule files use.
import atexit
import os
import sys
import time
from pathlib import Path

from snakemake.logging import logger


from locproj.data.checks import check_dataset_options, check_local_datasets
from locproj.data.sources import local_files
from locproj.engine.config import (
    NAME_PATTERN,
    data_file,
    expand_targets,
    paper_targets,
    one_of,
    papers_within,
    partition_key,
    replace_experiments,
    report_categories,
    rule_targets,
    SPLIT_LAYOUT_PATTERN,
    split_layout,
    split_path,
)
from locproj.engine import planning
from locproj.engine.job_costs import RunPlan
from locproj.engine.resources import job_resources
from locproj.errors import UserError, user_error_message
from locproj.workflow import (
    checked_once,
    drop_local_rate_limiter,
    report_progress,
    validate_config,
)
from locproj.report.fidelity import paper_title
from locproj.experiments import (
    aggregation_code,
    aggregation_inputs,
    aggregation_kinds,
    failure_summary,
    comparison_outputs,
    check_experiments,
    experiment_notes,
    experiment_outputs,
    experiment_protocols,
    job_kinds,
)

SCHEMA = Path(workflow.basedir) / "workflow" / "schemas" / "config.schema.yaml"


def check_config(config):
    """Dataset keys, so that an unknown key is named with the keys its format takes; the schema
    completed from the code (protocol, classifier names and each protocol's keys), filling in its
    defaults; the experiments; last, the contents of each local `path:` dataset (labels, numeric
    features, class sizes against every m)."""
    check_dataset_options(config)
    validate_config(config, SCHEMA)
    check_experiments(config)
    check_local_datasets(config)


def planning_inputs(config):
    """The files that checking the config and planning its jobs read besides the config and locproj:
    the schema, each local dataset's files, the users' method files (`method_paths`) and the job
    scripts."""
    datasets = [
        path
        for spec in config.get("datasets", {}).values()
        if "path" in spec
        for path in local_files(spec)
    ]
    methods = [
        path
        for folder in config["method_paths"]
        for path in sorted(Path(folder).glob("*.py"))
    ]
    scripts = sorted((Path(workflow.basedir) / "workflow" / "scripts").glob("*.py"))
    return [SCHEMA, *datasets, *methods, *scripts]


PLANNING_CACHE = ".snakemake/locproj/checked"


# an overlay's `replace_experiments` first (it replaces whole experiments, which a merged
# --configfile cannot), so that the replacements are validated and checked like any experiment;
# then the checks (check_config). A mistake in the config or data (a UserError) is printed as its
# message alone, no traceback.
try:
    replace_experiments(config)
    # a method entry's `estimator: module:Class` is looked for as module.py in these folders first:
    # by default beside each config file given, then in the working directory
    config.setdefault(
        "method_paths",
        list(
            dict.fromkeys(
                [os.path.relpath(Path(f).parent) for f in workflow.configfiles] + ["."]
            )
        ),
    )
    # each config is checked once: the checks' outcome is kept under its digest (with the code's and
    # the files'), so that a dry run or a rerun of the same config starts at once; so are the values
    # that planning its jobs computes (their costs, their code digests: locproj.engine.planning)
    CONFIG_DIGEST = checked_once(
        config, check_config, planning_inputs(config), PLANNING_CACHE
    )
    planning.use(Path(PLANNING_CACHE) / f"{CONFIG_DIGEST}.planned.pickle")
    atexit.register(planning.save)
    # target -> its experiments, targets naming targets expanded (`papers`); an unknown name or a
    # cycle fails here, before any job runs
    TARGETS = expand_targets(config.get("targets", {}), config.get("experiments", {}))
except UserError as error:
    raise SystemExit(user_error_message(error))

# the job scripts, whose code is part of each job's code digest (locproj.experiments.job_code)
SCRIPTS = Path(workflow.basedir) / "workflow" / "scripts"
DATASETS = config["datasets"]
VIEWS = config.get("views", {})
MIRROR = config.get("data_mirror")
PARTITION_PATTERN = r"m\d+|f0\.\d+"  # m5: 5 per class; f0.25: a quarter of each class


wildcard_constraints:
    dataset=NAME_PATTERN,
    view=NAME_PATTERN,
    partition=PARTITION_PATTERN,


def dataset_files(name):
    return [f["name"] for f in DATASETS[name].get("files", [])]


def file_spec(dataset, name):
    return next(f for f in DATASETS[dataset]["files"] if f["name"] == name)


def raw_paths(wildcards):
    """The files a dataset is prepared from: fetched ones, or a local `path:` (a folder's files)."""
    if "path" in DATASETS[wildcards.dataset]:
        return local_files(DATASETS[wildcards.dataset])
    return [
        f"data/raw/{wildcards.dataset}/{name}"
        for name in dataset_files(wildcards.dataset)
    ]


def available_offline(name):
    """True when no download is needed: no files, or all of them in the data mirror."""
    files = dataset_files(name)
    return not files or (
        MIRROR is not None and all((Path(MIRROR) / f).is_file() for f in files)
    )


def buildable_datasets():
    """With a mirror: every dataset it can build. Without: every non-optional dataset."""
    if MIRROR is not None:
        return [name for name in DATASETS if available_offline(name)]
    return [name for name, spec in DATASETS.items() if not spec.get("optional", False)]


def split_targets():
    """The split files of `split_targets` (name -> its training sizes, a count per class or a fraction
    of each class, or `holdout`, the LPK split)."""
    return [
        split_path(config, name, size if size == "holdout" else partition_key(size))
        for name, sizes in config.get("split_targets", {}).items()
        for size in sizes
    ]


def all_targets():
    return [data_file(config, name) for name in buildable_datasets()] + split_targets()


EXPERIMENTS = config.get("experiments", {})
# experiment -> its report page: its paper's target (`lea_paper`, ...), else its own name
REPORT_CATEGORIES = report_categories(config.get("targets", {}), EXPERIMENTS)


def target_outputs(experiment):
    """The files an experiment's target asks for (its aggregation writes them all)."""
    return [
        output.path
        for output in experiment_outputs(EXPERIMENTS[experiment], experiment)
        if output.target
    ]


# paper target -> experiment -> its comparison.csv, for the papers with published numbers; each
# such target also draws its fidelity figure (published against ours), first on its report page
FIDELITY = {
    paper: comparisons
    for paper, experiments in paper_targets(
        config.get("targets", {}), EXPERIMENTS
    ).items()
    if (comparisons := comparison_outputs(config, experiments))
}


def fidelity_figures(target):
    """The fidelity figures a target asks for: its own, or those of the papers it names (`papers`)."""
    return [
        f"results/{paper}/fidelity.png"
        for paper in papers_within(config.get("targets", {}), EXPERIMENTS).get(
            target, []
        )
        if paper in FIDELITY
    ]


def experiment_name(experiments):
    """What names the experiment in the paths of the rule of `experiments` (the wildcard
    `{experiment}`, or the name of the one experiment), so that the outputs of the rule of one
    experiment compete with no other rule's, as they did before rules were kinds."""
    return "{experiment}" if len(experiments) > 1 else experiments[0]


def experiment_of(wildcards, experiments):
    """The experiment of a job of a rule for `experiments` (experiment_name)."""
    return wildcards.get("experiment", experiments[0])


def aggregate_outputs(experiments):
    """The named outputs of the aggregation rule of `experiments`, one kind
    (locproj.experiments.aggregation_kinds; locproj.protocols.base.Output). In the report they sit
    on their paper's page (REPORT_CATEGORIES), under the experiment's name.
    """
    name = experiment_name(experiments)
    page = dict(
        category=lambda wc: REPORT_CATEGORIES[experiment_of(wc, experiments)],
        subcategory=name,
    )
    outputs = {}
    for output in experiment_outputs(EXPERIMENTS[experiments[0]], name):
        path = directory(output.path) if output.folder else output.path
        if output.caption is None:
            outputs[output.name] = path
        elif output.folder:
            outputs[output.name] = report(
                path, patterns=["{name}.png"], caption=output.caption, **page
            )
        else:
            outputs[output.name] = report(path, caption=output.caption, **page)
    return outputs


def job_script(scope):
    """The script of a rule of experiments.smk's loop over other job scripts. While the rule is
    defined, `scope` holds the module's names: the loop's job (`_job`) gives it, relative to the
    rules (workflow/scripts) or absolute. When its job runs, `scope` holds the job function's
    arguments, `rule` the rule's name: the rule gives the script it recorded then."""
    if "rule" in scope:
        return workflow.get_rule(scope["rule"]).script
    script = scope["_job"].script
    return script if os.path.isabs(script) else f"../scripts/{script}"


def run_plan():
    """The predicted wall time of the jobs this run will run: each at its rule's estimate
    (JOB_SECONDS, experiments.smk), on the local cores over the jobs' threads or on the cluster's
    `--jobs` (locproj.engine.job_costs.RunPlan)."""
    slots = (
        workflow.resource_settings.cores // max(1, config.get("threads", 1))
        if workflow.local_exec
        else workflow.resource_settings.nodes
    )
    jobs, seconds = list(workflow.dag.needrun_jobs()), []
    for job in jobs:
        estimate = JOB_SECONDS.get(job.rule.name)
        seconds.append(estimate(job.wildcards) if callable(estimate) else estimate)
    return RunPlan(seconds, slots or 1, time.time()), jobs


RUN_PLAN, PROGRESS = [], []


# a local run's scheduler plans when a job finishes, not on ever more rate-limit timers
# (locproj.workflow.drop_local_rate_limiter); the run's predicted wall time, in its log, and its
# remaining time every `progress_seconds` (from the pace of the jobs done: locproj.workflow.report_progress)
onstart:
    drop_local_rate_limiter(workflow)
    plan, jobs = run_plan()
    RUN_PLAN.append(plan)
    logger.info(plan.start_message())
    PROGRESS.append(
        report_progress(
            workflow, plan, jobs, config["progress_seconds"], logger.info
        )
    )


# the run ends with its wall time against the prediction, and one list of the cells whose method
# failed (on_error: record; the tables mark them)
onsuccess:
    for stop in PROGRESS:
        stop.set()
    if RUN_PLAN:
        logger.info(RUN_PLAN[-1].end_message(time.time()))
    failures = failure_summary(config)
    if failures:
        print(failures, file=sys.stderr)


onerror:
    for stop in PROGRESS:
        stop.set()
