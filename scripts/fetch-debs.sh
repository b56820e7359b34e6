#!/usr/bin/env bash
# Downloads the Debian packages of vzero's C++ dependencies besides LibTorch (protobuf and protoc,
# GoogleTest, Google Benchmark, CLI11, fmt, spdlog, nlohmann-json, zlib, cpp-httplib with the
# OpenSSL and Brotli it links: headers, CMake configs, pkg-config files, libraries and their runtime
# libraries) into third_party/debs/ (git-ignored), so that they can
# travel with the working tree to a GPU machine without network access, where
# scripts/gpu-check.sh unpacks them with `dpkg -x` into a prefix (never into /).
#
# The packages named below are resolved recursively (apt-cache depends); of the result only the
# packages of those libraries are kept: the C library, the compiler runtime and everything else a
# build machine already has are left out on purpose (an older libc in a prefix on the library
# path would break the machine's programs). The list and versions go to third_party/debs/MANIFEST.
#
# Usage: scripts/fetch-debs.sh [DEST]      (DEST default third_party/debs; run as root on Debian)
set -euo pipefail
cd "$(dirname "$0")/.."
dest="${1:-third_party/debs}"

roots=(libprotobuf-dev protobuf-compiler libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev
       libfmt-dev libspdlog-dev nlohmann-json3-dev zlib1g-dev libcpp-httplib-dev)
# Packages of the dependencies themselves (dev packages, their shared libraries, protoc).
allow='^(googletest|libbenchmark-dev|libbenchmark[0-9]+debian|libcli11-dev|libfmt-dev|libfmt[0-9]+'
allow+='|libgmock-dev|libgtest-dev|libprotobuf-dev|libprotobuf-lite[0-9]+|libprotobuf[0-9]+'
allow+='|libprotoc[0-9]+|libspdlog-dev|libspdlog[0-9.]+|nlohmann-json3-dev|protobuf-compiler'
allow+='|zlib1g|zlib1g-dev|libcpp-httplib-dev|libcpp-httplib[0-9.]+|libssl-dev|libssl3'
allow+='|libbrotli-dev|libbrotli1)$'

if ! apt-cache show "${roots[0]}" >/dev/null 2>&1; then
  echo "fetch-debs: package lists missing, running apt-get update"
  apt-get update -qq
fi

mapfile -t resolved < <(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
                          --no-breaks --no-replaces --no-enhances "${roots[@]}" |
                        grep -v '^ ' | grep -v '^<' | sort -u)
keep=()
skipped=()
for package in "${resolved[@]}"; do
  if [[ "$package" =~ $allow ]]; then keep+=("$package"); else skipped+=("$package"); fi
done
echo "fetch-debs: ${#keep[@]} packages: ${keep[*]}"
echo "fetch-debs: left out (present on any build machine): ${skipped[*]}"

mkdir -p "$dest"
rm -f "$dest"/*.deb "$dest/MANIFEST"
# apt-get download writes into the current folder; as root it warns that the download is not
# sandboxed when the _apt user cannot write there, which is harmless.
(cd "$dest" && apt-get download -q "${keep[@]}" 2>&1 | grep -v "unsandboxed" || true)
# Plain file names (letters, digits, '.', '_', '-'): the epoch's "%3a" and a version's '+' go.
for deb in "$dest"/*.deb; do
  plain="$(basename "$deb" | sed 's/%3a/_/g; s/[^A-Za-z0-9._-]/_/g')"
  [[ "$plain" == "$(basename "$deb")" ]] || mv "$deb" "$dest/$plain"
done
missing=0
for package in "${keep[@]}"; do
  compgen -G "$dest/${package}_*.deb" >/dev/null || { echo "fetch-debs: $package not downloaded" >&2; missing=1; }
done
((missing == 0)) || exit 1

{
  echo "# Debian packages for scripts/gpu-check.sh, fetched $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# on $(. /etc/os-release && echo "$PRETTY_NAME") by scripts/fetch-debs.sh"
  for deb in "$dest"/*.deb; do
    dpkg-deb -W --showformat='${Package} ${Version}\n' "$deb"
  done
} >"$dest/MANIFEST"
echo "fetch-debs: $(ls "$dest"/*.deb | wc -l) files, $(du -sh "$dest" | cut -f1) in $dest"
