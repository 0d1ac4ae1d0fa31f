#!/usr/bin/env bash
# The match records (issue 51): every game record, tally, plot, config and opening list that
# a measurement in BENCHMARKS.md or the journal rests on. They used to lie loose under
# docs/matches/ (1,535 files); they are kept as one xz archive per study under docs/records/,
# with docs/records/index.tsv naming the archive of every file (`<archive>\t<path>`).
# An archive holds repo-relative paths, so unpacking at the repository root puts each file
# back where the journal's links point. docs/matches/ is in .gitignore, so that unpacked
# records are not committed loose again; a change to them is kept by packing the study.
#
#   tools/records.sh list                  the studies, their archives and file counts
#   tools/records.sh unpack [STUDY|all]    restore docs/matches/... from the archive(s)
#                                          (all if no study is named)
#   tools/records.sh pack STUDY|all        re-make docs/records/STUDY.tar.xz from the files of
#                                          that study under docs/matches/ (unpacked first), and
#                                          its lines of index.tsv
#   tools/records.sh check                 index.tsv lists exactly what the archives hold, and
#                                          every file under docs/matches/ has its study
#   tools/records.sh study PATH            the study a docs/matches/ path belongs to
#
# The archives are reproducible: names sorted, mtime 0, owner 0, mode 644, GNU format, xz -9
# on one thread (multi-threaded xz cuts the stream into blocks differently), so packing the
# same files again gives the same bytes and git stores nothing new. Needs GNU tar and xz.
# tests/records.rs checks the index against the archives and re-computes one study's figure
# with `gougi tally` from its unpacked records.
set -euo pipefail
cd "$(dirname "$0")/.."

records=docs/records
index=$records/index.tsv

die() {
  echo "tools/records.sh: $*" >&2
  exit 2
}

# The study of a repo-relative path under docs/matches/. A sub-folder is a study of its own;
# loose files are grouped by the family of their names (one experiment's .txt, .svg and
# .config share a stem). Top-level files that belong to a sub-folder's study go with it.
study_of() {
  local rel=${1#docs/matches/}
  [ "$rel" != "$1" ] || die "not under docs/matches/: $1"
  case "$rel" in
    self-maj4-rounds*) echo self-maj4-rounds-cshogi-heldout ;;
    gps-byo1000-*) echo gps-byo1000-cshogi ;;
    */*) echo "${rel%%/*}" ;;
    eval-*tune256*) echo eval-screen ;;
    eval-*) echo eval-heldout ;;
    fsf3*) echo fsf3 ;;
    i19-*) echo i19 ;;
    n-vs-gps-*) echo n-vs-gps ;;
    s-vs-fsf*) echo s-vs-fsf ;;
    s-vs-gps*) echo s-vs-gps ;;
    t-vs-fsf*) echo t-vs-fsf ;;
    t-vs-gps*) echo t-vs-gps ;;
    search-guard*) echo search-guard ;;
    self-lead3*) echo self-lead3 ;;
    self3-*) echo self3-vs-search ;;
    self-*) echo self ;;
    shipped*) echo shipped ;;
    consult-vs-search*) echo consult-vs-search ;;
    depth-positions.txt | nomate-hard-17.tsv) echo positions ;;
    *) die "no study for $1: add a rule to study_of in tools/records.sh" ;;
  esac
}

# Every file under docs/matches/ on disk as `<study>\t<path>`, paths in byte order.
files_on_disk() {
  [ -d docs/matches ] || return 0
  local f s
  find docs/matches -type f | LC_ALL=C sort | while IFS= read -r f; do
    # study_of's `die` only ends the command substitution; end the loop too.
    s=$(study_of "$f") || exit 2
    printf '%s\t%s\n' "$s" "$f"
  done
}

# The studies named in the index.
studies() {
  [ -f "$index" ] || return 0
  cut -f1 "$index" | sed 's/\.tar\.xz$//' | LC_ALL=C sort -u
}

# Packs study $1 from the `<study>\t<path>` lines in file $2.
pack_one() {
  local study=$1 list
  list=$(mktemp)
  awk -F'\t' -v s="$study" '$1 == s { print $2 }' "$2" >"$list"
  [ -s "$list" ] || { rm -f "$list"; die "no file of study $study under docs/matches/ (unpack it first?)"; }
  mkdir -p "$records"
  # The list, not the directories, so the archive holds files only and tar -t equals the index.
  LC_ALL=C tar --create --format=gnu --no-recursion --files-from="$list" \
    --mtime=@0 --owner=0 --group=0 --numeric-owner --mode=644 \
    | xz -9 -T1 >"$records/$study.tar.xz.tmp"
  mv "$records/$study.tar.xz.tmp" "$records/$study.tar.xz"
  # The index: this study's old lines out, its new ones in, sorted as a whole.
  {
    [ -f "$index" ] && awk -F'\t' -v a="$study.tar.xz" '$1 != a' "$index"
    sed "s|^|$study.tar.xz\t|" "$list"
  } | LC_ALL=C sort >"$index.tmp"
  mv "$index.tmp" "$index"
  echo "$records/$study.tar.xz: $(wc -l <"$list") files, $(stat -c %s "$records/$study.tar.xz") bytes"
  rm -f "$list"
}

unpack_one() {
  local archive=$records/$1.tar.xz
  [ -f "$archive" ] || die "no archive $archive"
  # -m: the files get today's time, not the archive's fixed epoch.
  tar -xJmf "$archive"
  echo "unpacked $archive"
}

check() {
  local bad=0 a want got
  [ -f "$index" ] || die "no $index"
  if ! LC_ALL=C sort -c "$index" 2>/dev/null; then
    echo "$index is not sorted" >&2
    bad=1
  fi
  want=$(mktemp)
  got=$(mktemp)
  for a in "$records"/*.tar.xz; do
    tar -tJf "$a" | sed "s|^|$(basename "$a")\t|"
  done | LC_ALL=C sort >"$got"
  LC_ALL=C sort "$index" >"$want"
  if ! diff "$want" "$got" >&2; then
    echo "$index differs from the archives (< index, > archives)" >&2
    bad=1
  fi
  rm -f "$want" "$got"
  # Files unpacked by hand must still find their study (a new file needs a rule).
  files_on_disk >/dev/null
  [ $bad = 0 ] && echo "$index: $(wc -l <"$index") files in $(studies | wc -l) archives, consistent"
  return $bad
}

command -v tar >/dev/null && command -v xz >/dev/null || die "needs tar and xz"
case "${1:-}" in
  list)
    studies | while IFS= read -r s; do
      printf '%-34s %5d files %9d bytes\n' "$s" \
        "$(awk -F'\t' -v a="$s.tar.xz" '$1 == a' "$index" | wc -l)" \
        "$(stat -c %s "$records/$s.tar.xz")"
    done
    ;;
  unpack)
    if [ -z "${2:-}" ] || [ "$2" = all ]; then
      studies | while IFS= read -r s; do unpack_one "$s"; done
    else
      unpack_one "$2"
    fi
    ;;
  pack)
    [ -n "${2:-}" ] || die "pack STUDY|all"
    map=$(mktemp)
    files_on_disk >"$map"
    if [ "$2" = all ]; then
      for s in $(cut -f1 "$map" | LC_ALL=C sort -u); do pack_one "$s" "$map"; done
    else
      pack_one "$2" "$map"
    fi
    rm -f "$map"
    ;;
  check) check ;;
  study)
    [ -n "${2:-}" ] || die "study PATH"
    study_of "$2"
    ;;
  *)
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 2
    ;;
esac
