"""What every target runner shares: the error they raise, staging the device
packages next to a job's files, the team's board files and installed scripts."""

import os
import shutil
import sys

from host_tools.device_packages import DEVICE_PACKAGES, ROOT, module_files


class TargetError(RuntimeError):
    """The target could not run the code (crash, timeout, missing binary)."""


def stage_files(dirname, files, packages=None, link=False):
    """Put the device packages and `files` in dirname.

    Args:
        files: dict file name -> bytes or host path.
        packages: dict package -> module names (without .py) to include;
            None: every module of DEVICE_PACKAGES.
        link: symlink whole packages instead of copying them (only when
            packages is None).
    """
    for pkg in DEVICE_PACKAGES:
        src = os.path.join(ROOT, pkg)
        dst = os.path.join(dirname, pkg)
        if packages is not None:
            os.mkdir(dst)
            for rel in module_files(packages.get(pkg, ())):
                os.makedirs(os.path.dirname(os.path.join(dst, rel)), exist_ok=True)
                shutil.copyfile(os.path.join(src, rel + ".py"), os.path.join(dst, rel + ".py"))
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


def shared_boards_dir():
    """The team's shared board files: ../shared/boards beside this repository,
    or the nearest shared/boards above it (a clone nested one level deeper)."""
    here = os.path.dirname(ROOT)
    while True:
        candidate = os.path.join(here, "shared", "boards")
        if os.path.isdir(candidate):
            return candidate
        parent = os.path.dirname(here)
        if parent == here:
            return os.path.join(os.path.dirname(ROOT), "shared", "boards")
        here = parent
