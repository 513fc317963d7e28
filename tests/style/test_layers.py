"""core/ is the bottom of loci (issue 58): what every part speaks includes nothing of the parts above it (datasets/,
sim/, models/, probe/, plugins/, apps/); only cpu/, which includes nothing of loci, lies below it. An include that
breaks the layering fails here, naming the file and the line."""
import os
import re
import sys

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ABOVE = ("datasets", "sim", "models", "probe", "plugins", "apps")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)/')


def upward_includes(folder, above):
    """(file, line number, included path) for every include in `folder` of a folder in `above`."""
    found = []
    for here, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith((".cpp", ".hpp", ".h", ".in")):
                continue
            path = os.path.join(here, name)
            with open(path, encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if m and m.group(1) in above:
                        found.append((os.path.relpath(path, root), number, line.strip()))
    return found


# The check itself: it sees an upward include, in either spelling of the directive.
assert INCLUDE.match('#include "datasets/reader.hpp"').group(1) == "datasets"
assert INCLUDE.match('#  include "sim/x.hpp"').group(1) == "sim"
assert not INCLUDE.match("#include <datasets/reader.hpp>")

problems = upward_includes(os.path.join(root, "core"), ABOVE)
problems += [p for p in upward_includes(os.path.join(root, "cpu"), ABOVE + ("core",))]
if problems:
    sys.exit("includes against the layering (core/ and cpu/ include nothing above them): " +
             "; ".join(f"{f}:{n}: {text}" for f, n, text in problems))
print("layers: core/ and cpu/ include nothing above them")
