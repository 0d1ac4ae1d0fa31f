#!/usr/bin/env bash
# Builds gougi's release archives into dist/ (issue 50):
#   gougi-<version>-x86_64-pc-windows-gnu.zip      gougi.exe, SimpleGougi.config, LICENSE, ja/ (the
#                                                   Japanese guide; ja/README.md is the quick start),
#                                                   README.md, BENCHMARKS.md, guide/ (the English
#                                                   guide), configs/ (the example configs)
#   gougi-<version>-x86_64-unknown-linux-gnu.tar.gz gougi, the same files
# What the guides name is in the archive (issue 65); a link to what is not (the journal, the
# code's map, the tests) keeps its text and loses the link.
# Each archive unpacks into one folder, gougi-<version>/. Needs the Windows target and Debian's
# mingw-w64 (`rustup target add x86_64-pc-windows-gnu`, `apt-get install gcc-mingw-w64-x86-64`).
#
#   tools/release.sh                                  # both archives, release builds, into dist/
#   tools/release.sh --profile dev --no-build --only windows --out DIR
#       the Windows zip of the dev build already made (what the Windows lane checks in CI, where
#       a release build would cost minutes more; the archive is the same but for the build's speed)
set -euo pipefail
cd "$(dirname "$0")/.."

profile=release
build_first=yes
only=
out=dist
while [ $# -gt 0 ]; do
  case "$1" in
    --profile) profile=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --no-build) build_first=no; shift ;;
    --out) out=$2; shift 2 ;;
    *) echo "tools/release.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
case "$profile" in
  release) flag=--release; dir_name=release ;;
  dev) flag=; dir_name=debug ;;
  *) echo "tools/release.sh: --profile release or dev, got $profile" >&2; exit 2 ;;
esac

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
windows=x86_64-pc-windows-gnu
linux=x86_64-unknown-linux-gnu
targets=
[ "$only" != linux ] && targets="$targets $windows"
[ "$only" != windows ] && targets="$targets $linux"
build=${CARGO_TARGET_DIR:-target}

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$out"
for target in $targets; do
  dir="$stage/$target/gougi-$version"
  mkdir -p "$dir/ja"
  if [ "$target" = "$windows" ]; then
    [ "$build_first" = yes ] && cargo build $flag --locked --target "$windows" --bin gougi
    cp "$build/$windows/$dir_name/gougi.exe" "$dir/"
    # Line tables help a developer's backtrace, not a user's download (25 MB → a few MB).
    x86_64-w64-mingw32-strip "$dir/gougi.exe"
  else
    [ "$build_first" = yes ] && cargo build $flag --locked --bin gougi
    cp "$build/$dir_name/gougi" "$dir/"
    strip "$dir/gougi"
  fi
  cp SimpleGougi.config LICENSE README.md BENCHMARKS.md "$dir/"
  mkdir -p "$dir/guide" "$dir/configs"
  cp docs/ja/*.md "$dir/ja/"
  cp docs/guide/*.md docs/*.png "$dir/guide/"
  cp docs/configs/*.config "$dir/configs/"
  # The repository's docs/ is the archive's top folder: a guide's `../../X` is `../X` there,
  # the top pages' `docs/X` is `X`, and the pictures sit beside the English guide.
  sed -E -i -e 's#\]\(\.\./\.\./#](../#g' -e 's#\]\(\.\./([a-z]+\.png)\)#](\1)#g' \
    "$dir/ja/"*.md "$dir/guide/"*.md
  sed -E -i -e 's#\]\(docs/#](#g' "$dir/README.md" "$dir/BENCHMARKS.md"
  sed -E -i -e 's#`docs/configs/#`configs/#g' "$dir/"*.md "$dir/ja/"*.md "$dir/guide/"*.md
  # A link to what the archive does not hold keeps its text and loses the link.
  python3 - "$dir" <<'PY'
import os, re, sys
top = sys.argv[1]
link = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]*)\)")
for base, _, names in os.walk(top):
    for name in names:
        if not name.endswith(".md"):
            continue
        path = os.path.join(base, name)
        text = open(path, encoding="utf-8").read()
        def keep(m):
            target = m.group(3).split("#")[0]
            if not target or re.match(r"[a-z]+:", target):
                return m.group(0)
            if os.path.exists(os.path.join(base, target)):
                return m.group(0)
            return m.group(2)
        new = link.sub(keep, text)
        if new != text:
            open(path, "w", encoding="utf-8").write(new)
PY
done

# Python's zipfile and tarfile: no zip tool to install, and the same archive on every machine.
python3 - "$stage" "$version" "$windows" "$linux" "$out" <<'PY'
import os, sys, tarfile, zipfile
stage, version, windows, linux, out = sys.argv[1:]
top = f"gougi-{version}"
def files(target):
    root = os.path.join(stage, target)
    for base, _, names in sorted(os.walk(root)):
        for name in sorted(names):
            path = os.path.join(base, name)
            yield path, os.path.relpath(path, root)
made = []
if os.path.isdir(os.path.join(stage, windows)):
    zpath = f"{out}/gougi-{version}-{windows}.zip"
    with zipfile.ZipFile(zpath, "w", zipfile.ZIP_DEFLATED) as z:
        for path, arc in files(windows):
            z.write(path, arc)
    made.append(zpath)
if os.path.isdir(os.path.join(stage, linux)):
    tpath = f"{out}/gougi-{version}-{linux}.tar.gz"
    with tarfile.open(tpath, "w:gz") as t:
        t.add(os.path.join(stage, linux, top), top)
    made.append(tpath)
for p in made:
    print(f"{p}  {os.path.getsize(p):,} bytes")
PY
