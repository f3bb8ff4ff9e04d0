#!/usr/bin/env bash
# Run by `npm test` first (pretest): the browser tests drive headless Chromium, which on a fresh Debian
# machine is one package away. Installs it when missing (as root, or with password-less sudo).
set -euo pipefail

browser=${TONWATCH_CHROMIUM:-/usr/bin/chromium}
[[ -x $browser ]] && exit 0
if [[ -n ${TONWATCH_CHROMIUM:-} ]]; then
  echo "ensure-chromium: TONWATCH_CHROMIUM=$browser is not an executable" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null; then
  echo "ensure-chromium: no $browser and no apt-get; install Chromium and set TONWATCH_CHROMIUM to its path" >&2
  exit 1
fi
if [[ $(id -u) -eq 0 ]]; then sudo_cmd=(); elif sudo -n true 2>/dev/null; then sudo_cmd=(sudo -n); else
  echo "ensure-chromium: the browser tests need Chromium: sudo apt-get install chromium (or set TONWATCH_CHROMIUM)" >&2
  exit 1
fi
echo "ensure-chromium: installing Debian's chromium for the browser tests"
# A fresh image may have no package lists yet.
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends chromium >/dev/null
[[ -x $browser ]] || { echo "ensure-chromium: chromium installed but $browser is missing" >&2; exit 1; }
