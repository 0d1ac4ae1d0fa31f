#!/usr/bin/env bash
# Builds gougi's release archives into dist/ (issue 50):
#   gougi-<version>-x86_64-pc-windows-gnu.zip      gougi.exe, SimpleGougi.config, LICENSE, ja/ (the
#                                                   Japanese guide; ja/README.md is the quick start)
#   gougi-<version>-x86_64-unknown-linux-gnu.tar.gz gougi, the same files
# Each archive unpacks into one folder, gougi-<version>/. Needs the Windows target and Debian's
# mingw-w64 (`rustup target add x86_64-pc-windows-gnu`, `apt-get install gcc-mingw-w64-x86-64`).
#
#   tools/release.sh            # both archives
set -euo pipefail
cd "$(dirname "$0")/.."

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
windows=x86_64-pc-windows-gnu
linux=x86_64-unknown-linux-gnu

cargo build --release --locked
cargo build --release --locked --target "$windows"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p dist
for target in "$windows" "$linux"; do
  dir="$stage/$target/gougi-$version"
  mkdir -p "$dir/ja"
  if [ "$target" = "$windows" ]; then
    cp "target/$windows/release/gougi.exe" "$dir/"
    # Line tables help a developer's backtrace, not a user's download (25 MB → a few MB).
    x86_64-w64-mingw32-strip "$dir/gougi.exe"
  else
    cp target/release/gougi "$dir/"
    strip "$dir/gougi"
  fi
  cp SimpleGougi.config LICENSE "$dir/"
  cp docs/ja/*.md "$dir/ja/"
done

# Python's zipfile and tarfile: no zip tool to install, and the same archive on every machine.
python3 - "$stage" "$version" "$windows" "$linux" <<'PY'
import os, sys, tarfile, zipfile
stage, version, windows, linux = sys.argv[1:]
top = f"gougi-{version}"
def files(target):
    root = os.path.join(stage, target)
    for base, _, names in sorted(os.walk(root)):
        for name in sorted(names):
            path = os.path.join(base, name)
            yield path, os.path.relpath(path, root)
zpath = f"dist/gougi-{version}-{windows}.zip"
with zipfile.ZipFile(zpath, "w", zipfile.ZIP_DEFLATED) as z:
    for path, arc in files(windows):
        z.write(path, arc)
tpath = f"dist/gougi-{version}-{linux}.tar.gz"
with tarfile.open(tpath, "w:gz") as t:
    t.add(os.path.join(stage, linux, top), top)
for p in (zpath, tpath):
    print(f"{p}  {os.path.getsize(p):,} bytes")
PY
