"""Read loci's outputs in Python without loci: datasets as one xarray.Dataset, runs as pandas and xarray, sweeps as
one table. Pure Python on numpy, h5py, xarray and pandas (Debian: python3-numpy python3-h5py python3-xarray
python3-pandas).

    import loci
    ds = loci.open_dataset("data/lst", "train")          # every shard of the split, one Dataset
    run = loci.open_run("runs/quickstart/runs/model.pe.init.std=0.2")
    run.metrics.query("split == 'human'").plot(x="epoch", y="accuracy")
    sweep = loci.open_sweep("runs/quickstart/runs")      # one row per run: its varying settings, metrics, probes
"""

import functools
import hashlib
import json
import os

import h5py
import numpy as np
import pandas as pd
import xarray as xr

__all__ = ["open_dataset", "open_run", "open_sweep", "Run", "UnsafeFileError"]

# HDF5 bookkeeping attributes of dimension scales, never data.
_SCALE_ATTRS = {"CLASS", "NAME", "REFERENCE_LIST", "DIMENSION_LIST", "DIMENSION_LABELS", "_Netcdf4Dimid"}


def _text(v):
    return v.decode() if isinstance(v, bytes) else v


def _attrs(obj):
    return {k: _text(v) for k, v in obj.attrs.items() if k not in _SCALE_ATTRS}


def _dims(ds):
    return [d.label or f"dim_{i}" for i, d in enumerate(ds.dims)]


def _arrays(f):
    """(name, h5py dataset) of every array of a file, dimension scales left out."""
    for name, obj in f.items():
        if isinstance(obj, h5py.Dataset) and not h5py.h5ds.is_scale(obj.id):
            yield name, obj


class UnsafeFileError(ValueError):
    """A file or index entry that could hand out bytes its checksum does not cover."""


def _outside_storage(f):
    """Why `f` (an open h5py.File) reads bytes from elsewhere, or None: every link must be a hard link and every
    dataset stored in the file itself (no external raw storage, no virtual dataset)."""
    reasons = []

    def visit(name, info):
        if info.type == h5py.h5l.TYPE_EXTERNAL:
            reasons.append(f"'{name.decode()}' is an external link to another file")
        elif info.type != h5py.h5l.TYPE_HARD:
            reasons.append(f"'{name.decode()}' is a soft link (loci files hold hard links only)")
        else:
            obj = f.get(name.decode(), getlink=False)
            if isinstance(obj, h5py.Dataset):
                plist = obj.id.get_create_plist()
                if plist.get_layout() not in (h5py.h5d.CONTIGUOUS, h5py.h5d.CHUNKED, h5py.h5d.COMPACT):
                    reasons.append(f"array '{name.decode()}' is a virtual dataset (its bytes come from other files)")
                elif plist.get_external_count() != 0:
                    reasons.append(f"array '{name.decode()}' is stored in another file (external storage)")
        return 1 if reasons else None

    f.id.links.visit(visit, info=True)
    return reasons[0] if reasons else None


def _open_h5(path):
    """h5py.File of a loci file, refused when any of its bytes live outside it."""
    f = h5py.File(path, "r")
    reason = _outside_storage(f)
    if reason:
        f.close()
        raise UnsafeFileError(f"{path}: {reason}; loci reads only bytes stored in the file itself")
    return f


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _shard_path(folder, shard, verify):
    """The path of an index entry's shard: a plain file name in `folder`, whose size and SHA-256 match the index
    when `verify`."""
    name = shard.get("file", "")
    if not name or name != os.path.basename(name) or name.startswith(".") or os.path.isabs(name):
        raise UnsafeFileError(f"{os.path.join(folder, 'index.json')}: shard file '{name}' is not a plain file name "
                              "in the dataset folder")
    path = os.path.join(folder, name)
    if verify:
        size = os.path.getsize(path)
        if "bytes" in shard and size != shard["bytes"]:
            raise UnsafeFileError(f"{path}: {size} bytes where index.json records {shard['bytes']} (truncated or "
                                  "changed; open with verify=False to read it anyway)")
        if "sha256" in shard and _sha256(path) != shard["sha256"]:
            raise UnsafeFileError(f"{path}: SHA-256 differs from index.json (changed since it was written; open "
                                  "with verify=False to read it anyway)")
    return path


def _index(folder):
    path = os.path.join(folder, "index.json")
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        raise FileNotFoundError(f"{path}: no loci dataset here ({e.strerror})") from None


def _same(a, b):
    return np.array_equal(np.asarray(a), np.asarray(b)) if np.asarray(a).shape == np.asarray(b).shape else False


def _split_attrs(shard_attrs):
    """The root attributes every shard shares (the dataset's), and per name the values of those that differ."""
    names = {n for a in shard_attrs for n in a}
    shared, per_shard = {}, {}
    for n in sorted(names):
        values = [a.get(n) for a in shard_attrs]
        if all(v is not None and _same(v, values[0]) for v in values):
            shared[n] = values[0]
        else:
            per_shard[n] = values
    return shared, per_shard


def open_dataset(folder, split, verify=True):
    """Every shard of `split` of a loci dataset folder as one xarray.Dataset.

    Per-sample arrays are concatenated along `sample` (the index within the split, as coordinate `sample_id`); the
    dataset's own arrays (`positions`, `distance`, ...) come once. Tokens carry their true position (coordinate
    `position` [token, axis]) and a label when the dataset stores one (`token_label`); a `time` dimension gets times in
    the generator's unit (attribute `units`). Each array keeps its `doc`; the root attributes all shards share are
    the Dataset's attributes, and those that differ (`shard_index`, ...) are coordinates over `shard`, beside each
    shard's file name (`shard_file`).

    Each shard's size and SHA-256 are checked against index.json first (`verify=False` skips that); a shard whose
    bytes live partly outside it (external storage or links, virtual datasets) or an index entry naming a file
    outside the folder raises UnsafeFileError."""
    index = _index(folder)
    shards = sorted((s for s in index["shards"] if s["split"] == split), key=lambda s: s["first_sample"])
    if not shards:
        known = sorted({s["split"] for s in index["shards"]})
        raise KeyError(f"{folder}: no split '{split}' (splits: {', '.join(known)})")
    per_sample, shared, shard_attrs = {}, {}, []
    for k, shard in enumerate(shards):
        with _open_h5(_shard_path(folder, shard, verify)) as f:
            shard_attrs.append(_attrs(f))
            for name, a in _arrays(f):
                dims = _dims(a)
                if dims and dims[0] == "sample":
                    per_sample.setdefault(name, (dims, _attrs(a), []))[2].append(a[()])
                elif k == 0:
                    text = h5py.check_string_dtype(a.dtype) is not None
                    shared[name] = (dims, _attrs(a), a.asstr()[()] if text else a[()])
    attrs, per_shard = _split_attrs(shard_attrs)
    variables = {}
    for name, (dims, a, parts) in per_sample.items():
        variables[name] = xr.Variable(dims, np.concatenate(parts), attrs=a)
    for name, (dims, a, values) in shared.items():
        variables[name] = xr.Variable(dims, values, attrs=a)
    out = xr.Dataset({n: v for n, v in variables.items() if n not in ("sample_id", "positions", "token_label")},
                     attrs=attrs)
    if "sample_id" in variables:
        out = out.assign_coords(sample_id=variables["sample_id"])
        out = out.assign_coords(sample=("sample", variables["sample_id"].values))
    if "positions" in variables:
        out = out.assign_coords(position=variables["positions"])
    if "token_label" in variables:
        out = out.assign_coords(token_label=variables["token_label"])
    # What differs from shard to shard (shard_index, first_sample, ...) stays per shard, over a `shard` dimension.
    out = out.assign_coords(shard_file=("shard", [s["file"] for s in shards]))
    for name, values in per_shard.items():
        out = out.assign_coords({name: ("shard", values)})
    if "time" in out.dims:
        step = attrs.get("tr_s", attrs.get("record_dt"))
        if step is not None:
            unit = "s" if "tr_s" in attrs else "model time units"
            out = out.assign_coords(time=("time", np.arange(out.sizes["time"]) * float(step), {"units": unit}))
    return out


class Run:
    """A run folder: its resolved config, identity, summary, metrics (a DataFrame), every saved PE and attention map
    (xarray, with an `epoch` coordinate) and robustness test."""

    # A run's own files are small; past this one is not what loci wrote (a link to /dev/zero, a planted file).
    MAX_FILE_BYTES = 256 << 20

    def __init__(self, folder):
        self.folder = folder
        self.summary = self._json("summary.json")
        self.identity = self._json("identity.json")
        self.metrics = self._csv("metrics.csv")
        self.robustness = self._csv("robustness.csv")
        self.disagreements = self._check_summary()

    # The arrays are read on first use, so that a sweep of many runs opens without loading every PE.
    @functools.cached_property
    def pe(self):
        """pe.h5 as an xarray.Dataset (None without one)."""
        return self._h5("pe.h5")

    @functools.cached_property
    def attention(self):
        """attention.h5 as an xarray.Dataset (None without one)."""
        return self._h5("attention.h5")

    def _own_file(self, name):
        """The path of `name` inside the run folder, or None when absent. UnsafeFileError for a file that is not a
        plain file inside the folder (a link out of it, a FIFO, a device) or is larger than any file loci writes."""
        path = os.path.join(self.folder, name)
        if not os.path.lexists(path):
            return None
        real, folder = os.path.realpath(path), os.path.realpath(self.folder)
        if os.path.commonpath([real, folder]) != folder:
            raise UnsafeFileError(f"{path}: leads outside the run folder (to {real}); loci reads a run's files only "
                                  "inside it")
        if not os.path.isfile(real):
            raise UnsafeFileError(f"{path}: is not a plain file (a FIFO, a device or a folder)")
        if os.path.getsize(real) > self.MAX_FILE_BYTES:
            raise UnsafeFileError(f"{path}: is larger than {self.MAX_FILE_BYTES >> 20} MiB, more than loci writes")
        return path

    def _json(self, name):
        path = self._own_file(name)
        if path is None:
            return None
        with open(path) as f:
            return json.load(f)

    def _csv(self, name):
        path = self._own_file(name)
        return pd.read_csv(path) if path is not None else None

    def _check_summary(self):
        """Where summary.json's final numbers differ from the last row of metrics.csv they were made from: each
        as "split.key: summary S, metrics M". A warning names them; an honest run has none."""
        if not self.summary or self.metrics is None or "split" not in self.metrics:
            return []
        found = []
        for split, final in (self.summary.get("final") or {}).items():
            rows = self.metrics[self.metrics["split"] == split]
            if rows.empty:
                continue
            last = rows.iloc[-1]
            for key, value in final.items():
                if key in last and isinstance(value, (int, float)) and not isinstance(value, bool):
                    m = float(last[key])
                    if not (abs(m - value) <= 1e-6 * max(1.0, abs(m))):
                        found.append(f"{split}.{key}: summary {value}, metrics {m}")
        if found:
            import warnings
            warnings.warn(f"{self.folder}: summary.json disagrees with metrics.csv: " + "; ".join(found))
        return found

    def _h5(self, name):
        path = self._own_file(name)
        if path is None:
            return None
        _open_h5(path).close()  # refuses a file that reads bytes from elsewhere before xarray follows them
        with xr.open_dataset(path, engine="h5netcdf") as ds:
            ds = ds.load()
        # The true positions are `position`, as in open_dataset; every array over `evaluation` gets the epoch (and
        # step) of each evaluation as coordinates.
        if "positions" in ds:
            ds = ds.rename({"positions": "position"})
        return ds.set_coords([c for c in ("epoch", "step", "position") if c in ds])

    @property
    def config(self):
        """The resolved config (config.yaml) as a dict; needs PyYAML, else its text."""
        path = os.path.join(self.folder, "config.yaml")
        with open(path) as f:
            text = f.read()
        try:
            import yaml
        except ImportError:
            return text
        return yaml.safe_load(text)

    def pe_tables(self):
        """The [token, dim] PE of each placement at each evaluation, as DataArrays named placement_<p>."""
        if self.pe is None:
            return {}
        return {n: self.pe[n] for n in self.pe.data_vars if n.startswith("placement_")}

    def __repr__(self):
        return f"loci.Run({self.folder!r})"


def open_run(folder):
    """A run folder made by `loci train` (config.yaml, metrics, pe.h5, ...)."""
    if not os.path.exists(os.path.join(folder, "config.yaml")):
        raise FileNotFoundError(f"{folder}: not a loci run (no config.yaml)")
    return Run(folder)


def _hashable(value):
    """A setting as a table cell that pandas can compare: lists as tuples, mappings as sorted JSON."""
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True)
    return value


def open_sweep(folder):
    """One row per run below `folder`: the settings that vary between runs (from each run's identity), its final
    metrics per split (from summary.json) and its final probes (from analysis.json when `loci analyze` ran)."""
    rows = []
    for root, dirs, files in os.walk(folder):
        if "config.yaml" in files and "summary.json" in files:
            dirs[:] = []  # a run's own subfolders hold no runs
            run = Run(root)
            row = {"folder": root}
            keys = (run.identity or {}).get("keys", {})
            row.update({f"setting.{k}": _hashable(v) for k, v in keys.items()})
            for split, m in (run.summary or {}).get("final", {}).items():
                for key, value in m.items():
                    if isinstance(value, (int, float)):
                        row[f"{split}.{key}"] = value
            analysis = run._json("analysis.json")
            if analysis and isinstance(analysis.get("final"), dict):
                row.update({f"probe.{k}": v for k, v in analysis["final"].items()})
            rows.append(row)
    if not rows:
        raise FileNotFoundError(f"{folder}: holds no finished loci run")
    table = pd.DataFrame(rows)
    settings = [c for c in table.columns if c.startswith("setting.")]
    varying = [c for c in settings if table[c].nunique(dropna=False) > 1]
    table = table.drop(columns=[c for c in settings if c not in varying])
    table.columns = [c[len("setting."):] if c.startswith("setting.") else c for c in table.columns]
    return table.sort_values("folder").reset_index(drop=True)
