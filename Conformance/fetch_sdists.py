#!/usr/bin/env python3
"""Downloads the sdists of the installed icalendar and recurring-ical-events from PyPI with
pip (the versions the venv holds) and extracts their test calendars (*.ics).

fetch_sdists.py VENV_BIN DEST: sdists in DEST/sdists, calendars in
DEST/corpus/<package>__<path with / as __>.ics. Nothing is committed: DEST is in the build
folder.
"""
import glob, os, subprocess, sys, tarfile

PACKAGES = ["icalendar", "recurring-ical-events"]


def main():
    bin_dir, dest = sys.argv[1], sys.argv[2]
    sdists, corpus = os.path.join(dest, "sdists"), os.path.join(dest, "corpus")
    os.makedirs(sdists, exist_ok=True)
    pins = []
    for package in PACKAGES:
        version = subprocess.check_output(
            [os.path.join(bin_dir, "python"), "-c", f"import importlib.metadata as m; print(m.version('{package}'))"],
            text=True).strip()
        pins.append(f"{package}=={version}")
    subprocess.check_call([os.path.join(bin_dir, "pip"), "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                           "-d", sdists] + pins)
    os.makedirs(corpus, exist_ok=True)
    for pin in pins:
        package, version = pin.split("==")
        stem = package.replace("-", "_")
        path = next(p for p in glob.glob(os.path.join(sdists, "*.tar.gz"))
                    if os.path.basename(p).lower().replace("-", "_").startswith(f"{stem}_{version}"))
        count = 0
        with tarfile.open(path, mode="r:gz") as archive:
            for member in archive.getmembers():
                if not member.isfile() or not member.name.lower().endswith(".ics"):
                    continue
                name = package + "__" + "__".join(member.name.split("/")[1:])
                with open(os.path.join(corpus, name), "wb") as out:
                    out.write(archive.extractfile(member).read())
                count += 1
        print(f"conformance: {pin}: {count} calendars", file=sys.stderr)


if __name__ == "__main__":
    main()
