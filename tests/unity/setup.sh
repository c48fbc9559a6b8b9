#!/bin/sh
# Installs what the Unity package's C# tests (tests/unity) compile and run with: Debian's
# Mono (mono-devel: the mcs compiler, the runtime, System.Net.Http), Json.NET
# (libnewtonsoft-json-cil-dev, the library Unity ships as com.unity.nuget.newtonsoft-json)
# and NUnit 2.6 (libnunit-cil-dev, nunit-console); each found by pkg-config. Idempotent, and quick when they are there;
# `make test` runs it. CI runs as root on Debian; elsewhere install them yourself.
set -eu

missing=""
command -v mcs >/dev/null 2>&1 || missing="$missing mono-devel"
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
pkg-config --exists newtonsoft-json 2>/dev/null || missing="$missing libnewtonsoft-json-cil-dev"
pkg-config --exists nunit 2>/dev/null || missing="$missing libnunit-cil-dev"
command -v nunit-console >/dev/null 2>&1 || missing="$missing nunit-console"
[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
    echo "tests/unity/setup.sh: no apt-get here; install$missing (Mono, Json.NET and" \
        "NUnit's console runner)" >&2
    exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    sudo="sudo"
fi
echo "tests/unity/setup.sh: installing$missing" >&2
$sudo apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
