"""package.json for a dist, in the format mip installs (`mpremote mip install`
on the host, `mip.install` on a networked board).

mip reads three lists: "urls" ([device path, url] pairs: each file is
downloaded and written to <target>/<device path>), "hashes" ([device path,
short sha256] pairs fetched from the micropython.org index by hash) and
"deps". A dist is not on that index, so every file is listed under "urls";
relative urls resolve against the package.json's own location (a local
directory for `mpremote mip install dist/package.json`, or the web directory
the dist is published at; `--base-url github:ORG/REPO/dist` writes absolute
ones). The sha256 of each file stays in manifest.json, checked by
`mpy-et flash`.
"""

import json
import os

PACKAGE_JSON = "package.json"
_URL_PREFIXES = ("http://", "https://", "github:", "gitlab:", "codeberg:")


def package_json(manifest, base_url=None):
    """The package.json dict for a dist's manifest."""
    urls = []
    for entry in manifest["files"]:
        url = entry["path"] if not base_url else base_url.rstrip("/") + "/" + entry["path"]
        urls.append([entry["path"], url])
    return {"urls": urls, "deps": [], "version": _version(manifest)}


def _version(manifest):
    from mpy_et import __version__

    return "%s+%s" % (__version__, manifest["target"])


def write_package_json(dist, manifest, base_url=None):
    """Write dist/package.json; return its path."""
    if base_url and not base_url.startswith(_URL_PREFIXES):
        raise ValueError("--base-url must start with one of %s, not %r" % (", ".join(_URL_PREFIXES), base_url))
    path = os.path.join(dist, PACKAGE_JSON)
    with open(path, "w") as f:
        json.dump(package_json(manifest, base_url), f, indent=1)
        f.write("\n")
    return path


def check_package_json(dist, package):
    """Problems (a list of strings) that would stop mip installing `package`
    from `dist`: the shapes mip reads and that every relative url resolves to
    a dist file with the manifest's sha256."""
    import hashlib

    from host_tools.deploy.dist import read_manifest

    problems = []
    for key in ("urls", "hashes", "deps"):
        value = package.get(key, [])
        if not isinstance(value, list) or any(
            not (isinstance(p, list) and len(p) == 2 and all(isinstance(s, str) for s in p)) for p in value
        ):
            problems.append("%s must be a list of [string, string] pairs" % key)
    if problems:
        return problems
    manifest = {f["path"]: f["sha256"] for f in read_manifest(dist)["files"]}
    listed = set()
    for dest, url in package.get("urls", []):
        listed.add(dest)
        if dest.startswith("/") or ".." in dest.split("/"):
            problems.append("%s: device path must be relative to mip's --target" % dest)
        if url.startswith(_URL_PREFIXES):
            continue
        path = os.path.join(dist, *url.split("/"))
        if not os.path.isfile(path):
            problems.append("%s: url %s is no file in %s" % (dest, url, dist))
            continue
        with open(path, "rb") as f:
            if hashlib.sha256(f.read()).hexdigest() != manifest.get(dest):
                problems.append("%s: sha256 differs from manifest.json" % dest)
    for dest, short in package.get("hashes", []):
        if dest in manifest and not manifest[dest].startswith(short):
            problems.append("%s: hash %s is not a prefix of the manifest's sha256" % (dest, short))
        listed.add(dest)
    missing = sorted(set(manifest) - listed)
    if missing:
        problems.append("files of the dist mip would not install: %s" % ", ".join(missing))
    return problems
