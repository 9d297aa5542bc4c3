#!/bin/sh
# The artifact store of docker-compose.yml: SeaweedFS (master, volume, filer and S3 gateway in one
# process) with one S3 identity, the workers' and the intake's, taken from the environment. The keys go
# into a config file readable by this container's user only, never onto the command line.
set -eu
: "${ARTIFACT_STORE_ACCESS_KEY:?set ARTIFACT_STORE_ACCESS_KEY in .env}"
: "${ARTIFACT_STORE_SECRET_KEY:?set ARTIFACT_STORE_SECRET_KEY in .env}"
for key in "$ARTIFACT_STORE_ACCESS_KEY" "$ARTIFACT_STORE_SECRET_KEY"; do
  case "$key" in
    *[!A-Za-z0-9_+/=-]*) echo "ARTIFACT_STORE_ACCESS_KEY and ARTIFACT_STORE_SECRET_KEY must be letters, digits and _+/=- only (e.g. openssl rand -hex 20)" >&2; exit 1 ;;
  esac
done
umask 077
cat > /tmp/s3.json <<JSON
{"identities": [{"name": "research-pipelines",
  "credentials": [{"accessKey": "${ARTIFACT_STORE_ACCESS_KEY}", "secretKey": "${ARTIFACT_STORE_SECRET_KEY}"}],
  "actions": ["Read", "Write", "List", "Tagging", "Admin"]}]}
JSON
exec weed server -dir=/data -ip=artifact-store -ip.bind=0.0.0.0 -volume.max=0 -master.volumeSizeLimitMB=1024 \
  -s3 -s3.port=8333 -s3.config=/tmp/s3.json
