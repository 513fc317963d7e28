"""loci's C++ keeps one style, the repository's .clang-format (issue 58): a file clang-format would change fails
here, naming the file, so that CI refuses unformatted code. Usage: test_format.py [CLANG_FORMAT]"""
import os
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
clang_format = sys.argv[1] if len(sys.argv) > 1 else "clang-format"
try:
    subprocess.run([clang_format, "--version"], capture_output=True, check=True)
except (OSError, subprocess.CalledProcessError):
    sys.exit(f"{clang_format}: cannot run it; scripts/setup.sh installs clang-format, which this check needs")
FOLDERS = ("apps", "bench", "core", "cpu", "datasets", "models", "plugins", "probe", "python", "sim", "tests")
SUFFIXES = (".cpp", ".hpp", ".h", ".cc")


def sources():
    """Every C++ source of the tree below its own folders (build folders and the fuzz build are not sources)."""
    found = []
    for top in FOLDERS:
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(d for d in dirs if not d.startswith(("build", ".")))
            found += [os.path.join(folder, f) for f in sorted(files) if f.endswith(SUFFIXES)]
    return found


def unformatted(text, as_path):
    """True when clang-format, with the style file above `as_path`, would change `text`."""
    done = subprocess.run([clang_format, "--style=file", "--assume-filename=" + as_path], input=text,
                          capture_output=True, text=True, check=True)
    return done.stdout != text


# The check itself: a badly spaced line and unsorted includes are caught, their formatted form is not.
probe = os.path.join(root, "core", "style_probe.cpp")
assert unformatted("int  f( ){return 1;}\n", probe)
assert unformatted('#include "core/z.hpp"\n#include "core/a.hpp"\n', probe)
assert not unformatted('#include "core/a.hpp"\n#include "core/z.hpp"\n\nint f() { return 1; }\n', probe)

files = sources()
assert len(files) > 300, f"only {len(files)} C++ files found: has the tree moved?"
bad = []
for start in range(0, len(files), 100):
    batch = files[start:start + 100]
    done = subprocess.run([clang_format, "--style=file", "--dry-run"] + batch, capture_output=True, text=True)
    bad += sorted({line.split(":")[0] for line in done.stderr.splitlines() if ": warning:" in line})
if bad:
    rel = [os.path.relpath(p, root) for p in bad]
    sys.exit(f"{len(rel)} file(s) not formatted as .clang-format says (run clang-format -i on them): " + ", ".join(rel))
print(f"format: {len(files)} files as .clang-format says")
