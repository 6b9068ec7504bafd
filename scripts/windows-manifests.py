#!/usr/bin/env python3
"""Write the Scoop and winget manifests for one release from its archives.

    scripts/windows-manifests.py --version 0.1.0 --archives DIR --out DIR
        [--repository URL] [--winget-id Owner.gk]
    scripts/windows-manifests.py --check DIR [--schemas DIR]

DIR (--archives) holds what a release ships for Windows, as dist makes it:
gk-x86_64-pc-windows-msvc.zip and gk-aarch64-pc-windows-msvc.zip, each
with its .sha256 beside it (or one sha256.sum over all). The checksum is
taken from those files and, where the archive itself is there too, checked
against its bytes: a mismatch writes nothing. The download address is the
release's, <repository>/releases/download/v<version>/<archive>, with the
repository, description and license read from Cargo.toml.

Written to --out:
  scoop/gk.json                                    (a Scoop bucket's manifest)
  winget/manifests/<x>/<Owner>/gk/<version>/       (winget's three files:
      <id>.yaml, <id>.installer.yaml, <id>.locale.en-US.yaml; manifest 1.6.0)

--check DIR checks what --out wrote, offline: the keys each format
requires, hashes of 64 hex digits, https addresses, known architectures.
With --schemas DIR holding Scoop's schema.json and winget's
manifest.{version,installer,defaultLocale}.1.6.0.json (and the jsonschema
and yaml Python modules), each file is also validated against its schema.
Exit 0 when every check passes; otherwise one line per problem, exit 1.
"""
import argparse
import hashlib
import json
import os
import re
import sys
import tomllib

ARCHES = [
    # (target, scoop architecture, winget architecture)
    ("x86_64-pc-windows-msvc", "64bit", "x64"),
    ("aarch64-pc-windows-msvc", "arm64", "arm64"),
]
MANIFEST_VERSION = "1.6.0"
HEX64 = re.compile(r"^[0-9a-fA-F]{64}$")


def fail(msg):
    print(f"windows-manifests: {msg}", file=sys.stderr)
    sys.exit(1)


def cargo_package(repo_root):
    with open(os.path.join(repo_root, "Cargo.toml"), "rb") as f:
        return tomllib.load(f)["package"]


def checksums(folder):
    """{archive name: lower-case sha256} from *.sha256 files and sha256.sum."""
    found = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".sha256") or name == "sha256.sum":
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                for line in f:
                    parts = line.split()
                    if len(parts) == 2 and HEX64.match(parts[0]):
                        found[parts[1].lstrip("*")] = parts[0].lower()
    return found


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def quoted(s):
    """A YAML double-quoted scalar (JSON's string syntax is valid YAML)."""
    return json.dumps(s, ensure_ascii=False)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    os.replace(tmp, path)


def generate(args):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    pkg = cargo_package(root)
    repo = (args.repository or pkg["repository"]).rstrip("/")
    m = re.match(r"^https://github\.com/([^/]+)/([^/]+)$", repo)
    if not m:
        fail(f"repository {repo!r} is not https://github.com/<owner>/<name>")
    owner = m.group(1)
    version = args.version
    if not re.match(r"^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$", version):
        fail(f"version {version!r} is not a version number such as 0.1.0")
    sums = checksums(args.archives)
    arches = []
    for target, scoop_arch, winget_arch in ARCHES:
        name = f"gk-{target}.zip"
        digest = sums.get(name)
        if digest is None:
            fail(f"no checksum for {name} in {args.archives} (.sha256 or sha256.sum)")
        path = os.path.join(args.archives, name)
        if os.path.isfile(path) and sha256_of(path) != digest:
            fail(f"{path} does not match its checksum {digest}; nothing written")
        url = f"{repo}/releases/download/v{version}/{name}"
        arches.append((target, scoop_arch, winget_arch, url, digest))

    scoop = {
        "version": version,
        "description": pkg["description"],
        "homepage": repo,
        "license": pkg["license"],
        "architecture": {
            scoop_arch: {"url": url, "hash": digest}
            for _, scoop_arch, _, url, digest in arches
        },
        "bin": "gk.exe",
        "notes": "Then run `gk install` to register the hooks with Claude Code.",
        "checkver": {"github": repo},
        "autoupdate": {
            "architecture": {
                scoop_arch: {
                    "url": f"{repo}/releases/download/v$version/gk-{target}.zip",
                    "hash": {"url": "$url.sha256"},
                }
                for target, scoop_arch, _, _, _ in arches
            }
        },
    }
    write(os.path.join(args.out, "scoop", "gk.json"), json.dumps(scoop, indent=4) + "\n")

    ident = args.winget_id or f"{owner}.gk"
    parts = ident.split(".")
    folder = os.path.join(
        args.out, "winget", "manifests", parts[0][0].lower(), *parts, version
    )
    schema = "https://aka.ms/winget-manifest.{}." + MANIFEST_VERSION + ".schema.json"
    head = lambda kind: (  # noqa: E731
        f"# yaml-language-server: $schema={schema.format(kind)}\n"
        f"# Written by scripts/windows-manifests.py from the v{version} release archives.\n"
        f"PackageIdentifier: {quoted(ident)}\n"
        f"PackageVersion: {quoted(version)}\n"
    )
    tail = lambda kind: f"ManifestType: {kind}\nManifestVersion: {MANIFEST_VERSION}\n"  # noqa: E731
    write(
        os.path.join(folder, f"{ident}.yaml"),
        head("version") + "DefaultLocale: en-US\n" + tail("version"),
    )
    installers = "".join(
        f"  - Architecture: {winget_arch}\n"
        f"    InstallerUrl: {quoted(url)}\n"
        f"    InstallerSha256: {digest.upper()}\n"
        for _, _, winget_arch, url, digest in arches
    )
    write(
        os.path.join(folder, f"{ident}.installer.yaml"),
        head("installer")
        + "InstallerType: zip\n"
        + "NestedInstallerType: portable\n"
        + "NestedInstallerFiles:\n"
        + "  - RelativeFilePath: gk.exe\n"
        + "    PortableCommandAlias: gk\n"
        + "Commands:\n  - gk\n"
        + "Installers:\n"
        + installers
        + tail("installer"),
    )
    write(
        os.path.join(folder, f"{ident}.locale.en-US.yaml"),
        head("defaultLocale")
        + "PackageLocale: en-US\n"
        + f"Publisher: {quoted(owner)}\n"
        + "PackageName: gk\n"
        + f"PackageUrl: {quoted(repo)}\n"
        + f"License: {quoted(pkg['license'])}\n"
        + f"ShortDescription: {quoted(pkg['description'])}\n"
        + "ReleaseNotesUrl: "
        + quoted(f"{repo}/releases/tag/v{version}")
        + "\n"
        + tail("defaultLocale"),
    )
    print(os.path.join(args.out, "scoop", "gk.json"))
    print(folder)


def read_yaml_flat(path):
    """The top-level `Key: value` pairs and `  - Key: value` list items of the
    YAML this script writes (enough to check it without a YAML module)."""
    top, items, current = {}, {}, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            m = re.match(r"^([A-Za-z0-9]+):\s*(.*)$", line.rstrip("\n"))
            if m:
                current = m.group(1)
                value = m.group(2)
                top[current] = json.loads(value) if value.startswith('"') else value
                continue
            m = re.match(r"^\s+(?:- )?([A-Za-z0-9]+):\s*(.*)$", line.rstrip("\n"))
            if m and current:
                value = m.group(2)
                value = json.loads(value) if value.startswith('"') else value
                items.setdefault(current, []).append((m.group(1), value))
    return top, items


def check(out, schemas):
    problems = []
    scoop_path = os.path.join(out, "scoop", "gk.json")
    try:
        with open(scoop_path, encoding="utf-8") as f:
            scoop = json.load(f)
    except (OSError, ValueError) as e:
        problems.append(f"{scoop_path}: {e}")
        scoop = {}
    for key in ("version", "homepage", "license", "architecture", "bin"):
        if key not in scoop:
            problems.append(f"{scoop_path}: no {key}")
    for arch, entry in scoop.get("architecture", {}).items():
        if arch not in ("32bit", "64bit", "arm64"):
            problems.append(f"{scoop_path}: unknown architecture {arch}")
        if not HEX64.match(str(entry.get("hash", ""))):
            problems.append(f"{scoop_path}: {arch}: hash is not 64 hex digits")
        if not str(entry.get("url", "")).startswith("https://"):
            problems.append(f"{scoop_path}: {arch}: url is not https")

    winget_files = []
    for base, _, names in os.walk(os.path.join(out, "winget")):
        winget_files += [os.path.join(base, n) for n in names if n.endswith(".yaml")]
    kinds = {}
    for path in winget_files:
        top, items = read_yaml_flat(path)
        kind = top.get("ManifestType")
        kinds[kind] = (path, top, items)
        for key in ("PackageIdentifier", "PackageVersion", "ManifestType", "ManifestVersion"):
            if key not in top:
                problems.append(f"{path}: no {key}")
        if top.get("ManifestVersion") != MANIFEST_VERSION:
            problems.append(f"{path}: ManifestVersion is not {MANIFEST_VERSION}")
    for kind in ("version", "installer", "defaultLocale"):
        if kind not in kinds:
            problems.append(f"{out}/winget: no {kind} manifest")
    if "installer" in kinds:
        path, top, items = kinds["installer"]
        installers = items.get("Installers", [])
        arches = [v for k, v in installers if k == "Architecture"]
        hashes = [v for k, v in installers if k == "InstallerSha256"]
        urls = [v for k, v in installers if k == "InstallerUrl"]
        if not arches or len(arches) != len(hashes) or len(arches) != len(urls):
            problems.append(f"{path}: every installer needs Architecture, InstallerUrl, InstallerSha256")
        for a in arches:
            if a not in ("x86", "x64", "arm", "arm64", "neutral"):
                problems.append(f"{path}: unknown Architecture {a}")
        for h in hashes:
            if not HEX64.match(h):
                problems.append(f"{path}: InstallerSha256 {h} is not 64 hex digits")
        for u in urls:
            if not u.startswith("https://"):
                problems.append(f"{path}: InstallerUrl {u} is not https")
        # The same archives and checksums as the Scoop manifest.
        scoop_hashes = sorted(e.get("hash", "").lower() for e in scoop.get("architecture", {}).values())
        if sorted(h.lower() for h in hashes) != scoop_hashes:
            problems.append(f"{path}: checksums differ from {scoop_path}")
    if schemas:
        problems += against_schemas(scoop_path, kinds, schemas)
    for p in problems:
        print(p)
    print(f"windows-manifests: {len(problems)} problem(s) in {out}")
    return 1 if problems else 0


def against_schemas(scoop_path, kinds, schemas):
    import jsonschema  # only for --schemas
    import yaml

    out = []
    pairs = [(scoop_path, "schema.json", lambda p: json.load(open(p, encoding="utf-8")))]
    names = {
        "version": "manifest.version.1.6.0.json",
        "installer": "manifest.installer.1.6.0.json",
        "defaultLocale": "manifest.defaultLocale.1.6.0.json",
    }
    for kind, (path, _, _) in kinds.items():
        if kind in names:
            pairs.append((path, names[kind], lambda p: yaml.safe_load(open(p, encoding="utf-8"))))
    for path, schema_name, load in pairs:
        with open(os.path.join(schemas, schema_name), encoding="utf-8") as f:
            schema = json.load(f)
        doc = load(path)
        # YAML reads PackageVersion 0.1.0 as a string already (quoted).
        for e in jsonschema.Draft7Validator(schema).iter_errors(doc):
            out.append(f"{path}: {schema_name}: {'/'.join(map(str, e.path))}: {e.message}")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--version")
    ap.add_argument("--archives")
    ap.add_argument("--out")
    ap.add_argument("--repository")
    ap.add_argument("--winget-id")
    ap.add_argument("--check", metavar="DIR")
    ap.add_argument("--schemas", metavar="DIR")
    args = ap.parse_args()
    if args.check:
        sys.exit(check(args.check, args.schemas))
    if not (args.version and args.archives and args.out):
        ap.error("--version, --archives and --out are needed (or --check DIR)")
    generate(args)


if __name__ == "__main__":
    main()
