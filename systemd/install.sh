#!/usr/bin/env bash
# Installs home-energy-hub as a systemd service:
#   the daemon         /opt/home-energy-hub   (compiled JavaScript, production dependencies)
#   the configuration  /etc/home-energy-hub/hub.yaml   (from systemd/hub.example.yaml; kept if it exists)
#   the state          /var/lib/home-energy-hub        (created by systemd, owned by the service user)
#   the admin command  /usr/local/bin/home-energy-hub  (runs `hub` as the service user)
# Usage, from a checkout on the gateway:  sudo systemd/install.sh [--no-start]
# --root DIR installs into DIR instead of / (for packaging and tests; no user, no systemctl).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=""; START=1
while [ $# -gt 0 ]; do
  case "$1" in
    --root) ROOT="${2:?--root needs a directory}"; shift 2 ;;
    --no-start) START=0; shift ;;
    *) echo "usage: $0 [--no-start] [--root DIR]" >&2; exit 2 ;;
  esac
done
PREFIX=/opt/home-energy-hub; ETC=/etc/home-energy-hub; USER_NAME=home-energy-hub

# Every input is checked before anything is built or changed: a checkout with a file missing stops
# here, not half-way with /opt already written.
missing=()
for input in package.json package-lock.json README.md scripts/check-node.mjs tsconfig.build.json \
    systemd/home-energy-hub.service systemd/hub.example.yaml; do
  [ -f "$input" ] || missing+=("$input")
done
[ -d src ] || missing+=("src/")
if [ ${#missing[@]} -gt 0 ]; then
  echo "this checkout lacks ${missing[*]}: nothing was installed (git checkout -- . restores tracked files)" >&2
  exit 1
fi

NODE=$(command -v node) || { echo "node not found: install Node.js 20 first" >&2; exit 1; }
# The range package.json's engines.node gives, checked by the node that will run the hub.
"$NODE" scripts/check-node.mjs || exit 1
[ -n "$ROOT" ] || [ "$(id -u)" -eq 0 ] || { echo "run as root (sudo)" >&2; exit 1; }

echo "building…"
[ -d node_modules ] || npm ci --no-audit --no-fund
npm run -s build
for built in dist/src/main.js dist/src/cli/hub.js; do
  [ -f "$built" ] || { echo "the build made no $built: nothing was installed" >&2; exit 1; }
done

echo "installing into ${ROOT}${PREFIX}…"
install -d "${ROOT}${PREFIX}" "${ROOT}${ETC}" "${ROOT}/etc/systemd/system" "${ROOT}/usr/local/bin"
rm -rf "${ROOT}${PREFIX}/dist"
# Not the checkout owner's files: under /opt they belong to whoever runs this (root), so that the
# checkout's user cannot change code the service runs.
cp -a --no-preserve=ownership dist package.json package-lock.json README.md "${ROOT}${PREFIX}/"
cp -a --no-preserve=ownership node_modules "${ROOT}${PREFIX}/"
(cd "${ROOT}${PREFIX}" && npm prune --omit=dev --no-audit --no-fund >/dev/null)

if [ ! -f "${ROOT}${ETC}/hub.yaml" ]; then
  install -m 0640 systemd/hub.example.yaml "${ROOT}${ETC}/hub.yaml"
  echo "wrote ${ETC}/hub.yaml (edit it, then: systemctl restart home-energy-hub)"
fi
sed "s|^ExecStart=/usr/bin/node |ExecStart=${NODE} |" systemd/home-energy-hub.service > "${ROOT}/etc/systemd/system/home-energy-hub.service"
chmod 0644 "${ROOT}/etc/systemd/system/home-energy-hub.service"
cat > "${ROOT}/usr/local/bin/home-energy-hub" <<CLI
#!/bin/sh
# The hub's admin command, run as the service user so that files it writes stay the service's.
set -e
export HUB_CONFIG=${ETC}/hub.yaml HUB_DATA_DIR=/var/lib/home-energy-hub
if [ "\$(id -un)" = "${USER_NAME}" ]; then exec ${NODE} ${PREFIX}/dist/src/cli/hub.js "\$@"; fi
[ "\$(id -u)" -eq 0 ] || { echo "run it as root: sudo home-energy-hub \$*" >&2; exit 1; }
exec runuser -u ${USER_NAME} -- ${NODE} ${PREFIX}/dist/src/cli/hub.js "\$@"
CLI
chmod 0755 "${ROOT}/usr/local/bin/home-energy-hub"

if [ -n "$ROOT" ]; then echo "installed under ${ROOT}"; exit 0; fi

if ! id "$USER_NAME" >/dev/null 2>&1; then
  useradd --system --user-group --home-dir /var/lib/home-energy-hub --no-create-home --shell /usr/sbin/nologin "$USER_NAME"
fi
usermod -a -G dialout "$USER_NAME"
chown -R root:root "${PREFIX}"   # also fixes an install made before the copies above dropped ownership
chgrp "$USER_NAME" "${ETC}/hub.yaml"
install -d -o "$USER_NAME" -g "$USER_NAME" -m 0700 /var/lib/home-energy-hub
systemctl daemon-reload
if [ "$START" -eq 1 ]; then
  # restart, not enable --now: when install.sh is run again to upgrade, the running hub gets the new code
  systemctl enable home-energy-hub
  systemctl restart home-energy-hub
  echo "started. Create a key:  sudo home-energy-hub keys create my-app"
else
  echo "installed. Start it:    sudo systemctl enable --now home-energy-hub"
fi
