#!/usr/bin/env bash
# Installs every Debian package loci needs to build, run and test. Idempotent; run as root on Debian 12.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

packages=(
  build-essential cmake ninja-build pkg-config git
  # LibTorch links libblas.so.3; without the OpenMP OpenBLAS it resolves to the reference BLAS (~15x slower).
  libtorch-dev libopenblas0-openmp libblas-dev
  # Kernels generated for the exact shapes of the fused layers' small chunk products (models/kernels/jit_gemm.cpp).
  libxsmm-dev
  # Headers of the gloo library LibTorch's c10d links: data-parallel training (ProcessGroupGloo) includes them.
  libgloo-dev
  libeigen3-dev libhdf5-dev libyaml-cpp-dev
  libboost-dev libboost-graph-dev libboost-filesystem-dev
  nlohmann-json3-dev libssl-dev libcli11-dev
  catch2
  # NIfTI label volumes (sim/volume/); mricron-data's real atlases (AAL, ...) are optional inputs of volumetric_parcels.
  libnifti2-dev mricron-data
  # Real resting-state fMRI for Experiment 3 on real data (configs/fmri_nitime.yaml): nitime ships a subject's series.
  python3-nitime
  # Experiment 4: real images with exact patch positions (Fashion-MNIST, MIT), read by image_patches through zlib.
  dataset-fashion-mnist zlib1g-dev
  # Interop tests and references read our outputs the way researchers do.
  python3 python3-numpy python3-h5py python3-xarray python3-h5netcdf python3-pandas
  # python/ installs with pip into a venv that sees those packages (tests/python/test_pip_install.sh).
  python3-pip python3-setuptools python3-venv
  # The plain-PyTorch reference of the paper's model (numerical parity and speed, bench/reference/), and loci.torch:
  # loci's datasets as a PyTorch Dataset (python/loci/torch.py).
  python3-torch
  # `loci report` draws with matplotlib; its test opens the page in headless Chromium.
  python3-matplotlib chromium
  # The numpy/scipy reference of the smooth-field simulation (bench/parcels/).
  python3-scipy
  # A single-node Slurm the tests start themselves (tests/slurm): job-array sweeps, requeue, srun data-parallel.
  slurm-wlm munge
  # libFuzzer harnesses of the readers (tests/fuzz): clang's fuzzer runtime and sanitizers; a short run is a test.
  clang-14 libfuzzer-14-dev
  # The style check (tests/style): the C++ as .clang-format says.
  clang-format
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
