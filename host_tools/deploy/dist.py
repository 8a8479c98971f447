"""A dist directory (what `mpy-et build` writes): its manifest.json and the
ROMFS image of its device files. Read by flash, mip and the import-RAM
measurement, written by build.
"""

import json
import os
import shutil
import tempfile

from host_tools.deploy.build_targets import BuildError

MANIFEST = "manifest.json"
ROMFS_IMAGE = "romfs.img"
FORMAT = "mpy-et-dist/1"


def build_image_of_dist(out, manifest, build_image):
    """A ROMFS image of the dist's device files (not its json or an old image)."""
    with tempfile.TemporaryDirectory(prefix="mpy_et_romfs_") as tmp:
        for entry in manifest["files"]:
            dst = os.path.join(tmp, *entry["path"].split("/"))
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(os.path.join(out, *entry["path"].split("/")), dst)
        return build_image(tmp)


def write_manifest(out, manifest):
    with open(os.path.join(out, MANIFEST), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")


def read_manifest(dist):
    """The manifest of a dist directory; BuildError if it is not one."""
    path = os.path.join(dist, MANIFEST)
    if not os.path.isfile(path):
        raise BuildError("%s is not a dist: no %s (make one with `mpy-et build`)" % (dist, MANIFEST))
    with open(path) as f:
        manifest = json.load(f)
    if manifest.get("format") != FORMAT:
        raise BuildError("%s: format %r, expected %r (rebuild the dist)" % (path, manifest.get("format"), FORMAT))
    return manifest
