#!/usr/bin/env bash
# Deploys the Airless stack to LocalStack, pushes the example DAGs, runs etl_daily and
# waits for it to succeed. Needs Docker and LOCALSTACK_AUTH_TOKEN; see docs/localstack.md.
# Usage: local/localstack/deploy.sh            (from the repository root)
#        KEEP=1 local/localstack/deploy.sh     (leave LocalStack and the timer pump running)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$ROOT"

STACK="${AIRLESS_STACK:-Airless}"
CDKLOCAL="aws-cdk-local@3.0.4"   # wraps the aws-cdk CLI pinned in package.json (3.0.2+: aws-cdk releases after 2026-03-01)
TIMEOUT_S="${AIRLESS_RUN_TIMEOUT_S:-600}"
AIRLESS=(node "$ROOT/bin/airless.mjs")   # this checkout's CLI (npx would look the name up in the registry)

die() { echo "deploy.sh: $*" >&2; exit 2; }

command -v docker >/dev/null 2>&1 || die "docker is not installed; the LocalStack tier needs a Docker engine (CI without Docker uses the offline tests instead)"
docker info >/dev/null 2>&1 || die "the Docker engine is not running (docker info failed)"
[ -n "${LOCALSTACK_AUTH_TOKEN:-}" ] || die "LOCALSTACK_AUTH_TOKEN is not set; get a token at https://app.localstack.cloud and export it"
[ -d node_modules ] || die "run npm ci first"

# Every SDK client of the CLI (and cdklocal) talks to LocalStack.
export AWS_REGION="${AWS_REGION:-us-east-1}" AWS_DEFAULT_REGION="${AWS_REGION:-us-east-1}"
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test
export AIRLESS_AWS_ENDPOINT="${AIRLESS_AWS_ENDPOINT:-http://localhost:4566}"
export AWS_ENDPOINT_URL="$AIRLESS_AWS_ENDPOINT"
export CDK_DISABLE_CLI_TELEMETRY=1 AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true

echo "== starting LocalStack"
docker compose -f "$HERE/docker-compose.yml" up -d
for i in $(seq 1 60); do
  if curl -fsS "$AIRLESS_AWS_ENDPOINT/_localstack/health" >/dev/null 2>&1; then break; fi
  [ "$i" = 60 ] && die "LocalStack did not become healthy in 120 s (docker compose -f $HERE/docker-compose.yml logs)"
  sleep 2
done

PUMP_PID=""
cleanup() {
  if [ -n "$PUMP_PID" ] && [ -z "${KEEP:-}" ]; then kill "$PUMP_PID" 2>/dev/null || true; fi
}
trap cleanup EXIT

# cdklocal drives this checkout's aws-cdk (NODE_PATH). For aws-cdk >= 2.177 it drops every
# AWS_* variable but the allow-listed ones and refuses AWS_ENDPOINT_URL without
# AWS_ENDPOINT_URL_S3 (an endpoint whose host has an `.s3.` label): on the default endpoint
# leave both to cdklocal (localhost.localstack.cloud:4566).
cdklocal() {
  local unset_endpoint=()
  if [ -z "${AWS_ENDPOINT_URL_S3:-}" ]; then
    [ "$AIRLESS_AWS_ENDPOINT" = "http://localhost:4566" ] \
      || die "AIRLESS_AWS_ENDPOINT is $AIRLESS_AWS_ENDPOINT: set AWS_ENDPOINT_URL_S3 too (its host must have an .s3. label) for cdklocal"
    unset_endpoint=(-u AWS_ENDPOINT_URL)
  fi
  # ${a[@]+...}: an empty array under `set -u` is an error in the bash 3.2 of macOS.
  env ${unset_endpoint[@]+"${unset_endpoint[@]}"} NODE_PATH="$ROOT/node_modules${NODE_PATH:+:$NODE_PATH}" \
    AWS_ENVAR_ALLOWLIST=AWS_REGION,AWS_DEFAULT_REGION npx --yes "$CDKLOCAL" "$@"
}

echo "== deploying stack $STACK with cdklocal"
cdklocal bootstrap
cdklocal deploy "$STACK" --require-approval never

echo "== pushing examples/dags"
"${AIRLESS[@]}" push examples/dags --stack "$STACK"

echo "== starting the timer pump (LocalStack's Scheduler never fires schedules)"
"${AIRLESS[@]}" timer-pump --stack "$STACK" > "$HERE/timer-pump.log" 2>&1 &
PUMP_PID=$!

echo "== triggering etl_daily"
TRIGGER_OUT="$("${AIRLESS[@]}" trigger etl_daily --stack "$STACK")"
echo "$TRIGGER_OUT"
RUN_ID="$(echo "$TRIGGER_OUT" | sed -n 's/^run \([^ ]*\) of etl_daily.*/\1/p')"
[ -n "$RUN_ID" ] || die "could not read the run id from: $TRIGGER_OUT"

echo "== waiting for $RUN_ID (etl_daily retries extract once after 30-60 s)"
deadline=$(( $(date +%s) + TIMEOUT_S ))
while :; do
  RUNS="$("${AIRLESS[@]}" runs etl_daily --stack "$STACK")"
  STATE="$(echo "$RUNS" | awk -v id="$RUN_ID" '$1 == id { print $2 }' | sed 's/\x1b\[[0-9;]*m//g')"
  case "$STATE" in
    success) echo "$RUNS"; "${AIRLESS[@]}" tasks etl_daily "$RUN_ID" --stack "$STACK"; echo "== etl_daily succeeded"; exit 0 ;;
    failed) "${AIRLESS[@]}" tasks etl_daily "$RUN_ID" --stack "$STACK"; echo "== etl_daily failed" >&2; exit 1 ;;
  esac
  [ "$(date +%s)" -ge "$deadline" ] && { echo "$RUNS"; echo "== timed out after ${TIMEOUT_S} s (state: ${STATE:-unknown})" >&2; exit 1; }
  sleep 5
done
