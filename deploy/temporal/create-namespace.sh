#!/bin/sh
# One-shot: waits for the Temporal frontend, then creates the namespace when it does not exist.
set -eu
NAMESPACE=${TEMPORAL_NAMESPACE:-default}
ADDRESS=${TEMPORAL_ADDRESS:-temporal:7233}
attempt=1
until temporal operator cluster health --address "$ADDRESS" >/dev/null 2>&1; do
  [ "$attempt" -ge 60 ] && { echo "Temporal at $ADDRESS is not healthy after $attempt tries"; exit 1; }
  attempt=$((attempt + 1)); sleep 2
done
if temporal operator namespace describe -n "$NAMESPACE" --address "$ADDRESS" >/dev/null 2>&1; then
  echo "namespace $NAMESPACE exists"
else
  temporal operator namespace create -n "$NAMESPACE" --retention "${TEMPORAL_RETENTION:-72h}" --address "$ADDRESS"
  echo "namespace $NAMESPACE created"
fi
