#!/usr/bin/env bash
# Results must not move under a refactoring: run the three reference workflows — `demo`, `smoke` and
# `papers_smoke` (the `papers` target on config/papers_smoke.yaml) — one after the other in a fresh
# clone of a commit, then fingerprint everything they wrote under results/ (.ci/fingerprint.py).
# Two commits whose fingerprints are equal computed the same results, to the byte.
#
#   bash .ci/fingerprint_runs.sh COMMIT OUT_DIR     # writes OUT_DIR/fingerprint.tsv and OUT_DIR/run.log
#
# The clone runs with the repository's .venv and the clone's own src/ first on PYTHONPATH, so the
# commit's code is what runs. Data are read from the mirror (LOCPROJ_DATA_MIRROR, default
# ../shared/datasets); the demo needs none.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
COMMIT=${1:?usage: fingerprint_runs.sh COMMIT OUT_DIR}
OUT=$(mkdir -p "${2:?usage: fingerprint_runs.sh COMMIT OUT_DIR}" && cd "$2" && pwd)
MIRROR=$(realpath "${LOCPROJ_DATA_MIRROR:-../shared/datasets}")
PYTHON=${PYTHON:-$REPO/.venv/bin/python}
CLONE="$OUT/clone"
rm -rf "$CLONE"
git clone --quiet "$REPO" "$CLONE"
git -C "$CLONE" checkout --quiet "$COMMIT"
cd "$CLONE"
export PYTHONPATH="$CLONE/src"
run() { echo "=== $* ($(date +%T))"; "$PYTHON" -m snakemake --cores 2 "$@"; }
{
    run demo --configfile config/demo.yaml
    run smoke --configfile config/smoke.yaml --config data_mirror="$MIRROR"
    run papers --configfile config/papers_smoke.yaml --config data_mirror="$MIRROR"
    echo "=== done ($(date +%T))"
} > "$OUT/run.log" 2>&1
"$PYTHON" "$REPO/.ci/fingerprint.py" results > "$OUT/fingerprint.tsv"
echo "$(wc -l < "$OUT/fingerprint.tsv") entries in $OUT/fingerprint.tsv"
