#!/usr/bin/env python3
"""Lays a bundle's runs (bench/bundles/bundle_runs.py) out again as finished run folders, so that a long sweep goes
on across sessions: a session that lost its machine restores the committed bundle into the sweep's runs folder, and
`loci run` keeps every restored run (the trainer finds it finished, made with the same settings) and trains only the
rest. `loci analyze` and the report then see the whole table.

    /usr/bin/python3 bench/bundles/restore_runs.py BUNDLE.h5 RUNS_ROOT --data DATA [--runs-csv RUNS.csv]

RUNS_ROOT is the sweep's runs folder (e.g. runs/exp1_table/runs) and DATA the dataset folder the sweep trains on (the
pipeline's generate.out; generate it first, as the pipeline does: it must be the very dataset, which the trainer
checks by its shards' checksums). A run folder that already exists is left as it is.

A restored run holds what the bundle kept: identity.json, summary.json, config.yaml (its `out` and `data` set to the
new folders), metrics.csv and metrics.jsonl, robustness.csv and interventions.json where the run made them (for a
bundle written before bundles kept robustness.csv, from the table's runs.csv with --runs-csv), provenance.json with the
restoration added as its last entry, and a pe.h5 (with its checksum record) holding only the
first and last evaluations, whose attribute abridged_history says so: `loci analyze` then measures no onset from it.
Where the bundle kept the run's whole analysis.json (bundles written since session 31) it is restored too, its input
checksums set to the restored files', so that the analysis, onsets included, is kept as it was computed from the
whole history. No model weights are kept: a restored run can be analysed and reported, not trained further or scored
again by `loci intervene`.
"""
import argparse
import csv
import hashlib
import json
import os
import re
import sys
import time

import h5py
import numpy as np


def write_text(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def yaml_scalar(value):
    """A value as loci's YAML reader reads it back: JSON's spelling is YAML's for these."""
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, list):
        return "[" + ", ".join(yaml_scalar(v) for v in value) + "]"
    return json.dumps(value)


def config_from_identity(identity, summary):
    """config.yaml for a bundle written before bundles kept it: the identity's keys, nested, and train.epochs from
    the summary (the other keys outside the identity take their defaults)."""
    tree = {}
    for key, value in identity["keys"].items():
        if key == "data.shards_sha256":
            continue
        node = tree
        parts = key.split(".")
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = value
    tree.setdefault("train", {})["epochs"] = summary["epochs"]
    lines = []

    def emit(node, indent):
        for k, v in node.items():
            if isinstance(v, dict):
                lines.append(" " * indent + f"{k}:")
                emit(v, indent + 2)
            else:
                lines.append(" " * indent + f"{k}: {yaml_scalar(v)}")
    emit(tree, 0)
    return "\n".join(lines) + "\n"


def with_folders(config_text, out, data):
    """The config with its top-level `out` and `data` set to this machine's folders."""
    kept = [line for line in config_text.splitlines()
            if not (line.startswith("out:") or line.startswith("data:"))]
    return f"out: {json.dumps(out)}\ndata: {json.dumps(data)}\n" + "\n".join(kept) + "\n"


def metrics_jsonl_from_csv(text):
    """metrics.jsonl for a bundle written before bundles kept it, from metrics.csv (its 9 significant digits)."""
    lines = text.splitlines()
    header = lines[0].split(",")
    out = []
    for line in lines[1:]:
        row = {}
        for name, cell in zip(header, line.split(",")):
            if cell == "":
                continue
            if name == "split":
                row[name] = cell
            elif name in ("epoch", "step", "samples"):
                row[name] = int(cell)
            else:
                row[name] = float(cell)
        out.append(json.dumps(row, separators=(",", ":")))
    return "\n".join(out) + "\n"


def robustness_from_runs_csv(row):
    """robustness.csv for a bundle written before bundles kept it, from the run's row of the table's runs.csv
    (<split>_accuracy_noise<sd> and <split>_mse_noise<sd>: what the analysis reads of it; samples and loss are left
    empty)."""
    cells = {}
    for column, value in row.items():
        m = re.fullmatch(r"(\w+?)_(accuracy|mse)_noise([0-9.]+)", column)
        if m and value != "":
            cells.setdefault((m.group(1), m.group(3)), {})[m.group(2)] = value
    if not cells:
        return None
    lines = ["split,noise_std,samples,loss,accuracy,mse"]
    for (split, noise), v in cells.items():
        lines.append(f"{split},{noise},,,{v.get('accuracy', '')},{v.get('mse', '')}")
    return "\n".join(lines) + "\n"


def write_pe(path, group, bundle_name):
    attributes = json.loads(group.attrs["pe_attributes"]) if "pe_attributes" in group.attrs else {}
    epochs = group["epoch"][:]
    evaluations = int(group.attrs.get("evaluations", 0))
    if "abridged_history" not in attributes:
        attributes["abridged_history"] = (
            f"epochs {epochs[0]} and {epochs[-1]} only, of {evaluations or 'an unrecorded number of'} evaluations: "
            f"restored from the bundle {bundle_name} by bench/bundles/restore_runs.py")
    tmp = path + ".tmp"
    with h5py.File(tmp, "w") as f:
        for k, v in attributes.items():
            f.attrs[k] = v
        f.create_dataset("epoch", data=epochs.astype(np.int64)).attrs.update(
            {"dims": "evaluation", "doc": "epoch of each evaluation"})
        if "step" in group:
            f.create_dataset("step", data=group["step"][:].astype(np.int64)).attrs.update(
                {"dims": "evaluation", "doc": "optimizer steps done at each evaluation"})
        for name in sorted(group):
            if name.startswith("placement_"):
                table = group[name][:]
                dims = "evaluation,token,dim" if table.ndim == 3 and table.shape[1] == group["positions"].shape[0] \
                    else ",".join(["evaluation"] + [f"axis{d}" for d in range(table.ndim - 1)])
                f.create_dataset(name, data=table).attrs.update(
                    {"dims": dims, "doc": "the PE this placement adds, at each evaluation kept"})
            elif name.startswith("position_logits_"):
                f.create_dataset(name, data=group[name][:]).attrs.update(
                    {"dims": "evaluation,head,query,key", "doc": "the block's position-position attention term"})
        f.create_dataset("positions", data=group["positions"][:]).attrs.update(
            {"dims": "token,axis", "doc": "true position of each token (from the dataset)"})
    os.replace(tmp, path)


def restore(group, folder, data, bundle_name, table_row=None):
    identity = json.loads(group.attrs["identity"])
    summary = json.loads(group.attrs["summary"])
    os.makedirs(folder)
    write_text(os.path.join(folder, "identity.json"), json.dumps(identity, indent=2) + "\n")
    config = group.attrs["config_yaml"] if "config_yaml" in group.attrs else config_from_identity(identity, summary)
    write_text(os.path.join(folder, "config.yaml"), with_folders(config, os.path.abspath(folder), data))
    write_text(os.path.join(folder, "metrics.csv"), group.attrs["metrics_csv"])
    jsonl = group.attrs["metrics_jsonl"] if "metrics_jsonl" in group.attrs else \
        metrics_jsonl_from_csv(group.attrs["metrics_csv"])
    write_text(os.path.join(folder, "metrics.jsonl"), jsonl)
    if "interventions" in group.attrs:
        write_text(os.path.join(folder, "interventions.json"),
                   json.dumps(json.loads(group.attrs["interventions"]), indent=1) + "\n")
    robustness = group.attrs["robustness_csv"] if "robustness_csv" in group.attrs else \
        robustness_from_runs_csv(table_row) if table_row else None
    if robustness:
        write_text(os.path.join(folder, "robustness.csv"), robustness)
    write_pe(os.path.join(folder, "pe.h5"), group, bundle_name)
    # The checksum record the trainer keeps beside pe.h5 (datasets/checked_file.hpp), of the restored file.
    write_text(os.path.join(folder, "pe.h5.sha256"),
               json.dumps({"sha256": [sha256(os.path.join(folder, "pe.h5"))]}, separators=(",", ":")) + "\n")
    provenance = json.loads(group.attrs["provenance"]) if "provenance" in group.attrs else []
    provenance.append({"restored_from_bundle": bundle_name, "restored": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                       "command": " ".join(sys.argv), "status": "restored", "data": data})
    write_text(os.path.join(folder, "provenance.json"), json.dumps(provenance, indent=2) + "\n")
    if "analysis_json" in group:
        analysis = json.loads(group["analysis_json"][:].tobytes().decode())
        inputs = {"pe.h5": sha256(os.path.join(folder, "pe.h5")),
                  "metrics.jsonl": sha256(os.path.join(folder, "metrics.jsonl"))}
        interventions = os.path.join(folder, "interventions.json")
        inputs["interventions.json"] = sha256(interventions) if os.path.exists(interventions) else ""
        analysis["inputs"] = inputs
        analysis.setdefault("run", {})["folder"] = folder
        analysis["run"]["data"] = data
        write_text(os.path.join(folder, "analysis.json"), json.dumps(analysis, indent=1) + "\n")
    # Last, as the trainer writes it last: a folder without summary.json is an unfinished run.
    summary["data"] = data
    write_text(os.path.join(folder, "summary.json"), json.dumps(summary, indent=2) + "\n")


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("bundle")
    p.add_argument("root", help="the sweep's runs folder")
    p.add_argument("--data", required=True, help="the dataset folder the sweep trains on")
    p.add_argument("--runs-csv", help="the table's runs.csv (bench/data/NAME/runs.csv): rebuilds robustness.csv of runs "
                                      "in a bundle written before bundles kept it")
    a = p.parse_args(argv)
    table = {}
    if a.runs_csv:
        with open(a.runs_csv) as f:
            table = {os.path.basename(r["folder"].rstrip("/")): r for r in csv.DictReader(f)}
    data = os.path.abspath(a.data)
    if not os.path.isdir(data):
        print(f"restore_runs: {a.data}: no such dataset folder (generate it first)", file=sys.stderr)
        return 1
    restored, kept = 0, 0
    try:
        bundle = h5py.File(a.bundle, "r")
    except OSError as e:
        print(f"restore_runs: {a.bundle}: not a readable bundle ({e})", file=sys.stderr)
        return 1
    with bundle:
        name = bundle.attrs.get("name", os.path.basename(a.bundle))
        for run in sorted(bundle):
            missing = [k for k in ("identity", "summary", "metrics_csv") if k not in bundle[run].attrs]
            missing += [k for k in ("epoch", "positions") if k not in bundle[run]]
            if missing:
                print(f"restore_runs: {a.bundle}: run {run} lacks {', '.join(missing)} (not written by "
                      "bench/bundles/bundle_runs.py?); nothing restored from it", file=sys.stderr)
                return 1
        for run in sorted(bundle):
            folder = os.path.join(a.root, run)
            if os.path.exists(folder):
                kept += 1
                continue
            restore(bundle[run], folder, data, name, table.get(os.path.basename(run)))
            restored += 1
    print(f"{a.root}: restored {restored} runs from {a.bundle}" + (f"; {kept} already there, left as they are" if kept else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
