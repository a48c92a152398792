# Raw files → one verified HDF5 per dataset → derived views.


rule fetch:
    output:
        "data/raw/{dataset}/{file}",
    log:
        "logs/fetch/{dataset}/{file}.log",
    retries: 0
    localrule: True
    conda:
        "../envs/locproj.yaml"
    resources:
        **job_resources(config, mem_mb=500, runtime=30),
    params:
        spec=lambda wc: file_spec(wc.dataset, wc.file),
        mirror=MIRROR,
    script:
        "../scripts/fetch.py"


rule prepare:
    input:
        raw_paths,
    output:
        "data/processed/{dataset}.h5",
    log:
        "logs/prepare/{dataset}.log",
    conda:
        "../envs/locproj.yaml"
    resources:
        **job_resources(config, mem_mb=1000, runtime=5),
    params:
        spec=lambda wc: DATASETS[wc.dataset],
        seed=config["seed"],
    script:
        "../scripts/prepare.py"


rule derive_view:
    input:
        lambda wc: data_file(config, VIEWS[wc.view]["dataset"]),
    output:
        "data/views/{view}.h5",
    log:
        "logs/views/{view}.log",
    conda:
        "../envs/locproj.yaml"
    resources:
        **job_resources(config, mem_mb=1000, runtime=5),
    params:
        # a sampling view gets the master seed (others keep their parameters, so are not rerun)
        view=lambda wc: (
            {"seed": config["seed"], **VIEWS[wc.view]}
            if VIEWS[wc.view].get("sample")
            else VIEWS[wc.view]
        ),
    script:
        "../scripts/derive_view.py"


rule datasets:
    default_target: False
    input:
        [data_file(config, name) for name in buildable_datasets()],
