#!/usr/bin/env bash
# Voxel-time-steps per second of volumetric_parcels' smooth random field (noise on the padded grid, Gaussian
# smoothing along x, y, z, AR(1) update): loci's C++ (1 and 2 threads) beside the numpy/scipy reference
# (bench/reference/parcels_reference.py, both of its methods) in the same invocation, as a markdown table, for a
# 4 mm brain box (36 x 44 x 32) and a 2 mm one (80 x 95 x 80, the size of AAL's brain), FWHM 12 mm. Every
# configuration runs 3 times and keeps its best; ratios are to the fastest numpy method. Besides wall-clock rates it
# reports rates per CPU-second (all threads counted), which a machine shared with other work disturbs far less.
# OpenMP threads wait passively: on a shared machine, threads spinning at every barrier of a step waste the CPU
# that the other thread needs. Builds nothing: point BUILD_DIR at a build tree that has bench_parcels.
#
#   BUILD_DIR=build bench/parcels/run.sh [cpp_steps] [numpy_steps]     (for the 4 mm box; a tenth for 2 mm)
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../run_helpers.sh"  # root, bench_binary, field, ...
bench="$(bench_binary bench_parcels)"
cpp_steps="${1:-400}"
py_steps="${2:-40}"
python=/usr/bin/python3
reference="$root/bench/reference/parcels_reference.py"
export OMP_WAIT_POLICY=passive

echo "| grid | implementation | threads | M voxel-steps/s | vs numpy | M voxel-steps per CPU-s | vs numpy, per CPU-s |"
echo "|---|---|---:|---:|---:|---:|---:|"
for size in "36,44,32 4 1" "80,95,80 2 10"; do
  read -r dims voxel divide <<<"$size"
  c_steps=$((cpp_steps / divide)) p_steps=$(( (py_steps + divide - 1) / divide ))
  declare -A wall=() cpu=()
  fastest=0 fastest_cpu=0
  for method in valid filter; do
    line="$(for rep in 1 2 3; do
      "$python" "$reference" --dims "$dims" --voxel "$voxel" --fwhm 12 --steps "$p_steps" --method "$method"
    done | best voxel_steps_per_s)"
    wall[$method]="$(field voxel_steps_per_s <<<"$line")"
    cpu[$method]="$(field cpu_voxel_steps_per_s <<<"$line")"
    fastest="$(max "${wall[$method]}" "$fastest")"
    fastest_cpu="$(max "${cpu[$method]}" "$fastest_cpu")"
  done
  digests=()
  grid="${dims//,/ x } at $voxel mm"
  for threads in 1 2; do
    line="$(for rep in 1 2 3; do
      "$bench" --dims "$dims" --voxel "$voxel" --fwhm 12 --steps "$c_steps" --threads "$threads"
    done | best voxel_steps_per_s)"
    w="$(field voxel_steps_per_s <<<"$line")"
    c="$(field cpu_voxel_steps_per_s <<<"$line")"
    digests+=("$(field digest <<<"$line")")
    echo "| $grid | C++ loci_sim | $threads | $(mega "$w" 1) | $(ratio "$w" "$fastest") | $(mega "$c" 1) |" \
      "$(ratio "$c" "$fastest_cpu") |"
  done
  for method in valid filter; do
    what="numpy/scipy, correlate1d per axis"
    [[ "$method" == filter ]] && what="numpy/scipy, gaussian_filter"
    echo "| $grid | $what | 1 | $(mega "${wall[$method]}" 1) | $(ratio "${wall[$method]}" "$fastest") |" \
      "$(mega "${cpu[$method]}" 1) | $(ratio "${cpu[$method]}" "$fastest_cpu") |"
  done
  unset wall cpu
  if [[ "${digests[0]}" != "${digests[1]}" ]]; then
    echo "error: $dims: 1 and 2 threads gave different fields (${digests[*]})" >&2
    exit 1
  fi
done

echo
echo "$(nproc) cores, $(uname -m), $("$python" --version 2>&1), numpy $("$python" -c 'import numpy; print(numpy.__version__)')," \
  "scipy $("$python" -c 'import scipy; print(scipy.__version__)'); C++ $cpp_steps steps (4 mm) and $((cpp_steps / 10)) (2 mm)," \
  "the same field with 1 and 2 threads; numpy $py_steps and $(( (py_steps + 9) / 10 )) steps; best of 3;" \
  "load average before: $(cut -d' ' -f1-3 /proc/loadavg)."
echo "Command: BUILD_DIR=${bench%/bin/*} bench/parcels/run.sh $cpp_steps $py_steps"
