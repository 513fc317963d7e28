"""cpu/clones.hpp sets how a translation unit's loops are compiled (its `#pragma GCC optimize("fp-contract=off")`
holds only for what follows it; inline code read before it is compiled without it): every .cpp that includes it does
so first, in an include block of its own, so that no reordering of includes (clang-format puts a file's own header
first) can move it. Session 32's format commit did move it, in 9 files: the outputs stayed bit-identical, but the
paper model's training step ran about 3% slower on one thread (bench/models/compare_builds.sh against e8fa534:
1.026-1.038, and 1.009-1.012 once it was first again). Fails naming each file whose first include is another."""
import os
import re
import sys

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INCLUDE = re.compile(r'^\s*#\s*include\s+["<]([^">]+)[">]')
CLONES = "cpu/clones.hpp"


def misplaced(text):
    """Why this file's includes break the rule, or None. A file that does not include clones.hpp is fine."""
    lines = text.split("\n")
    includes = [(i, INCLUDE.match(l).group(1)) for i, l in enumerate(lines) if INCLUDE.match(l)]
    if not any(name == CLONES for _, name in includes):
        return None
    first_line, first = includes[0]
    if first != CLONES:
        return f"its first include is {first}, not {CLONES}"
    if first_line + 1 < len(lines) and INCLUDE.match(lines[first_line + 1]):
        return f"{CLONES} shares its include block with the next include (a blank line keeps a sort from moving it)"
    return None


# The check itself, on small texts.
assert misplaced('#include "a/b.hpp"\n') is None
assert misplaced('#include "cpu/clones.hpp"  // first\n\n#include "models/x.hpp"\n') is None
assert "first include is models/x.hpp" in misplaced('#include "models/x.hpp"\n#include "cpu/clones.hpp"\n')
assert "shares its include block" in misplaced('#include "cpu/clones.hpp"\n#include "models/x.hpp"\n')

problems = []
for folder in ("cpu", "sim", "models", "plugins", "apps", "probe", "datasets", "core"):
    for here, dirs, files in os.walk(os.path.join(root, folder)):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".cpp"):
                path = os.path.join(here, name)
                with open(path, encoding="utf-8") as f:
                    why = misplaced(f.read())
                if why:
                    problems.append(f"{os.path.relpath(path, root)}: {why}")
if problems:
    sys.exit("cpu/clones.hpp must come first, in a block of its own: " + "; ".join(problems))
print("cpu/clones.hpp comes first wherever it is included")
