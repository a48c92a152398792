from locproj.data import make_splits, read_dataset_file, write_splits
from locproj.experiments import partition_size
from locproj.workflow import run_rule


def main(smk):
    data = read_dataset_file(smk.input[0])
    partition = smk.wildcards.get("partition", "holdout")
    mode, size = ("holdout", None) if partition == "holdout" else ("per_class", partition_size(partition))
    by_group = smk.params.get("by_group")
    train, test, folds, attrs = make_splits(data.y, mode, size, smk.params.n_splits, smk.params.seed,
                                            smk.wildcards.name, data.class_names, data.groups, by_group)
    write_splits(smk.output[0], train, test, attrs, folds)


run_rule(snakemake, main)
