from locproj.data import make_splits, read_dataset_file, write_splits
from locproj.experiments import partition_size
from locproj.workflow import run_rule


def main(smk):
    data = read_dataset_file(smk.input[0])
    layout = smk.params.layout
    partition = layout["partition"]
    mode, size = ("holdout", None) if partition == "holdout" else ("per_class", partition_size(partition))
    train, test, folds, attrs = make_splits(data.y, mode, size, layout["n_splits"], smk.params.seed,
                                            smk.wildcards.name, data.class_names, data.groups, layout["by_group"])
    write_splits(smk.output[0], train, test, attrs, folds)


run_rule(snakemake, main)
