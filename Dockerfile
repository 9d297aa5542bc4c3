# syntax=docker/dockerfile:1
# The worker, the intake and the codec server: one image, the command picks the role
# (`node dist/cli.js worker | intake | codec-server | register-search-attributes`).

# Build: full dependencies, compile TypeScript to dist/.
FROM node:20.19-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# Production dependencies only (the Temporal worker's native module comes prebuilt in its package).
FROM node:20.19-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force

# Runtime: no compiler, no dev dependencies, no source; runs as the image's unprivileged `node` user.
FROM node:20.19-bookworm-slim AS runtime
# A local artifact store under /data by default; docker-compose.yml sets ARTIFACT_URL to its bucket instead.
# Two glibc malloc arenas instead of eight per core: the Temporal core's and Node's threads otherwise each
# keep memory of their own, and the worker's RSS creeps up with the items it has run (bench/README.md).
ENV NODE_ENV=production \
    ARTIFACT_DIR=/data/artifacts \
    MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --chown=root:root package.json ./
COPY --chown=root:root pipelines ./pipelines
RUN mkdir -p /data/artifacts && chown -R node:node /data
USER node
VOLUME ["/data"]
# The main thread's young generation is sized at start: 8 MB instead of 32 (see src/worker-heap.ts; the
# worker sets the rest itself unless WORKER_HEAP=node). It caps nothing the heap may need.
ENTRYPOINT ["node", "--max-semi-space-size=4", "dist/cli.js"]
CMD ["worker"]
