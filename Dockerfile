FROM node:24-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY test ./test
COPY bench ./bench
RUN npm run build
EXPOSE 3000
# the V8 heap sized for a 1 GiB service (docs/decisions/162-service-heap.md); SERVICE_HEAP_MB changes it
CMD ["sh", "-c", "exec npm exec -- node --no-node-snapshot --max-old-space-size=${SERVICE_HEAP_MB:-640} --max-semi-space-size=16 --enable-source-maps dist/src/main.js"]
