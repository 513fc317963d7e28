#!/usr/bin/env python3
"""The smooth random field of volumetric_parcels in numpy/scipy, as a researcher would write it.

Same steps as loci's C++ (sim/volume/smooth_field.cpp): every time step draws standard normal noise on the grid
padded by the kernel radius, smooths it with a Gaussian of the given FWHM along x, y and z (scipy.ndimage's kernel:
radius int(4 sd + 0.5), weights summing to 1), keeps the voxels whose kernel lies wholly in the padded grid, scales
to unit variance and mixes it in as AR(1): f = rho f + sqrt(1 - rho^2) s. float32 throughout, as the C++.

--method valid smooths one axis at a time with ndimage.correlate1d and crops after each (the least work);
--method filter calls ndimage.gaussian_filter on the padded noise and crops once (the one-liner most people write).
It is the yardstick for bench/parcels/run.sh, not a second source of truth: the random streams differ, so values
differ; the work per voxel-step is the same.

Usage: parcels_reference.py [--dims 36,44,32] [--voxel 4] [--fwhm 12] [--rho 0.9] [--steps 100] [--method valid]
Prints: impl=numpy method=M dims=... steps=S voxel_steps_per_s=R cpu_voxel_steps_per_s=C variance=V
"""
import argparse
import time

import numpy as np
from scipy import ndimage


def kernel(sd, truncate=4.0):
    radius = int(truncate * sd + 0.5)
    x = np.arange(-radius, radius + 1, dtype=np.float64)
    w = np.exp(-0.5 * x * x / (sd * sd)) if radius > 0 else np.ones(1)
    return (w / w.sum()).astype(np.float32), radius


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dims", default="36,44,32")
    p.add_argument("--voxel", type=float, default=4.0)
    p.add_argument("--fwhm", type=float, default=12.0)
    p.add_argument("--rho", type=float, default=0.9)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--method", choices=["valid", "filter"], default="valid")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    nx, ny, nz = (int(v) for v in a.dims.split(","))
    sd = a.fwhm / (2.0 * np.sqrt(2.0 * np.log(2.0))) / a.voxel
    w, r = kernel(sd)
    scale = np.float32(1.0 / np.sqrt(float((w.astype(np.float64) ** 2).sum()) ** 3))
    padded = (nz + 2 * r, ny + 2 * r, nx + 2 * r)  # C order: z, y, x with x fastest, as the C++ grid
    inner = slice(r, -r) if r > 0 else slice(None)
    rng = np.random.default_rng(a.seed)
    rho = np.float32(a.rho)
    mix = np.float32(np.sqrt(1.0 - a.rho * a.rho))

    def smoothed():
        noise = rng.standard_normal(padded, dtype=np.float32)
        if a.method == "filter":
            return ndimage.gaussian_filter(noise, sd, mode="constant", truncate=4.0)[inner, inner, inner] * scale
        s = ndimage.correlate1d(noise, w, axis=2, mode="constant")[:, :, inner]
        s = ndimage.correlate1d(s, w, axis=1, mode="constant")[:, inner, :]
        return ndimage.correlate1d(s, w, axis=0, mode="constant")[inner, :, :] * scale

    field = smoothed()  # f(0), outside the timing as in the C++ benchmark
    wall0, cpu0 = time.perf_counter(), time.process_time()
    for _ in range(a.steps):
        field = rho * field + mix * smoothed()
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    work = nx * ny * nz * a.steps
    print(f"impl=numpy method={a.method} dims={nx}x{ny}x{nz} fwhm_mm={a.fwhm:g} voxel_mm={a.voxel:g} steps={a.steps} "
          f"voxel_steps_per_s={work / wall:.6g} cpu_voxel_steps_per_s={work / cpu:.6g} "
          f"variance={float((field.astype(np.float64) ** 2).mean()):.3f}")


if __name__ == "__main__":
    main()
