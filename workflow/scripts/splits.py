from locproj.data import make_splits, read_dataset_file, write_splits
from locproj.workflow import run_rule


def main(smk):
    data = read_dataset_file(smk.input[0])
    m = int(smk.wildcards.m) if "m" in smk.wildcards.keys() else None
    mode = "per_class" if m is not None else "holdout"
    name = smk.wildcards.name
    train, test, folds, attrs = make_splits(data.y, mode, m, smk.params.n_splits, smk.params.seed, name, data.class_names)
    write_splits(smk.output[0], train, test, attrs, folds)


run_rule(snakemake, main)
