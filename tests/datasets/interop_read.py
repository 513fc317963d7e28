"""Reads a dataset written by loci's C++ writer with plain Python tools, as a user of the data would.

h5py must see the arrays, their shapes, dtypes, dimension labels and the root attributes; xarray (engine h5netcdf)
must see every dimension by name. Unnamed dimensions (phony_dim_N) fail the test.

usage: interop_read.py DATASET_FOLDER
"""
import json
import pathlib
import sys

import h5py
import numpy as np
import xarray as xr

TOKENS = 6
EXPECTED = {  # name: (dtype, dims)
    "tokens": ("uint8", ("sample", "token", "channel")),
    "small": ("int8", ("sample", "token")),
    "pair16": ("uint16", ("sample", "pair")),
    "scalar16": ("int16", ("sample",)),
    "count": ("uint32", ("sample", "token")),
    "label": ("int32", ("sample",)),
    "hash": ("uint64", ("sample", "pair")),
    "index": ("int64", ("sample",)),
    "noise": ("float32", ("sample", "token", "coord")),
    "mean": ("float64", ("sample", "coord")),
    "sample_id": ("int64", ("sample",)),
    "positions": ("float32", ("token", "coord")),
    "weights": ("float64", ("token", "token2")),
}
SIZES = {"token": TOKENS, "channel": 3, "pair": 2, "coord": 2, "token2": TOKENS}


def fail(message):
    print(f"interop_read: FAIL: {message}")
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def check_h5py(path, shard):
    samples = shard["samples"]
    with h5py.File(path, "r") as f:
        attrs = dict(f.attrs)
        check(int(attrs["loci_schema_version"]) == 1, "loci_schema_version is not 1")
        for key in ("generator", "generator_version", "split", "config_yaml", "created", "loci_version"):
            check(isinstance(attrs.get(key), str), f"root attribute {key} missing or not a string")
        check(attrs["generator"] == "synthetic", "generator attribute")
        check(int(attrs["seed"]) == 7, "seed attribute")
        check(attrs["split"] == shard["split"], "split attribute")
        check(int(attrs["first_sample"]) == shard["first_sample"], "first_sample attribute")
        check(int(attrs["grid_size"]) == 3 and float(attrs["rate"]) == 0.5 and attrs["kind"] == "synthetic",
              "the layout's own attributes")
        for name, (dtype, dims) in EXPECTED.items():
            check(name in f, f"h5py: no dataset /{name}")
            d = f[name]
            check(str(d.dtype) == dtype, f"h5py: /{name} is {d.dtype}, expected {dtype}")
            shape = tuple(samples if dim == "sample" else SIZES[dim] for dim in dims)
            check(d.shape == shape, f"h5py: /{name} has shape {d.shape}, expected {shape}")
            labels = tuple(dim.label for dim in d.dims)
            check(labels == dims, f"h5py: /{name} dimension labels {labels}, expected {dims}")
            scales = tuple(len(dim) for dim in d.dims)
            check(all(n == 1 for n in scales), f"h5py: /{name} has axes without a dimension scale")
            check(isinstance(d.attrs.get("doc"), str) and d.attrs["doc"], f"h5py: /{name} has no doc attribute")
            if dims[0] == "sample":
                check(d.chunks is not None and d.chunks[0] <= samples, f"h5py: /{name} is not chunked by samples")
                check(d.compression == "gzip" and d.shuffle, f"h5py: /{name} is not gzip+shuffle")
        ids = f["sample_id"][()]
        check(np.array_equal(ids, np.arange(shard["first_sample"], shard["first_sample"] + samples)),
              "sample_id is not the index within the split")
        check(np.array_equal(f["index"][()], ids), "the synthetic 'index' array disagrees with sample_id")
        names = f["token_name"]
        check(names.dims[0].label == "token" and len(names.dims[0]) == 1, "h5py: /token_name has no token scale")
        check(list(names.asstr()[()]) == ["left", "right", "Précentral_G", "", "a b", "x"],
              "h5py: /token_name read back wrong")
        pos = f["positions"][()]
        check(np.array_equal(pos[:, 0], np.arange(TOKENS) % 3), "positions read back wrong")


def check_xarray(path, shard):
    # No phony_dims argument: a dimension without a scale is an error here, which is what the test wants.
    with xr.open_dataset(path, engine="h5netcdf") as ds:
        for name, (dtype, dims) in EXPECTED.items():
            check(name in ds.variables, f"xarray: no variable {name}")
            v = ds[name]
            check(v.dims == dims, f"xarray: {name} has dims {v.dims}, expected {dims}")
            check(str(v.dtype) == dtype, f"xarray: {name} is {v.dtype}, expected {dtype}")
        unnamed = [d for d in ds.dims if str(d).startswith("phony_dim")]
        check(not unnamed, f"xarray: unnamed dimensions {unnamed}")
        check(ds.sizes["sample"] == shard["samples"], "xarray: sample dimension size")
        for dim, size in SIZES.items():
            check(ds.sizes[dim] == size, f"xarray: dimension {dim} has size {ds.sizes[dim]}, expected {size}")
        check(ds["token_name"].dims == ("token",), "xarray: token_name dims")
        check([str(v) for v in ds["token_name"].values] == ["left", "right", "Précentral_G", "", "a b", "x"],
              "xarray: token_name read back wrong")
        extra = set(ds.variables) - set(EXPECTED) - {"token_name"}
        check(not extra, f"xarray: unexpected variables {sorted(extra)} (dimension scales must not show as data)")
        check(ds.attrs["generator"] == "synthetic", "xarray: generator attribute")
        check(ds["tokens"].isel(sample=0).values.shape == (TOKENS, 3), "xarray: selecting by named dim")


def main():
    if len(sys.argv) != 2:
        fail(__doc__.strip().splitlines()[-1])
    folder = pathlib.Path(sys.argv[1])
    index = json.loads((folder / "index.json").read_text())
    check(index["loci_schema_version"] == 1, "index.json schema version")
    check([s["name"] for s in index["splits"]] == ["train", "test"], "index.json splits")
    check(len(index["shards"]) >= 2, "index.json lists fewer than two shards")
    for shard in index["shards"]:
        path = folder / shard["file"]
        check(path.stat().st_size == shard["bytes"], f"{path}: size differs from index.json")
        check_h5py(path, shard)
        check_xarray(path, shard)
    print(f"interop_read: ok, {len(index['shards'])} shards read with h5py {h5py.__version__} and xarray (h5netcdf)")


if __name__ == "__main__":
    main()
