#!/usr/bin/env python3
"""Packs finished loci runs into one compact HDF5 file, so that a RESULTS table can be recomputed without training
again (issue 51): per run its identity, summary and metrics, and the PE tables and attention position terms at
epoch 0 and at the last evaluation, with the true positions (the attention terms only up to --max-attention-tokens
tokens, 128 by default: they grow with the square of the tokens). A few hundred kB per run of the paper's model.

    /usr/bin/python3 bench/bundles/bundle_runs.py RUNS_ROOT OUT.h5 [--name NAME]

Every run folder below RUNS_ROOT with a summary.json whose status is finished or early_stopped is packed; others
are listed and left out. Writing again replaces OUT.h5 whole (atomically). Read it with h5py: one group per run,
named by its folder relative to RUNS_ROOT.
"""
import argparse
import json
import os
import sys

import h5py
import numpy as np

FINISHED = {"finished", "early_stopped"}


def run_folders(root):
    for folder, dirs, files in os.walk(root):
        if "config.yaml" in files and "pe.h5" in files:
            dirs[:] = []
            yield folder


def read_json(path):
    with open(path) as f:
        return json.load(f)


def plain(value):
    """An HDF5 attribute as JSON takes it."""
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, np.generic):
        return value.item()
    return value


def first_and_last(array):
    """Rows 0 and -1 of an [evaluation, ...] array, stacked: what the tables use of a run's history."""
    return np.stack([array[0], array[-1]]).astype(np.float32)


def pack(group, folder, max_attention_tokens):
    group.attrs["identity"] = json.dumps(read_json(os.path.join(folder, "identity.json")))
    group.attrs["summary"] = json.dumps(read_json(os.path.join(folder, "summary.json")))
    with open(os.path.join(folder, "metrics.csv")) as f:
        group.attrs["metrics_csv"] = f.read()
    # What restore_runs.py needs to lay the run out again as a finished run folder, so that a later session's sweep
    # keeps it instead of training it again: the config, the metrics at full precision.
    for name, attr in (("config.yaml", "config_yaml"), ("metrics.jsonl", "metrics_jsonl"),
                       ("provenance.json", "provenance"), ("robustness.csv", "robustness_csv")):
        if os.path.exists(os.path.join(folder, name)):
            with open(os.path.join(folder, name)) as f:
                group.attrs[attr] = f.read()
    # loci's own final probes, when `loci analyze` ran: what recompute_table.py --check holds its numbers against;
    # and the whole analysis, whose per-evaluation probes (onsets) the two evaluations kept here cannot give again.
    analysis = os.path.join(folder, "analysis.json")
    if os.path.exists(analysis):
        whole = read_json(analysis)
        group.attrs["analysis_final"] = json.dumps(whole.get("final"))
        group.create_dataset("analysis_json", data=np.frombuffer(json.dumps(whole).encode(), dtype=np.uint8),
                             compression="gzip", shuffle=False)
    # `loci intervene`'s scores with the PE changed, when it ran: what bench/interventions_table.py reads.
    interventions = os.path.join(folder, "interventions.json")
    if os.path.exists(interventions):
        group.attrs["interventions"] = json.dumps(read_json(interventions))
    with h5py.File(os.path.join(folder, "pe.h5"), "r") as pe:
        epochs = pe["epoch"][:]
        group.attrs["pe_attributes"] = json.dumps({k: plain(v) for k, v in pe.attrs.items()})
        group.attrs["evaluations"] = len(epochs)
        group.create_dataset("epoch", data=np.array([epochs[0], epochs[-1]], dtype=np.int64))
        if "step" in pe:
            group.create_dataset("step", data=first_and_last(pe["step"][:]).astype(np.int64))
        group.create_dataset("positions", data=pe["positions"][:].astype(np.float32))
        # Attention position terms grow with the square of the tokens: past `max_attention_tokens` (225 voxel
        # blocks: 0.8 MB a run) they are left out, which the bundle records; no table is recomputed from them.
        keep_logits = len(pe["positions"]) <= max_attention_tokens
        group.attrs["position_logits_kept"] = keep_logits
        for name in sorted(pe):
            if name.startswith("placement_") or (keep_logits and name.startswith("position_logits_")):
                group.create_dataset(name, data=first_and_last(pe[name][:]), compression="gzip", shuffle=True)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("root")
    p.add_argument("out")
    p.add_argument("--name", default="")
    p.add_argument("--max-attention-tokens", type=int, default=128,
                   help="leave out the attention position terms of runs with more tokens (default 128)")
    a = p.parse_args(argv)
    packed, left = [], []
    tmp = a.out + ".tmp"
    with h5py.File(tmp, "w") as out:
        out.attrs["name"] = a.name or os.path.basename(os.path.abspath(a.root))
        out.attrs["contents"] = ("one group per finished run: attrs identity, summary, analysis_final, interventions "
                                 "(JSON; the last only where `loci intervene` ran), pe_attributes (JSON: pe.h5's), "
                                 "evaluations (how many pe.h5 held), metrics_csv, metrics_jsonl, config_yaml, provenance, robustness_csv "
                                 "(where the run made the robustness test); "
                                 "datasets analysis_json (the run's whole analysis.json as UTF-8 bytes, where `loci "
                                 "analyze` ran), "
                                 "epoch and step [2] (first, last evaluation), positions [token, axis], placement_<p> and "
                                 "position_logits_<b> [2, ...] at those two evaluations (left out past "
                                 f"{a.max_attention_tokens} tokens: attr position_logits_kept)")
        for folder in sorted(run_folders(a.root)):
            summary = os.path.join(folder, "summary.json")
            status = read_json(summary).get("status") if os.path.exists(summary) else None
            if status not in FINISHED:
                left.append(f"{folder} ({status or 'no summary.json'})")
                continue
            pack(out.create_group(os.path.relpath(folder, a.root)), folder, a.max_attention_tokens)
            packed.append(folder)
    os.replace(tmp, a.out)
    print(f"{a.out}: {len(packed)} runs, {os.path.getsize(a.out) / 1e6:.2f} MB"
          + (f"; left out {len(left)} unfinished: " + "; ".join(left) if left else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
