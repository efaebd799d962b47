# lit configuration for recom's golden tests (LLVM 19's lit:
#   python3 /usr/lib/llvm-19/build/utils/lit/lit.py lit-tests/
# scripts/test.sh runs it after building the tools into bin/).
import os
import shutil

import lit.formats

config.name = "recom"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".pbtxt", ".ll"]
config.excludes = ["Inputs", "lit.cfg.py", "Output"]

config.test_source_root = os.path.dirname(__file__)
# Outputs (%t files) go under lit-tests/Output/, which git ignores.
config.test_exec_root = os.path.join(config.test_source_root, "Output")

repo_root = os.path.dirname(config.test_source_root)
recom_bin = lit_config.params.get("recom_bin", os.path.join(repo_root, "bin"))
llvm_bin = lit_config.params.get("llvm_bin", "/usr/lib/llvm-19/bin")

config.environment["FILECHECK_OPTS"] = "-enable-var-scope"
# Keep the user's locale and PATH out of the tests, except what the tools need.
config.environment["PATH"] = os.pathsep.join(
    [recom_bin, llvm_bin, os.environ.get("PATH", "")])


def find_tool(name, dirs):
    for d in dirs:
        p = os.path.join(d, name)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return shutil.which(name)


# Tools from this repository: every one must be built (scripts/test.sh does).
for tool in ["recom-opt", "recom-translate", "recom"]:
    path = find_tool(tool, [recom_bin])
    if path is None:
        lit_config.fatal("%s not found in %s: build it first (scripts/test.sh does)" % (tool, recom_bin))
    config.available_features.add(tool)
    config.substitutions.append((r"(?<![-\w/.])%s(?![-\w])" % tool, path))

for tool in ["FileCheck", "not", "count"]:
    path = find_tool(tool, [llvm_bin])
    if path is None:
        lit_config.fatal("%s not found: apt-get install llvm-19-tools" % tool)
    config.substitutions.append((r"(?<![-\w/.])%s(?![-\w])" % tool, path))

llc = find_tool("llc-19", [llvm_bin, "/usr/bin"]) or find_tool("llc", [llvm_bin])
if llc:
    config.available_features.add("llc")
    config.substitutions.append((r"(?<![-\w/.])llc-19(?![-\w])", llc))
