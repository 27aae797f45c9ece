#!/usr/bin/env bash
# Lints the systemd unit as CI does: `systemd-analyze verify` (its ExecStart must exist, so a copy of
# the unit has its release, /opt/home-energy-hub/current, pointed at this checkout's compiled daemon)
# and the offline security score, which must be 3.5 or lower. Run `npm run build` first.
set -euo pipefail
cd "$(dirname "$0")/.."
unit=systemd/home-energy-hub.service
[ -f dist/src/main.js ] || { echo "dist/src/main.js missing: run npm run build first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed -e "s|/opt/home-energy-hub/current|$PWD|g" -e "s|^ExecStart=/usr/bin/node |ExecStart=$(command -v node) |" "$unit" > "$tmp/home-energy-hub.service"
systemd-analyze verify "$tmp/home-energy-hub.service"
report=$(systemd-analyze security --offline=true "$tmp/home-energy-hub.service")
exposure=$(printf '%s\n' "$report" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
echo "systemd unit: verify ok, exposure ${exposure}"
awk -v e="$exposure" 'BEGIN { exit !(e != "" && e <= 3.5) }' || { printf '%s\n' "$report" | grep '✗'; echo "exposure ${exposure} is above 3.5" >&2; exit 1; }
