#!/usr/bin/env python3
"""Carries runs that outlast a session (Experiment 1 at 4000 epochs) from one machine to the next, weights included,
so that a lost machine loses at most the epochs since the last save. bundle_runs.py keeps no weights: a restored
bundle can be analysed but not trained further; this keeps each run's whole folder instead.

    /usr/bin/python3 bench/bundles/carry_runs.py save RUNS_ROOT CARRY_DIR
    /usr/bin/python3 bench/bundles/carry_runs.py restore CARRY_DIR RUNS_ROOT --data DATA

save: every run folder under RUNS_ROOT that holds a checkpoint (checkpoints/last.pt) or a finished run becomes
CARRY_DIR/<run>.tar.gz: its outputs and last.pt, without the extra copies (best.pt, epoch_<E>.pt), lock or temporary
files. A run that has not moved since its archive was written keeps the archive as it is (no new bytes to commit).

restore: each archive whose run folder RUNS_ROOT lacks is unpacked there, its config.yaml's `out` and `data` set to
this machine's folders; `loci run CONFIG out=...` then resumes it from last.pt (the trainer checks that it is the very
run and the very dataset). A run folder that exists is left as it is: it is this machine's own, and newer.
"""
import argparse
import os
import shutil
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from restore_runs import with_folders  # noqa: E402  (one place sets a run's folders)

LEFT_OUT = ("best.pt",)


def run_folders(root):
    for here, dirs, files in os.walk(root):
        if "identity.json" in files and ("summary.json" in files or
                                         os.path.exists(os.path.join(here, "checkpoints", "last.pt"))):
            dirs[:] = []
            yield os.path.relpath(here, root)


def kept(rel):
    name = os.path.basename(rel)
    if name.startswith(".") or name.endswith(".tmp") or name.endswith(".lock") or name in LEFT_OUT:
        return False
    return not (name.startswith("epoch_") and name.endswith(".pt"))


def newest_change(folder):
    return max(os.path.getmtime(os.path.join(h, f)) for h, _, fs in os.walk(folder) for f in fs)


def archive_name(carry, rel):
    return os.path.join(carry, rel.replace(os.sep, "__") + ".tar.gz")


def save(root, carry):
    os.makedirs(carry, exist_ok=True)
    for rel in run_folders(root):
        folder, target = os.path.join(root, rel), archive_name(carry, rel)
        if os.path.exists(target) and os.path.getmtime(target) >= newest_change(folder):
            print(f"carry: {rel}: unchanged since {target}")
            continue
        tmp = target + ".tmp"
        # mtime 0 and fixed owners: the same folder gives the same archive bytes.
        with open(tmp, "wb") as raw:
            with tarfile.open(fileobj=raw, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
                for here, dirs, files in os.walk(folder):
                    dirs.sort()
                    for f in sorted(files):
                        path = os.path.join(here, f)
                        arc = os.path.relpath(path, folder)
                        if not kept(arc):
                            continue
                        info = tar.gettarinfo(path, arcname=arc)
                        info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
                        with open(path, "rb") as src:
                            tar.addfile(info, src)
        os.replace(tmp, target)
        state = "finished" if os.path.exists(os.path.join(folder, "summary.json")) else "in progress"
        print(f"carry: {rel} ({state}) -> {target} ({os.path.getsize(target) / 1e6:.1f} MB)")


def restore(carry, root, data):
    for name in sorted(os.listdir(carry)):
        if not name.endswith(".tar.gz"):
            continue
        rel = name[:-len(".tar.gz")].replace("__", os.sep)
        folder = os.path.join(root, rel)
        if os.path.exists(folder):
            print(f"carry: {rel}: {folder} exists; kept as it is")
            continue
        tmp = folder + ".restoring"
        shutil.rmtree(tmp, ignore_errors=True)  # a restore interrupted before: its half is never a run
        try:
            with tarfile.open(os.path.join(carry, name)) as tar:
                for member in tar.getmembers():
                    inside = os.path.normpath(member.name)
                    if not (member.isfile() or member.isdir()) or os.path.isabs(inside) or inside.startswith(".."):
                        sys.exit(f"carry_runs: {os.path.join(carry, name)}: member {member.name!r} is not a plain "
                                 "file inside the run; nothing restored from it")
                tar.extractall(tmp)
        except (tarfile.TarError, EOFError, OSError) as e:
            shutil.rmtree(tmp, ignore_errors=True)
            sys.exit(f"carry_runs: {os.path.join(carry, name)}: not a readable archive ({e}); nothing restored from it")
        config = os.path.join(tmp, "config.yaml")
        if os.path.exists(config):
            with open(config) as f:
                text = f.read()
            with open(config, "w") as f:
                f.write(with_folders(text, os.path.abspath(folder), data))
        os.makedirs(os.path.dirname(folder), exist_ok=True)
        os.replace(tmp, folder)
        print(f"carry: {rel} restored into {folder}")


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="verb", required=True)
    s = sub.add_parser("save", help="archive every run folder of RUNS_ROOT into CARRY_DIR")
    s.add_argument("runs_root")
    s.add_argument("carry_dir")
    r = sub.add_parser("restore", help="unpack every archive of CARRY_DIR into RUNS_ROOT")
    r.add_argument("carry_dir")
    r.add_argument("runs_root")
    r.add_argument("--data", required=True, help="the dataset folder the runs train on, on this machine")
    a = p.parse_args(argv)
    if a.verb == "save":
        if not os.path.isdir(a.runs_root):
            sys.exit(f"carry_runs: {a.runs_root}: no such runs folder")
        save(a.runs_root, a.carry_dir)
    else:
        if not os.path.isdir(a.carry_dir):
            sys.exit(f"carry_runs: {a.carry_dir}: no such folder of archives")
        restore(a.carry_dir, a.runs_root, os.path.abspath(a.data))


if __name__ == "__main__":
    main(sys.argv[1:])
