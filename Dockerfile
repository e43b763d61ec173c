# syntax=docker/dockerfile:1
# leadline's image (docs/self-hosting.md). Two stages: `build` has the compilers better-sqlite3's
# native module needs and the devDependencies of the TypeScript build; `runtime` is a slim image
# with the compiled service and production dependencies only, run as the unprivileged `node` user.
# Linted by test/unit/self-hosting.test.ts (dockerfile-utils plus hadolint's main rules); no image
# was built where this file was written (no container runtime there).
ARG NODE_VERSION=20.20

FROM node:${NODE_VERSION}-bookworm AS build
WORKDIR /app
# The workspace's manifests (the typed client, packages/client, is a workspace npm ci must see;
# the service does not need it to run).
COPY package.json package-lock.json ./
COPY packages/client/package.json ./packages/client/
# The full bookworm image has python3, make and g++: better-sqlite3 builds from source if no
# prebuilt binary fits. --ignore-scripts defers `prepare` (the TypeScript build) until src/ is in.
RUN npm ci --no-audit --no-fund --ignore-scripts && npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# The service alone (npm run build also compiles the client package).
RUN npx tsc -p tsconfig.build.json && npm prune --omit=dev --no-audit --no-fund

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    LEADLINE_DB=/data/leadline.db
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json README.md CHANGELOG.md LICENSE ./
COPY bin ./bin
COPY docs ./docs
COPY examples ./examples
COPY src/http/assets ./src/http/assets
# The embedded store's directory (unused when DATABASE_URL is set), owned by the user that runs.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "bin/leadline.js"]
CMD ["serve"]
