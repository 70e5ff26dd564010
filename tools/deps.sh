#!/usr/bin/env bash
# Installs what g16 needs to build and test on a fresh Debian machine (run as root).
# Idempotent: packages already present are not reinstalled.
set -euo pipefail
pkgs=(build-essential cmake libgmp-dev libcmocka-dev libssl-dev clang libclang-rt-dev nodejs npm)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
# a node/npm installed outside Debian's packages (as on these machines) is fine too
if command -v node >/dev/null && command -v npm >/dev/null; then
  missing=("${missing[@]/nodejs}"); missing=("${missing[@]/npm}")
fi
read -r -a missing <<<"${missing[*]:-}"
if [ "${#missing[@]}" -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
