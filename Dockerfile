# syntax=docker/dockerfile:1
# Taskbase image: taskmigrate, taskctl, taskimport and taskserve (the HTTP API) on a slim
# Debian with libpq, libmicrohttpd and libcrypto.
#
#   docker build -t taskbase .
#   docker run --rm -e DATABASE_URL=... taskbase taskmigrate status
#
# Stage 1 compiles with the Swift toolchain image (the version the code is developed and
# tested with; override with --build-arg SWIFT_VERSION=6.x); stage 2 carries only the
# binaries, libpq and the migration files, and runs as an unprivileged user.
ARG SWIFT_VERSION=6.3
ARG DEBIAN_RELEASE=bookworm

FROM swift:${SWIFT_VERSION}-${DEBIAN_RELEASE} AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends libpq-dev libmicrohttpd-dev libssl-dev zlib1g-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Every folder the manifest names must exist, tests and benchmarks included.
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
COPY Examples ./Examples
COPY Benchmarks ./Benchmarks
# Build only the programs an operator runs; the Swift runtime is linked in statically.
RUN set -eu; \
    mkdir -p /out; \
    for tool in taskmigrate taskctl taskimport taskserve; do \
        if [ -d "Sources/$tool" ]; then \
            swift build -c release --static-swift-stdlib --product "$tool"; \
            cp "$(swift build -c release --show-bin-path)/$tool" /out/; \
        fi; \
    done; \
    test -x /out/taskmigrate

FROM debian:${DEBIAN_RELEASE}-slim AS runtime
# libpq5 for the database, libmicrohttpd12, zlib1g (gzip) and libssl3 (libcrypto) for taskserve
# and the API tokens, libstdc++6 for the statically linked Swift runtime,
# ca-certificates for sslmode=verify-full against public CAs, tzdata for time zones.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libpq5 libmicrohttpd12 zlib1g libssl3 libstdc++6 ca-certificates tzdata \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 taskbase \
    && useradd --system --uid 10001 --gid taskbase --home-dir /app --shell /usr/sbin/nologin taskbase
WORKDIR /app
COPY --from=build /out/ /usr/local/bin/
COPY migrations ./migrations
ENV TASKBASE_MIGRATIONS_DIR=/app/migrations
USER 10001:10001
# taskserve's default port (the api service publishes it).
EXPOSE 8080
# Each compose service names its program; alone, the image shows taskmigrate's help.
CMD ["taskmigrate", "--help"]
