# syntax=docker/dockerfile:1
#
# fitbot's image: a static binary on distroless/static, running as the
# non-root user with its SQLite database on the /data volume.
#
#   docker build --build-arg VERSION=$(git describe --always --dirty) -t fitbot .
#   docker run -d --name fitbot -v fitbot-data:/data \
#     -e SLACK_BOT_TOKEN -e SLACK_APP_TOKEN -p 8081:8081 fitbot
#
# The builder stage runs .ci/build-release.sh, the script CI runs: the same
# tags and link flags, the same static check and smoke runs, so the image
# and CI cannot drift apart.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
ARG VERSION=dev
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    VERSION="$VERSION" .ci/build-release.sh /out/fitbot
# The volume's mount point, owned by distroless's nonroot user (65532), so
# that a fresh named volume is writable: SQLite in WAL mode writes -wal and
# -shm files beside the database.
RUN mkdir -p /rootfs/data

# distroless/static has CA certificates (Slack, the providers, the LLM over
# HTTPS), time-zone data (CRON_TZ), /etc/passwd with nonroot, and no libc,
# shell or package manager. It fits the fully static binary; the dynamic
# alternative (distroless/base with glibc) would tie the image to the
# builder's glibc for no gain.
FROM gcr.io/distroless/static-debian12:nonroot
ARG VERSION=dev
LABEL org.opencontainers.image.title="fitbot" \
      org.opencontainers.image.description="GPU capacity answers for ML teams, in Slack and on the command line" \
      org.opencontainers.image.version="$VERSION"
COPY --from=build /out/fitbot /fitbot
COPY --from=build --chown=65532:65532 /rootfs/ /
USER 65532:65532
ENV FITBOT_DB=/data/fitbot.db
VOLUME ["/data"]
# 8080: Slack's HTTP endpoints, when FITBOT_HTTP_ADDR=:8080 (or serve
# --http :8080) is set; Socket Mode needs no inbound port.
# 8081: /healthz, /readyz and /metrics (FITBOT_HEALTH_ADDR, default :8081).
EXPOSE 8080 8081
# No HEALTHCHECK: the image has no shell or HTTP client to run one. Let the
# orchestrator probe GET /healthz (liveness) and GET /readyz (readiness) on
# :8081; see docs/operations.md.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/fitbot"]
CMD ["serve"]
