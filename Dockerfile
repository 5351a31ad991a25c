# syntax=docker/dockerfile:1
# Calebe gateway image (issue 15 item 4). One image for every role: `serve --role api|worker|all`,
# `migrate`, `provider-emulator`. TypeScript runs through tsx (a runtime dependency), so there is no build
# stage: the first stage only installs production dependencies.

FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts is not used: bcrypt picks its prebuilt native binary in its install step.
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    LOG_FORMAT=json \
    CALEBE_DATA_DIR=/app/.calebe
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --chown=root:root package.json ./
COPY --chown=root:root bin ./bin
COPY --chown=root:root src ./src
COPY --chown=root:root migrations ./migrations
# Code stays owned by root (read-only to the process); only the embedded-database directory is writable.
RUN mkdir -p /app/.calebe && chown node:node /app/.calebe
# The base image's unprivileged `node` user (uid 1000).
USER node
EXPOSE 3000
# Slim has no curl: node's own fetch. /ready checks the database and the rate-limit store.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "bin/calebe.js"]
CMD ["serve"]
