#!/usr/bin/env bash
# One certification worker: certify the subject on this container's own browser and desktop, limited to the
# shard's selection, and leave the shard's certificate in /certificates/$KIT_SHARD_NAME.
#   KIT_SHARD_NAME       folder name of this shard's certificate (worker-0, worker-1...)
#   KIT_SHARD_SELECTION  a pytest -k expression picking this shard's checks (empty: every check)
#   KIT_CERTIFY_ARGS     what to certify (default: the reference browser driver)
# Exits 0 whenever a certificate was written, whatever its verdict (the merge reads the verdicts); non-zero only
# when no certificate could be written, so the merge does not run on a missing shard.
set -euo pipefail
name="${KIT_SHARD_NAME:?set KIT_SHARD_NAME to the name of this shard}"
out="/certificates/$name"
read -r -a subject <<<"${KIT_CERTIFY_ARGS:---driver reference.browser:sync_factory}"
selection=()
[ -z "${KIT_SHARD_SELECTION:-}" ] || selection=(-k "$KIT_SHARD_SELECTION")
rm -rf "$out"
driverkit certify "${subject[@]}" --out "$out" -- -q -p no:cacheprovider "${selection[@]}" || true
if [ ! -s "$out/certificate.json" ]; then
    echo "kit-certify-shard: $name wrote no certificate" >&2
    exit 1
fi
