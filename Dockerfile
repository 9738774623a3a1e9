# One image for every process: gateway, worker, admin CLI and migrations (docker-compose.yml picks the command).

FROM node:20.19.5-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY libs/client/ libs/client/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY apps/ apps/
COPY libs/ libs/
COPY scripts/ scripts/
# The image has no .git: the commit for the deployment tag comes in as a build argument.
ARG GIT_COMMIT=
RUN GIT_COMMIT=$GIT_COMMIT npm run build

FROM node:20.19.5-bookworm-slim AS production-deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY libs/client/ libs/client/
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:20.19.5-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=production-deps /app/node_modules node_modules
COPY --from=production-deps /app/libs/client libs/client
COPY --from=build /app/dist dist
COPY package.json ./
# The node image's unprivileged user. It writes its logs to stdout and, with STORAGE_DRIVER=local, uploads under
# /app/data (STORAGE_DIR ./data/uploads): that folder is the user's, and a volume mounted there inherits it.
RUN mkdir -p /app/data/uploads && chown -R node:node /app/data
USER node
EXPOSE 3000 3002
CMD ["node", "dist/apps/gateway/src/main.js"]
