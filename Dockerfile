# syntax=docker/dockerfile:1
# Build: the Swift 6.3 toolchain compiles a static-stdlib release binary.
FROM swift:6.3-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends zlib1g-dev libssl-dev libsqlite3-dev libpq-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# The whole context (see .dockerignore): SwiftPM wants every target's folder, tests included.
COPY . .
RUN swift build -c release --static-swift-stdlib --product trellis \
    && cp "$(swift build -c release --show-bin-path)/trellis" /usr/local/bin/trellis

# Run: a slim Debian with only the runtime libraries the binary links.
FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends zlib1g libssl3 libsqlite3-0 libpq5 libstdc++6 ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin trellis
WORKDIR /app
COPY --from=build /usr/local/bin/trellis /usr/local/bin/trellis
# The bundled configuration; mount a volume on /app/Config to replace it (the ops console is in
# the binary, so a mounted directory needs no copy of it).
COPY Config ./Config
RUN mkdir -p /app/data && chown trellis /app/data
USER trellis
VOLUME ["/app/data"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=2s --start-period=5s --retries=3 \
    CMD curl -fsS http://127.0.0.1:8080/healthz || exit 1
STOPSIGNAL SIGTERM
ENTRYPOINT ["trellis", "serve", "--config", "/app/Config", "--data-dir", "/app/data"]
