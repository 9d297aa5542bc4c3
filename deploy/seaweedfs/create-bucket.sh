#!/bin/sh
# Creates the artifact bucket once (a one-shot job of docker-compose.yml); finding it there already is success.
set -eu
if aws s3api head-bucket --bucket "$ARTIFACT_BUCKET" 2>/dev/null; then
  echo "bucket $ARTIFACT_BUCKET exists"
else
  aws s3api create-bucket --bucket "$ARTIFACT_BUCKET"
  echo "bucket $ARTIFACT_BUCKET created"
fi
