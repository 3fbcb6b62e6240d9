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
CMD ["npm", "exec", "--", "node", "--no-node-snapshot", "--enable-source-maps", "dist/src/main.js"]
