#!/usr/bin/env python3
"""Shard write and read throughput with h5py, as a researcher would write shards by hand: the yardstick for
bench/datasets/run.sh.

Same arrays as bench_shard_io (tokens uint8 16x5, label int64, features float32 16x8, per sample; positions float32
16x2 per shard), same chunking (CHUNK samples), same filters (shuffle + gzip 4, or none), same per-shard work
(write, fsync, SHA-256 of the file). MB/s count uncompressed sample bytes. Prints `key=value` lines.

Usage: shard_io_reference.py [--out DIR] [--shards N] [--samples-per-shard N] [--chunk N] [--reps N]
"""
import argparse
import hashlib
import os
import resource
import shutil
import statistics
import tempfile
import time

import h5py
import numpy as np


def make_arrays(samples):
    rng = np.random.default_rng(1)
    return {
        "tokens": rng.integers(0, 5, size=(samples, 16, 5), dtype=np.uint8),
        "label": rng.integers(0, 3, size=(samples,), dtype=np.int64),
        "features": rng.standard_normal(size=(samples, 16, 8), dtype=np.float32),
    }


def write_shard(path, arrays, first, chunk, gzip):
    n = len(arrays["label"])
    filters = dict(compression="gzip", compression_opts=4, shuffle=True) if gzip else {}
    tmp = path + ".tmp"
    with h5py.File(tmp, "w") as f:
        f.attrs["loci_schema_version"] = 1
        f.create_dataset("sample_id", data=np.arange(first, first + n, dtype=np.int64), chunks=(min(chunk, n),), **filters)
        for name, a in arrays.items():
            f.create_dataset(name, data=a, chunks=(min(chunk, n),) + a.shape[1:], **filters)
        grid = np.array([[t % 4, t // 4] for t in range(16)], dtype=np.float32)
        f.create_dataset("positions", data=grid)
    with open(tmp, "rb+") as fh:
        os.fsync(fh.fileno())
    digest = hashlib.sha256()
    with open(tmp, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    os.rename(tmp, path)
    return os.path.getsize(path), digest.hexdigest()


def cpu_seconds():
    """User + system CPU time of this process: less disturbed by a busy machine than wall time."""
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "loci-bench-shard-io-py"))
    p.add_argument("--shards", type=int, default=8)
    p.add_argument("--samples-per-shard", type=int, default=10000)
    p.add_argument("--chunk", type=int, default=512)
    p.add_argument("--reps", type=int, default=3)
    args = p.parse_args()

    per = args.samples_per_shard
    arrays = make_arrays(per)
    sample_bytes = sum(a[0].nbytes for a in arrays.values())
    samples = args.shards * per
    mb = samples * sample_bytes / 1e6

    for gzip in (True, False):
        codec = "gzip4+shuffle" if gzip else "none"
        folder = os.path.join(args.out, codec)
        write_s, read_s, write_cpu, read_cpu, disk = [], [], [], [], 0
        for _ in range(args.reps):
            shutil.rmtree(folder, ignore_errors=True)
            os.makedirs(folder)
            t0, c0 = time.perf_counter(), cpu_seconds()
            paths = []
            disk = 0
            for k in range(args.shards):
                path = os.path.join(folder, f"train-{k:05d}-of-{args.shards:05d}.h5")
                size, _ = write_shard(path, arrays, k * per, args.chunk, gzip)
                paths.append(path)
                disk += size
            write_s.append(time.perf_counter() - t0)
            write_cpu.append(cpu_seconds() - c0)

            t0, c0 = time.perf_counter(), cpu_seconds()
            for name, a in arrays.items():
                out = np.empty((samples,) + a.shape[1:], dtype=a.dtype)
                for k, path in enumerate(paths):
                    with h5py.File(path, "r") as f:
                        f[name].read_direct(out, dest_sel=np.s_[k * per:(k + 1) * per])
            read_s.append(time.perf_counter() - t0)
            read_cpu.append(cpu_seconds() - c0)
        w, r = statistics.median(write_s), statistics.median(read_s)
        wc, rc = statistics.median(write_cpu), statistics.median(read_cpu)
        print(f"impl=python codec={codec} op=write samples={samples} mb={mb:.1f} seconds={w:.3f} "
              f"mb_per_s={mb / w:.1f} mb_per_cpu_s={mb / wc:.1f} disk_mb={disk / 1e6:.1f}")
        print(f"impl=python codec={codec} op=read samples={samples} mb={mb:.1f} seconds={r:.3f} "
              f"mb_per_s={mb / r:.1f} mb_per_cpu_s={mb / rc:.1f}")
    shutil.rmtree(args.out, ignore_errors=True)


if __name__ == "__main__":
    main()
