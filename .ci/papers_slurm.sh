#!/usr/bin/env bash
# `papers` through SLURM: run `papers` on the smoke-sized configs (config/papers_smoke.yaml) once locally
# and once through the local single-node SLURM cluster (.ci/slurm-local.sh), each into its own
# directory, and compare every table they write (*.csv, *.md, *.tex) and metadata.yaml byte for
# byte. Exits non-zero on any difference, a missing file or a failed run. Not part of .ci/run (its
# time budget); docs/slurm.md, "papers through SLURM", has the command and the measured times.
#
#   bash .ci/papers_slurm.sh            # run as root from anywhere, after .ci/run's install
#
# Not compared: figures (png/pdf) and timing.csv/.md (the matrix's measured fit and CV seconds, the
# one output documented to differ between reruns: locproj.protocols.ranks). Data preparation runs
# first, outside both timed runs; the split files (results/splits) are shared by both.
# The runs write results/<experiment>/ for the experiments of `papers` (the names of the full
# experiments), so the script refuses to start while any of them exists, and moves each run's
# outputs to results-papers-local/ and results-papers-slurm/.
set -euo pipefail
cd "$(dirname "$0")/.."
MIRROR=${LOCPROJ_DATA_MIRROR:-../shared/datasets}
SNAKEMAKE=${SNAKEMAKE:-.venv/bin/snakemake}
PYTHON=${PYTHON:-.venv/bin/python}
LOCAL=results-papers-local
SLURM=results-papers-slurm
RUN=(papers --configfile config/papers_smoke.yaml --config data_mirror="$MIRROR")
step() { printf '\n=== %s (%(%H:%M:%S)T)\n' "$*" -1; }
fail() { echo "papers_slurm FAILURE: $*" >&2; exit 1; }

# the experiments of `papers`: the same names with and without the overlay
mapfile -t EXPERIMENTS < <("$PYTHON" - <<'PY'
from locproj.engine.config import expand_targets
from locproj.engine.config_files import load_config
config = load_config()
print("\n".join(expand_targets(config["targets"], config["experiments"])["papers"]))
PY
)
[ "${#EXPERIMENTS[@]}" -gt 0 ] || fail "no experiments in the papers target"
for name in "${EXPERIMENTS[@]}"; do
    [ ! -e "results/$name" ] || fail "results/$name exists: move it away first (this script would compare it, not a fresh run)"
done

move_results() {   # results/<experiment> of papers -> $1/<experiment>
    rm -rf "$1" && mkdir -p "$1"
    for name in "${EXPERIMENTS[@]}"; do
        [ -d "results/$name" ] || fail "the run wrote no results/$name"
        mv "results/$name" "$1/$name"
    done
}

step "data for the smoke-sized papers (not timed)"
"$SNAKEMAKE" --cores 2 "${RUN[0]}" --until fetch prepare derive_view "${RUN[@]:1}"

step "papers, smoke-sized, local (--cores 2)"
start=$SECONDS
"$SNAKEMAKE" --cores 2 "${RUN[@]}"
local_seconds=$((SECONDS - start))
move_results "$LOCAL"

step "papers, smoke-sized, through SLURM (profiles/slurm-local)"
bash .ci/slurm-local.sh start
trap 'bash .ci/slurm-local.sh stop' EXIT
start=$SECONDS
"$SNAKEMAKE" --workflow-profile profiles/slurm-local "${RUN[@]}"
slurm_seconds=$((SECONDS - start))
move_results "$SLURM"
bash .ci/slurm-local.sh stop
trap - EXIT

step "compare every table (*.csv, *.md, *.tex) and metadata.yaml"
list() { (cd "$1" && find . -type f \( -name '*.csv' -o -name '*.md' -o -name '*.tex' -o -name metadata.yaml \) \
    ! -name 'timing.*' | LC_ALL=C sort); }
if ! diff <(list "$LOCAL") <(list "$SLURM"); then
    fail "the two runs wrote different sets of tables (< local, > SLURM)"
fi
mapfile -t FILES < <(list "$LOCAL")
[ "${#FILES[@]}" -gt 0 ] || fail "no tables to compare"
differ=0
for file in "${FILES[@]}"; do
    cmp -s "$LOCAL/$file" "$SLURM/$file" || { echo "differs: $file"; differ=$((differ + 1)); }
done
printf 'local run %d min %02d s, SLURM run %d min %02d s (wall)\n' \
    $((local_seconds / 60)) $((local_seconds % 60)) $((slurm_seconds / 60)) $((slurm_seconds % 60))
[ "$differ" -eq 0 ] || fail "$differ of ${#FILES[@]} files differ between the local and the SLURM run"
tables=$(printf '%s\n' "${FILES[@]}" | grep -vc '/metadata\.yaml$' || true)
echo "all ${#FILES[@]} files ($tables tables and $((${#FILES[@]} - tables)) metadata.yaml) of ${#EXPERIMENTS[@]} experiments" \
    "are byte-identical between the local and the SLURM run"
