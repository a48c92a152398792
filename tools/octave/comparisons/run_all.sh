#!/bin/sh
# Run every comparison script of this folder, one after the other, single-threaded and niced, and write
# each one's printed output to OUTDIR/<script>.txt (README.md):
#
#   MATLABFUNC=/path/to/MatlabFunc [LFDA_M=...] [KGE_PATCHED=...] [KGE_PARTIAL=...] [OLGE_DIAG=...] \
#   PYTHON=.venv/bin/python tools/octave/comparisons/run_all.sh [OUTDIR]
#
# OUTDIR defaults to a new temporary folder; the exit status is 1 when a script failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-python}
out=${1:-$(mktemp -d "${TMPDIR:-/tmp}/locproj-comparisons-out.XXXXXX")}
if [ -z "${MATLABFUNC:-}" ]; then
  echo "MATLABFUNC is not set: point it at a checkout of github.com/ZJULearning/MatlabFunc" \
       "(commit 97504df0f597c1980ab76ddc0c9c5d669043c6c9)" >&2
  exit 2
fi
if ! command -v octave > /dev/null; then
  echo "octave is not on PATH (Debian: apt-get install octave)" >&2
  exit 2
fi
mkdir -p "$out"
# the reference outputs were made on one thread: more threads can move the last digits
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}" OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}" \
       MKL_NUM_THREADS="${MKL_NUM_THREADS:-1}"
export PYTHONDONTWRITEBYTECODE=1  # no __pycache__ beside the scripts
status=0
for s in graphs graphs_ties spectra lpp_compare lpp_departures lpp_cluster_order olpp_compare olpp_departures \
         klpp_compare klpp_departures npe_compare npe_extra npe_k0_check npe_auto lsda_compare lsda_extra \
         srda_compare srda_lsqr lfda_compare lfda_dn lfda_raw_nn lfda_eigs; do
  echo "== $s" >&2
  if ! nice -n 10 "$python" "$here/$s.py" > "$out/$s.txt" 2>&1; then
    echo "   $s failed: see $out/$s.txt" >&2
    status=1
  fi
done
echo "outputs in $out" >&2
exit $status
