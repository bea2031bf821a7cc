#!/usr/bin/env bash
# The library's documentation, the five layers as one combined archive, from the debug build's modules: what
# `swift package generate-documentation --target PNCryptBase ... --target PNCrypt --warnings-as-errors
# --enable-experimental-combined-documentation` makes, with the same docc steps (a symbol graph per layer, `docc
# convert` per layer in dependency order with the lower layers' archives as link dependencies, `docc merge`), but
# without the plugin's own build of the package, which compiles every trait's dependencies (swift-crypto's BoringSSL
# included: about 5 minutes on a 2-core machine) for symbol graphs that the debug build's modules already give.
#
#   scripts/build/docs.sh [OUT]     # OUT: the combined archive, default .build/docs/pncrypt.doccarchive
#
# Fails on any docc warning (an unresolved symbol link, an undocumented public parameter): --warnings-as-errors.
# Environment: PNCRYPT_DOCS_SCRATCH (the build folder, default .build).
set -euo pipefail
cd "$(dirname "$0")/../.."

out="${1:-.build/docs/pncrypt.doccarchive}"
scratch=(--scratch-path "${PNCRYPT_DOCS_SCRATCH:-.build}")
layers=(PNCryptBase PNCryptJSON PNCryptCore PNCryptCompression PNCrypt)

swift build "${scratch[@]}" --target PNCrypt >/dev/null
bin="$(swift build "${scratch[@]}" --show-bin-path)"
triple="$(swiftc -print-target-info | sed -n 's/.*"triple": "\(.*\)".*/\1/p' | head -1)"
docc="$(dirname "$(command -v swift)")/docc"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

archives=()
for layer in "${layers[@]}"; do
    graphs="$work/$layer.symbols"
    mkdir -p "$graphs"
    # The plugin's symbol graph options: public, synthesized members included, extension blocks.
    swift-symbolgraph-extract -module-name "$layer" -target "$triple" -I "$bin/Modules" -I Sources/CLibCrypto \
        -I Sources/CZlib -I Sources/CPNCryptSIMD/include -minimum-access-level public -emit-extension-block-symbols \
        -output-dir "$graphs"
    catalog=()
    [ -d "Sources/$layer/$layer.docc" ] && catalog=("Sources/$layer/$layer.docc")
    dependencies=()
    for archive in "${archives[@]}"; do dependencies+=(--dependency "$archive"); done
    "$docc" convert "${catalog[@]}" --fallback-display-name "$layer" --fallback-bundle-identifier "$layer" \
        --additional-symbol-graph-dir "$graphs" --output-path "$work/$layer.doccarchive" \
        --enable-experimental-external-link-support "${dependencies[@]}" --warnings-as-errors
    archives+=("$work/$layer.doccarchive")
done
rm -rf "$out"
mkdir -p "$(dirname "$out")"
"$docc" merge "${archives[@]}" --output-path "$out" --synthesized-landing-page-name pncrypt \
    --synthesized-landing-page-kind Package
echo "docs.sh: $out"
