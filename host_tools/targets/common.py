"""What every target runner shares: the error they raise, staging the device
packages next to a job's files, the bundled board files and installed scripts."""

import os
import shutil
import sys

from host_tools.device_packages import DEVICE_PACKAGES, ROOT, module_files


class TargetError(RuntimeError):
    """The target could not run the code (crash, timeout, missing binary)."""


def stage_files(dirname, files, packages=None, link=False, registry=None):
    """Put the device packages and `files` in dirname.

    Args:
        files: dict file name -> bytes or host path.
        packages: dict package -> module names (without .py) to include;
            None: every module of DEVICE_PACKAGES.
        link: symlink whole packages instead of copying them (only when
            packages is None).
        registry: with packages, the text of the portable_kernels/registry.py
            to stage (a selective build's: only the program's operators).
    """
    for pkg in DEVICE_PACKAGES:
        src = os.path.join(ROOT, pkg)
        dst = os.path.join(dirname, pkg)
        if packages is not None:
            os.mkdir(dst)
            for rel in module_files(packages.get(pkg, ())):
                os.makedirs(os.path.dirname(os.path.join(dst, rel)), exist_ok=True)
                shutil.copyfile(os.path.join(src, rel + ".py"), os.path.join(dst, rel + ".py"))
            if registry is not None and pkg == "portable_kernels":
                with open(os.path.join(dst, "registry.py"), "w") as f:
                    f.write(registry)
        elif link:
            os.symlink(src, dst)
        else:
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name, data in (files or {}).items():
        path = os.path.join(dirname, name)
        if isinstance(data, (bytes, bytearray)):
            with open(path, "wb") as f:
                f.write(data)
        else:
            shutil.copyfile(data, path)


def installed_script(name):
    """Path of console script `name`: next to this Python first (the venv it
    was installed in, active or not), then on PATH; None if neither has it."""
    here = os.path.join(os.path.dirname(sys.executable), name)
    if os.path.isfile(here) and os.access(here, os.X_OK):
        return here
    return shutil.which(name)


# The emulated boards' firmware and the CircuitPython interpreter ship with the
# package (host_tools/targets/boards/README.md: where each comes from).
BOARDS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "boards")


def executable(path):
    """`path`, given the execute permission if it lacks it (an archive or an
    installer can drop the bit); TargetError if it cannot be given."""
    if not os.access(path, os.X_OK):
        try:
            os.chmod(path, os.stat(path).st_mode | 0o111)
        except OSError as e:
            raise TargetError("%s is not executable and could not be made so (%s): chmod +x it" % (path, e))
    return path
