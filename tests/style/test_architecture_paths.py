"""docs/ARCHITECTURE.md is the map a newcomer reads first (issue 58): every path it names under one of the
repository's top-level folders (core/..., plugins/..., tests/..., a glob such as models/pe/*.cpp) must exist, so a
rename or a removal that forgets the map fails the tests instead of misleading the next reader."""
import glob
import os
import re
import sys

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PATH = re.compile(r"(?<![\w/.<-])((?:[A-Za-z_.][\w.-]*/)+[\w.*-]*)")


def stale_paths(text, root):
    """The paths in `text` rooted at a top-level folder of `root` that name nothing there."""
    tops = {d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)) and not d.startswith(("build", ".git"))}
    stale = []
    for path in sorted(set(PATH.findall(text))):
        if path.split("/")[0] not in tops:
            continue
        where = os.path.join(root, path.rstrip("/"))
        if not (glob.glob(where) if "*" in path else os.path.exists(where)):
            stale.append(path)
    return stale


with open(os.path.join(root, "docs", "ARCHITECTURE.md"), encoding="utf-8") as f:
    text = f.read()
named = [p for p in PATH.findall(text) if p.split("/")[0] in {"core", "apps", "plugins", "models", "tests"}]
assert len(named) > 20, f"the map names only {len(named)} paths: has the path pattern stopped matching?"
# The check itself: a made-up path under a real folder is caught, a real one and a path outside the tree are not.
assert stale_paths("see core/no_such_file.cpp and core/ and runs/x/", root) == ["core/no_such_file.cpp"]
stale = stale_paths(text, root)
assert not stale, "docs/ARCHITECTURE.md names paths that do not exist: " + ", ".join(stale)
print(f"architecture paths: {len(set(named))} checked, 0 stale")
sys.exit(0)
