"""`mpy-et build | flash | freeze | mip` and `run --port`: putting programs on boards.

Exit status: 0 done; 1 an error (one line on stderr); 2 bad arguments;
3 flash interrupted (the link was lost: run the same command to resume).
Progress goes to stderr; `--json` prints the result as JSON on stdout.
"""

import json
import os
import sys

from host_tools.deploy.build_targets import BUILD_TARGETS

EXIT_INTERRUPTED = 3


def _progress(msg):
    print("  " + msg, file=sys.stderr, flush=True)


def _cli_error(e):
    from host_tools.errors import CliError

    return CliError(str(e))


def _kb(n):
    return "n/a" if n is None else "{:,} B".format(n)


def _print_build(m, out):
    s = m["sizes"]
    if m["file_format"] == "mpy":
        fmt = "%s .mpy, mpy v%s; files hold: %s" % (m["march"] or "bytecode", m["mpy_version"], ", ".join(m["mpy_arches"]))
        print("built %s for %s (%s)" % (out, m["target"], fmt))
    else:
        print("built %s for %s (plain .py)" % (out, m["target"]))
        print("  why .py: %s" % m["why_py"])
    print("  programs: %s" % ", ".join(p["file"] for p in m["programs"]))
    print("  operators (%d): %s" % (len(m["operators"]), ", ".join(m["operators"])))
    if m["left_out_native_modules"]:
        print("  left out (native code, no emitter): %s" % ", ".join(m["left_out_native_modules"]))
    print(
        "  size: runtime %s + kernels %s + registry %s = code %s; programs %s; total %s"
        % tuple(_kb(s[k]) for k in ("runtime", "kernel", "registry", "code", "program", "total"))
    )
    print(
        "  full library: %s (runtime %s + kernels %s); this dist's code is %.0f%% of it, its kernels %.0f%% of all kernels"
        % (
            _kb(s["full_library"]),
            _kb(s["full_library_runtime"]),
            _kb(s["full_library_kernels"]),
            100.0 * s["code"] / s["full_library"],
            100.0 * (s["kernel"] + s["registry"]) / s["full_library_kernels"],
        )
    )
    for port, r in sorted(m.get("ram", {}).items()):
        if "skipped" in r:
            print("  import RAM on %s: not measured (%s)" % (port, r["skipped"]))
        else:
            in_place = "from ROMFS, bytecode in place"
            where = {"cortex-m3": in_place, "cortex-m7": in_place, "unix": "files loaded into RAM, 64-bit objects"}.get(
                port, "files loaded into RAM"
            )
            print(
                "  import RAM on %s (%s): runtime core %s (goal <= 16,384 B), kernels %s"
                % (port, where, _kb(r["core_import_bytes"]), _kb(r["kernels_import_bytes"]))
            )
            if "fs_core_import_bytes" in r:
                print(
                    "  import RAM on %s (.mpy files on a file system, as flashed%s): runtime core %s, kernels %s"
                    % (port, r.get("fs_note", ""), _kb(r["fs_core_import_bytes"]), _kb(r["fs_kernels_import_bytes"]))
                )
    if m.get("romfs"):
        print(
            "  %s: %s (file data 16-byte aligned; `mpremote romfs deploy %s`)"
            % (m["romfs"]["file"], _kb(m["romfs"]["bytes"]), os.path.join(out, m["romfs"]["file"]))
        )
    print("  wrote %s, %s" % (os.path.join(out, "manifest.json"), os.path.join(out, "package.json")))


def cmd_build(args):
    from host_tools.deploy.build import build
    from host_tools.deploy.build_targets import BuildError

    if not args.json:
        print("mpy-et build: %d program(s) for %s" % (len(args.pte), args.target), file=sys.stderr)
    try:
        m = build(
            args.pte, args.target, args.output, romfs=args.romfs, measure=not args.no_measure, progress=_progress, kernels=args.kernels
        )
    except BuildError as e:
        raise _cli_error(e) from e
    if args.json:
        print(json.dumps(m, indent=1, sort_keys=True))
    else:
        _print_build(m, args.output)
    return 0


def cmd_flash(args):
    from host_tools.deploy.build_targets import BuildError
    from host_tools.deploy.flash import FlashError, FlashInterrupted, flash

    shown = {}

    def percent(path, done, total):  # big files (a .pte over a UART) report every 10%
        step = 10 * done // total
        if total > 16384 and step > shown.get(path, 0):
            shown[path] = step
            _progress("    %s: %d%%" % (path, 10 * step))

    try:
        report = flash(args.dist, args.port, dest=args.dest, progress=_progress, on_chunk=percent)
    except FlashInterrupted as e:
        print("mpy-et: flash interrupted: %s" % e, file=sys.stderr)
        return EXIT_INTERRUPTED
    except (FlashError, BuildError) as e:
        raise _cli_error(e) from e
    if args.json:
        print(json.dumps(report, indent=1, sort_keys=True))
    else:
        print(
            "flashed %s to %s: %d copied, %d resumed, %d unchanged, %d removed, %s sent; all %d files verified (sha256)"
            % (
                args.dist,
                args.port,
                len(report["copied"]),
                len(report["resumed"]),
                len(report["unchanged"]),
                len(report["removed"]),
                _kb(report["bytes_sent"]),
                report["verified"],
            )
        )
    return 0


def cmd_freeze(args):
    from host_tools.deploy.build_targets import BuildError
    from host_tools.deploy.freeze import freeze

    try:
        report = freeze(
            args.pte, args.output, port_manifest=not args.no_port_manifest, all_kernels=args.all, progress=_progress, target=args.target
        )
    except BuildError as e:
        raise _cli_error(e) from e
    if args.json:
        print(json.dumps(report, indent=1, sort_keys=True))
    else:
        print(
            "wrote %s: %d modules and %s frozen"
            % (report["manifest"], len(report["files"]), ", ".join(report["programs"]) or "no programs")
        )
        print(
            "  build firmware: make -C ports/rp2 BOARD=RPI_PICO FROZEN_MANIFEST=%s (firmware/README.md)"
            % os.path.abspath(report["manifest"])
        )
    return 0


def cmd_mip(args):
    from host_tools.deploy.build_targets import BuildError
    from host_tools.deploy.dist import read_manifest
    from host_tools.deploy.mip_package import write_package_json

    try:
        path = write_package_json(args.dist, read_manifest(args.dist), args.base_url)
    except (BuildError, ValueError) as e:
        raise _cli_error(e) from e
    print(
        "wrote %s: `mpremote mip install --target /lib %s`"
        % (path, path if not args.base_url else args.base_url.rstrip("/") + "/package.json")
    )
    return 0


def load_inputs(path):
    """Tensors from a torch.save'd tensor, list/tuple of tensors, or
    {"inputs": [...]} (the .ref.pt export writes)."""
    import torch

    if not os.path.isfile(path):
        raise _cli_error("inputs %s: no such file" % path)
    try:
        data = torch.load(path)
    except Exception as e:
        raise _cli_error("cannot read inputs %s: %s" % (path, e)) from e
    if isinstance(data, dict):
        data = data.get("inputs")
    data = [data] if isinstance(data, torch.Tensor) else data
    if not isinstance(data, (list, tuple)) or not all(isinstance(t, torch.Tensor) for t in data):
        raise _cli_error("inputs %s: expected a tensor, a list of tensors or {'inputs': [...]}" % path)
    return list(data)


def print_outputs(res):
    for i, t in enumerate(res.outputs):
        print("output %d %s %s:" % (i, str(t.dtype).replace("torch.", ""), list(t.shape)), [round(v, 6) for v in t.flatten().tolist()[:16]])


def run_on_port(args, inputs):
    """cmd_run's path for --port: the board's RunResult."""
    from host_tools.deploy.port_run import run_on_port as run
    from host_tools.targets import TargetError

    try:
        return run(args.port, args.pte, inputs, repeat=args.repeat, dest=args.dest)
    except TargetError as e:
        raise _cli_error(e) from e


def add_parsers(sub):
    b = sub.add_parser("build", help="build a dist with only what some programs need, for one board")
    b.add_argument("pte", nargs="+", help="programs (.pte); the dist serves all of them")
    b.add_argument("--target", required=True, choices=list(BUILD_TARGETS))
    b.add_argument("-o", "--output", default="dist")
    b.add_argument("--romfs", action="store_true", help="also write romfs.img (for `mpremote romfs deploy`)")
    b.add_argument("--no-measure", action="store_true", help="skip measuring the import RAM")
    b.add_argument("--json", action="store_true", help="print the manifest as JSON")
    b.add_argument("--kernels", help="a .py file of custom operators' kernels (KERNELS) to put in the dist")
    b.set_defaults(fn=cmd_build)
    f = sub.add_parser("flash", help="copy a dist to a board over mpremote: changed files only, verified, resumable")
    f.add_argument("dist")
    f.add_argument("--port", required=True, help="serial port of the board, e.g. /dev/ttyACM0")
    f.add_argument("--dest", default="", help="directory on the board (default: its current directory)")
    f.add_argument("--json", action="store_true")
    f.set_defaults(fn=cmd_flash)
    z = sub.add_parser("freeze", help="write a manifest.py freezing runtime, kernels and programs into firmware")
    z.add_argument("pte", nargs="*")
    z.add_argument("--all", action="store_true", help="freeze every kernel (a firmware for any program)")
    z.add_argument("-o", "--output", default="frozen")
    z.add_argument("--no-port-manifest", action="store_true", help="do not include the port's own boards/manifest.py")
    z.add_argument(
        "--target",
        choices=sorted(BUILD_TARGETS),
        help="the board the firmware is for: leave out native modules its arch cannot compile (default: freeze every module)",
    )
    z.add_argument("--json", action="store_true")
    z.set_defaults(fn=cmd_freeze)
    p = sub.add_parser("mip", help="(re)write a dist's package.json for `mpremote mip install`")
    p.add_argument("dist")
    p.add_argument("--base-url", help="where the dist is published, e.g. github:ORG/REPO/dist (default: relative urls)")
    p.set_defaults(fn=cmd_mip)
