#!/usr/bin/env bash
# Installs or upgrades home-energy-hub as a systemd service:
#   the daemon         /opt/home-energy-hub/releases/<release>/ (compiled JavaScript, production
#                      dependencies), the one running named by the symlink /opt/home-energy-hub/current;
#                      the one before it by .../previous (kept for a rollback; older ones are removed)
#   the configuration  /etc/home-energy-hub/hub.yaml   (from systemd/hub.example.yaml; kept if it exists)
#   the state          /var/lib/home-energy-hub        (created by systemd, owned by the service user)
#   the admin command  /usr/local/bin/home-energy-hub  (runs `hub` as the service user)
# Usage, from a checkout on the gateway:  sudo systemd/install.sh [--no-start]
#                      back to the release before: sudo systemd/install.sh --rollback [--no-start]
# --root DIR installs into DIR instead of / (for packaging and tests; no user, no systemctl).
#
# An upgrade never changes the running release: the new one is built in a scratch directory beside
# it (a clean `npm ci` of its own), checked against a copy of the database, moved into place, and
# switched to by renaming one symlink. Killed at any point, the gateway keeps a hub that starts: the
# old one, or the new one once the symlink names it. A scratch directory left by a killed run is
# removed by the next.
#
# For tests and packaging: HUB_INSTALL_NPM_CI replaces the command that installs a release's
# dependencies (run in its directory; default: npm ci --omit=dev), HUB_INSTALL_BUILD the build in the
# checkout (default: npm run -s build; `true` when dist/ is built already), and HUB_INSTALL_HOOK is
# run with the name of each step done (copied, dependencies, checked, moved, switched), so that a
# test can kill the installer there.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=""; START=1; ROLLBACK=0
while [ $# -gt 0 ]; do
  case "$1" in
    --root) ROOT="${2:?--root needs a directory}"; shift 2 ;;
    --no-start) START=0; shift ;;
    --rollback) ROLLBACK=1; shift ;;
    *) echo "usage: $0 [--rollback] [--no-start] [--root DIR]" >&2; exit 2 ;;
  esac
done
PREFIX=/opt/home-energy-hub; ETC=/etc/home-energy-hub; DATA=/var/lib/home-energy-hub; USER_NAME=home-energy-hub
UNIT=/etc/systemd/system/home-energy-hub.service
OPT="${ROOT}${PREFIX}"; RELEASES="${OPT}/releases"; DB="${ROOT}${DATA}/hub.db"
NPM_CI=${HUB_INSTALL_NPM_CI:-npm ci --omit=dev --no-audit --no-fund}
BUILD=${HUB_INSTALL_BUILD:-npm run -s build}
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
hook() { if [ -n "${HUB_INSTALL_HOOK:-}" ]; then "$HUB_INSTALL_HOOK" "$1"; fi; }

NODE=$(command -v node) || { echo "node not found: install Node.js 20 first" >&2; exit 1; }
[ -n "$ROOT" ] || [ "$(id -u)" -eq 0 ] || { echo "run as root (sudo)" >&2; exit 1; }

# As the service user where there is one (the data directory is its own: a file SQLite makes there
# must stay the service's); under --root, as whoever runs this.
as_service() {
  if [ -z "$ROOT" ] && id "$USER_NAME" >/dev/null 2>&1; then runuser -u "$USER_NAME" -- "$@"; else "$@"; fi
}

# Does release $2's code open the database? Run with release $1's check script. Changes nothing.
check_release() {
  local scratch status=0
  scratch=$(mktemp -d)
  [ -n "$ROOT" ] || ! id "$USER_NAME" >/dev/null 2>&1 || chown "$USER_NAME" "$scratch"
  as_service "$NODE" "$1/check-release.mjs" "$2" "$DB" "$scratch" || status=$?
  rm -rf "$scratch"
  return "$status"
}

# Points symlink $1 (current or previous) at releases/$2 in one rename: never absent, never half-made.
point() {
  rm -f "${OPT}/$1.tmp"
  ln -s "releases/$2" "${OPT}/$1.tmp"
  mv -T "${OPT}/$1.tmp" "${OPT}/$1"
}
release_of() { if [ -L "${OPT}/$1" ]; then basename "$(readlink "${OPT}/$1")"; fi; }

# One install.sh at a time: each removes what a killed run left, which a running one is still making.
lock() {
  install -d "$OPT"
  exec 9>"${OPT}/.install.lock"
  flock -n 9 || { echo "another install.sh is running on ${PREFIX}: nothing was changed" >&2; exit 1; }
}

restart() {
  if [ -n "$ROOT" ]; then echo "installed under ${ROOT}"; return 0; fi
  systemctl daemon-reload
  if [ "$START" -eq 1 ]; then
    # restart, not enable --now: on an upgrade the running hub gets the new code
    systemctl enable home-energy-hub
    if ! systemctl restart home-energy-hub; then
      echo "the hub did not start: sudo journalctl -u home-energy-hub -e says why; back to the release before: sudo $0 --rollback" >&2
      return 1
    fi
    echo "started. Create a key:  sudo home-energy-hub keys create my-app"
  else
    echo "installed. Start it:    sudo systemctl enable --now home-energy-hub"
  fi
}

if [ "$ROLLBACK" -eq 1 ]; then
  lock
  current=$(release_of current); previous=$(release_of previous)
  if [ -z "$previous" ] || [ ! -d "${RELEASES}/${previous}" ]; then
    echo "no previous release under ${PREFIX}/releases to go back to: nothing was changed" >&2
    exit 1
  fi
  # The current release's check script, which knows the backups' names (the previous may predate them).
  script="${RELEASES}/${current}"; [ -f "${script}/check-release.mjs" ] || script="${RELEASES}/${previous}"
  if [ -f "${script}/check-release.mjs" ]; then
    check_release "$script" "${RELEASES}/${previous}" || { echo "release ${previous} was not switched to: nothing was changed" >&2; exit 1; }
  fi
  point current "$previous"
  [ -z "$current" ] || point previous "$current"
  echo "rolled back: ${PREFIX}/current is release ${previous} (was ${current}; kept as previous, so --rollback again returns to it)"
  echo "kept: ${ETC}/hub.yaml, ${DATA} (database, keys), the unit and the admin command (both run ${PREFIX}/current)"
  restart
  exit 0
fi

# Every input is checked before anything is built or changed: a checkout with a file missing stops
# here, not half-way with /opt already written.
missing=()
for input in package.json package-lock.json README.md scripts/check-node.mjs tsconfig.build.json \
    systemd/home-energy-hub.service systemd/hub.example.yaml systemd/check-release.mjs; do
  [ -f "$input" ] || missing+=("$input")
done
[ -d src ] || missing+=("src/")
[ -d docs ] || missing+=("docs/")
if [ ${#missing[@]} -gt 0 ]; then
  echo "this checkout lacks ${missing[*]}: nothing was installed (git checkout -- . restores tracked files)" >&2
  exit 1
fi
# The range package.json's engines.node gives, checked by the node that will run the hub.
"$NODE" scripts/check-node.mjs || exit 1

echo "building…"
# The checkout's node_modules only builds (tsc); the release gets a clean npm ci of its own below.
[ -x node_modules/.bin/tsc ] || npm ci --no-audit --no-fund
$BUILD
for built in dist/src/main.js dist/src/cli/hub.js; do
  [ -f "$built" ] || { echo "the build made no $built: nothing was installed" >&2; exit 1; }
done
version=$("$NODE" -p 'require("./package.json").version')
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
RELEASE="${version}-${commit}-${STAMP}"

lock
install -d "$RELEASES" "${ROOT}${ETC}" "${ROOT}/etc/systemd/system" "${ROOT}/usr/local/bin"
# What a killed run left: never trusted, never a release.
rm -rf "${RELEASES}"/.incoming-* "${RELEASES}"/.legacy-* "${OPT}/current.tmp" "${OPT}/previous.tmp"
INCOMING=$(mktemp -d "${RELEASES}/.incoming-XXXXXX")
# A run that fails removes its scratch directory (a killed one leaves it to the next run).
trap '[ -z "$INCOMING" ] || rm -rf "$INCOMING"' EXIT
chmod 0755 "$INCOMING"
echo "preparing release ${RELEASE} beside the running one…"
# Not the checkout owner's files: under /opt they belong to whoever runs this (root), so that the
# checkout's user cannot change code the service runs.
# docs/ too: the unit's Documentation= and the README's links point into it.
cp -a --no-preserve=ownership dist docs package.json package-lock.json README.md systemd/check-release.mjs "$INCOMING/"
sed "s|^ExecStart=/usr/bin/node |ExecStart=${NODE} |" systemd/home-energy-hub.service > "${INCOMING}/home-energy-hub.service"
hook copied
(cd "$INCOMING" && $NPM_CI)
hook dependencies

echo "checking it against a copy of the database…"
if ! check_release "$INCOMING" "$INCOMING"; then
  echo "release ${RELEASE} was not installed: nothing was changed (the running hub is as it was)" >&2
  exit 1
fi
if [ -f "${ROOT}${ETC}/hub.yaml" ] && ! HUB_CONFIG="${ROOT}${ETC}/hub.yaml" "$NODE" "${INCOMING}/dist/src/cli/hub.js" config check >/dev/null; then
  echo "release ${RELEASE} refuses ${ETC}/hub.yaml (above): nothing was changed; fix the file, then run this again" >&2
  exit 1
fi
hook checked
[ -n "$ROOT" ] || chown -R root:root "$INCOMING"
mv -T "$INCOMING" "${RELEASES}/${RELEASE}"
INCOMING=""
hook moved

old=$(release_of current)
# previous first: a run killed between the two renames leaves the running release named by both,
# never unnamed (an unnamed release is removed by the next run).
[ -z "$old" ] || point previous "$old"
point current "$RELEASE"
hook switched
echo "switched: ${PREFIX}/current is release ${RELEASE}${old:+ (was ${old}, kept for: sudo $0 --rollback)}"

if [ ! -f "${ROOT}${ETC}/hub.yaml" ]; then
  install -m 0640 systemd/hub.example.yaml "${ROOT}${ETC}/hub.yaml"
  echo "wrote ${ETC}/hub.yaml (edit it, then: systemctl restart home-energy-hub)"
else
  echo "kept: ${ETC}/hub.yaml as it was"
fi
if [ -f "$DB" ]; then
  echo "kept: ${DATA} (the database with its devices, keys, commands and schedules; its migration backups beside it)"
fi

# The unit: replaced by the release's, but one edited here is kept aside first (what the release
# before installed is its copy in that release; a unit from an install before releases has none).
unit="${ROOT}${UNIT}"
if [ ! -f "$unit" ]; then
  echo "wrote: ${UNIT}"
elif cmp -s "$unit" "${RELEASES}/${RELEASE}/home-energy-hub.service"; then
  echo "kept: ${UNIT} (the same as release ${RELEASE}'s)"
elif [ -n "$old" ] && cmp -s "$unit" "${RELEASES}/${old}/home-energy-hub.service"; then
  echo "replaced: ${UNIT} by release ${RELEASE}'s"
else
  cp -p "$unit" "${unit}.local-${STAMP}"
  echo "replaced: ${UNIT}, which differs from what install.sh wrote (edited here, or from an install before releases): kept as ${UNIT}.local-${STAMP}." \
    "Put local settings in ${UNIT}.d/override.conf (sudo systemctl edit home-energy-hub), which install.sh never touches"
fi
cp "${RELEASES}/${RELEASE}/home-energy-hub.service" "${unit}.tmp"
chmod 0644 "${unit}.tmp"
mv -f "${unit}.tmp" "$unit"
cat > "${ROOT}/usr/local/bin/home-energy-hub.tmp" <<CLI
#!/bin/sh
# The hub's admin command, run as the service user so that files it writes stay the service's.
set -e
export HUB_CONFIG=${ETC}/hub.yaml HUB_DATA_DIR=${DATA}
if [ "\$(id -un)" = "${USER_NAME}" ]; then exec ${NODE} ${PREFIX}/current/dist/src/cli/hub.js "\$@"; fi
[ "\$(id -u)" -eq 0 ] || { echo "run it as root: sudo home-energy-hub \$*" >&2; exit 1; }
exec runuser -u ${USER_NAME} -- ${NODE} ${PREFIX}/current/dist/src/cli/hub.js "\$@"
CLI
chmod 0755 "${ROOT}/usr/local/bin/home-energy-hub.tmp"
mv -f "${ROOT}/usr/local/bin/home-energy-hub.tmp" "${ROOT}/usr/local/bin/home-energy-hub"
echo "replaced: /usr/local/bin/home-energy-hub (the admin command); it and the unit run ${PREFIX}/current"

if [ -z "$ROOT" ]; then
  if ! id "$USER_NAME" >/dev/null 2>&1; then
    useradd --system --user-group --home-dir "$DATA" --no-create-home --shell /usr/sbin/nologin "$USER_NAME"
  fi
  usermod -a -G dialout "$USER_NAME"
  chgrp "$USER_NAME" "${ETC}/hub.yaml"
  install -d -o "$USER_NAME" -g "$USER_NAME" -m 0700 "$DATA"
  systemctl daemon-reload
fi

# An install from before releases ran /opt/home-energy-hub/dist itself: now that the unit (reloaded
# above) and the admin command run current, it becomes a release of its own, the previous one.
legacy=()
for name in dist node_modules package.json package-lock.json README.md; do
  [ -e "${OPT}/${name}" ] && legacy+=("$name")
done
if [ ${#legacy[@]} -gt 0 ]; then
  mkdir "${RELEASES}/.legacy-${STAMP}"
  (cd "$OPT" && mv "${legacy[@]}" "${RELEASES}/.legacy-${STAMP}/")
  mv -T "${RELEASES}/.legacy-${STAMP}" "${RELEASES}/installed-before-${STAMP}"
  point previous "installed-before-${STAMP}"
  echo "the install from before releases is kept as release installed-before-${STAMP} (for: sudo $0 --rollback)"
fi

# Two releases are kept: current and previous.
keep_current=$(release_of current); keep_previous=$(release_of previous)
for dir in "${RELEASES}"/*; do
  name=$(basename "$dir")
  [ -d "$dir" ] && [ "$name" != "$keep_current" ] && [ "$name" != "$keep_previous" ] || continue
  rm -rf "$dir"
  echo "removed: release ${name} (only the current and previous releases are kept)"
done

restart
