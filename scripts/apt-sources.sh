#!/usr/bin/env bash
# Derive the extra apt entries klmini needs (deb-src for Trilinos' source, bookworm-backports
# for Catch2 v3, and optionally non-free for CUDA 11.8) from the machine's own Debian source,
# so no mirror host name is written anywhere. Idempotent: rewrites one file of its own.
set -euo pipefail
want_nonfree=0
[[ "${1:-}" == "--non-free" ]] && want_nonfree=1
# shellcheck source=/dev/null
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:?no VERSION_CODENAME in /etc/os-release}")
out=/etc/apt/sources.list.d/klmini.sources
uri="" keyring=""
if [[ -f /etc/apt/sources.list.d/debian.sources ]]; then
  # deb822: take the stanza whose Suites start with the release codename.
  read -r uri keyring < <(awk -v c="$codename" '
    BEGIN { RS=""; FS="\n" }
    { u=""; k=""; s=""
      for (i = 1; i <= NF; i++) {
        if ($i ~ /^URIs:/)      { u=$i; sub(/^URIs:[ \t]*/, "", u); sub(/[ \t].*/, "", u) }
        if ($i ~ /^Signed-By:/) { k=$i; sub(/^Signed-By:[ \t]*/, "", k) }
        if ($i ~ /^Suites:/)    { s=$i; sub(/^Suites:[ \t]*/, "", s) }
      }
      if (u != "" && s ~ ("^" c "([ \t]|$)")) { print u, (k == "" ? "-" : k); exit }
    }' /etc/apt/sources.list.d/debian.sources)
fi
if [[ -z "$uri" && -f /etc/apt/sources.list ]]; then
  uri=$(awk -v c="$codename" '$1 == "deb" && $3 == c { print $2; exit }' /etc/apt/sources.list)
  keyring="-"
fi
[[ -n "$uri" ]] || { echo "apt-sources: found no Debian '$codename' entry to derive from" >&2; exit 2; }
[[ "$keyring" == "-" ]] && keyring=/usr/share/keyrings/debian-archive-keyring.gpg
components="main"
(( want_nonfree )) && components="main contrib non-free non-free-firmware"
tmp=$(mktemp)
cat > "$tmp" <<SRC
# Written by klmini scripts/apt-sources.sh from this machine's Debian source.
Types: deb-src
URIs: $uri
Suites: $codename
Components: main
Signed-By: $keyring

Types: deb
URIs: $uri
Suites: $codename-backports
Components: $components
Signed-By: $keyring
SRC
if (( want_nonfree )); then
  printf '\nTypes: deb\nURIs: %s\nSuites: %s\nComponents: contrib non-free non-free-firmware\nSigned-By: %s\n' \
    "$uri" "$codename" "$keyring" >> "$tmp"
fi
if ! cmp -s "$tmp" "$out" 2>/dev/null; then
  install -m 0644 "$tmp" "$out"
  echo "apt-sources: wrote $out"
  rm -f "$tmp"; exit 10   # tells the caller an 'apt-get update' is due
fi
rm -f "$tmp"
