# Runs on the target (CPython or MicroPython). host_tools.devtools.bundle.run_bundle
# stages this with job.json and the .bpte in DATA_DIR (a global set before this
# runs). For each method of the bundle (or job["methods"]) and each of its test
# cases: set the inputs, execute, compare with the expected outputs
# (mpy_et/bundled.py verify_outputs) and print
# "MPY_ET_CASE <method> <case> <1 if it passed else 0> <worst |got - expected| or None>",
# then "MPY_ET_BUNDLE_DONE".
import json

from mpy_et.bundled import BundledProgram, verify_outputs

with open(DATA_DIR + "/job.json") as f:  # noqa: F821 (set by the runner)
    _job = json.load(f)
bundle = BundledProgram.load(DATA_DIR + "/" + _job["bpte"])  # noqa: F821
program = bundle.program()
for name in _job["methods"] or bundle.methods():
    method = program.load_method(name)
    for i in range(bundle.test_cases(name)):
        for j, value in enumerate(bundle.inputs(name, i)):
            method.set_input(j, value)
        method.execute()
        ok, worst = verify_outputs(method, bundle.expected_outputs(name, i), _job["rtol"], _job["atol"])
        print("MPY_ET_CASE %s %d %d %r" % (name, i, 1 if ok else 0, worst))
    del method
print("MPY_ET_BUNDLE_DONE")
