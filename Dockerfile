FROM node:24-bookworm-slim

WORKDIR /app
RUN chown node:node /app
# The image's unprivileged user; nothing here needs root.
USER node

# Manifests first, so that a source change does not reinstall dependencies.
COPY --chown=node:node package.json package-lock.json .npmrc ./
# npm install, not npm ci: see scripts/ensure-installed.sh (the lock file lacks other platforms' optional binaries).
RUN npm install --no-audit --no-fund

COPY --chown=node:node . .

ENV PORT=3000
EXPOSE 3000
CMD ["npm", "start"]
