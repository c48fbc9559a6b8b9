#!/bin/sh
# Installs what the memory inspector's browser tests (tests/browser) drive: Debian's
# chromium and chromium-driver (Selenium, from the dev extra, talks to them). Idempotent,
# and quick when both are there; `make test` runs it. CI runs as root on Debian; elsewhere
# install a Chromium and its chromedriver yourself and point NPC_BRAIN_CHROMIUM and
# NPC_BRAIN_CHROMEDRIVER at them (the tests fail, never skip, without a browser).
set -eu

have() {
    [ -n "${1:-}" ] && [ -x "$1" ] || command -v "$2" >/dev/null 2>&1
}

missing=""
have "${NPC_BRAIN_CHROMIUM:-}" chromium || missing="$missing chromium"
have "${NPC_BRAIN_CHROMEDRIVER:-}" chromedriver || missing="$missing chromium-driver"
[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
    echo "tests/browser/setup.sh: no apt-get here; install$missing (a Chromium and its" \
        "chromedriver) and set NPC_BRAIN_CHROMIUM / NPC_BRAIN_CHROMEDRIVER" >&2
    exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    sudo="sudo"
fi
echo "tests/browser/setup.sh: installing$missing" >&2
$sudo apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
