# Two stages: the build stage has the dev dependencies and the TypeScript compiler; the runtime stage gets the
# production dependencies, the compiled JavaScript and the files it reads at run time, nothing else.
FROM node:24-bookworm-slim AS build
WORKDIR /app
RUN chown node:node /app
USER node
# Manifests first, so that a source change does not reinstall dependencies.
COPY --chown=node:node package.json package-lock.json .npmrc ./
# npm install, not npm ci: see scripts/ensure-installed.sh (the lock file lacks other platforms' optional binaries).
RUN npm install --no-audit --no-fund
COPY --chown=node:node tsconfig.json tsconfig.build.json ./
COPY --chown=node:node src ./src
COPY --chown=node:node workers ./workers
RUN npm run build

FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
RUN chown node:node /app
# The image's unprivileged user; nothing here needs root.
USER node
# No .npmrc here: its nodedir points into the `node` devDependency, which production does not install.
COPY --chown=node:node package.json package-lock.json ./
RUN npm install --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build --chown=node:node /app/dist ./dist
# Read at run time from the package root (src/package-root.ts): SQL migrations and the index mappings.
COPY --chown=node:node src/db/migrations ./src/db/migrations
COPY --chown=node:node index-mappings ./index-mappings
# The media folder (docker-compose.yml mounts a volume here): made by the image's user, so that a new volume
# takes its owner and the API can write to it (a volume over a missing folder is root's).
RUN mkdir -p .data/media

# Beyond the container's loopback (the API's own default is 127.0.0.1): `docker run -p 3000:3000` reaches it.
ENV HOST=0.0.0.0 PORT=3000
EXPOSE 3000
# node itself is PID 1, so SIGTERM reaches it with no npm in between, and the API drains and exits.
# No init process is needed: the API and the workers install their own SIGTERM/SIGINT handlers (PID 1 gets no
# default ones) and start no child processes, so there are no zombies to reap.
CMD ["node", "dist/src/main.js"]
