#!/usr/bin/env bash
# A real OpenID Provider for JourneyKit's OAuth journeys: Glewlwyd (Debian's `glewlwyd`),
# on 127.0.0.1 with a fresh database, provisioned through its admin API.
#
#   Tests/oidc/provider.sh start   # prints the issuer; leaves the provider running
#   Tests/oidc/provider.sh stop    # stops it and removes its files
#
# env: JOURNEYKIT_OIDC_PORT (default 4593), JOURNEYKIT_OIDC_DIR (default /tmp/journeykit-oidc),
#      JOURNEYKIT_OIDC_TOKEN_TTL (access/id token lifetime in seconds, default 300)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PORT="${JOURNEYKIT_OIDC_PORT:-4593}"
DIR="${JOURNEYKIT_OIDC_DIR:-/tmp/journeykit-oidc}"
TTL="${JOURNEYKIT_OIDC_TOKEN_TTL:-300}"
BASE="http://127.0.0.1:$PORT"

stop() {
    if [ -f "$DIR/pid" ]; then
        pid=$(cat "$DIR/pid")
        if kill -0 "$pid" 2>/dev/null; then kill "$pid"; for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done; fi
    fi
    rm -rf "$DIR"
}

start() {
    if ! command -v glewlwyd >/dev/null 2>&1 || ! command -v sqlite3 >/dev/null 2>&1 || ! command -v openssl >/dev/null 2>&1; then
        sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
        echo "installing glewlwyd sqlite3 openssl (apt-get)…" >&2
        $sudo apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends glewlwyd sqlite3 openssl >/dev/null
    fi
    schema=/usr/share/dbconfig-common/data/glewlwyd/install/sqlite3
    [ -r "$schema" ] || { echo "error: $schema is missing" >&2; exit 2; }
    stop
    mkdir -p "$DIR"
    sqlite3 "$DIR/glewlwyd.db" < "$schema"
    # The id_token signing keys: RSA for RS256, P-256 for ES256, Ed25519 for EdDSA.
    openssl genrsa -out "$DIR/rsa.key" 2048 2>/dev/null
    openssl rsa -in "$DIR/rsa.key" -pubout -out "$DIR/rsa.pub" 2>/dev/null
    openssl ecparam -name prime256v1 -genkey -noout -out "$DIR/ec.key"
    openssl ec -in "$DIR/ec.key" -pubout -out "$DIR/ec.pub" 2>/dev/null
    openssl genpkey -algorithm ed25519 -out "$DIR/ed.key" 2>/dev/null
    openssl pkey -in "$DIR/ed.key" -pubout -out "$DIR/ed.pub" 2>/dev/null
    cat > "$DIR/glewlwyd.conf" <<CONF
port=$PORT
bind_address="127.0.0.1"
external_url="$BASE"
login_url="login.html"
api_prefix="api"
allow_origin="*"
log_mode="file"
log_level="WARNING"
log_file="$DIR/glewlwyd.log"
cookie_secure=0
session_expiration=3600
session_key="GLEWLWYD2_SESSION_ID"
admin_session_authentication="cookie"
profile_session_authentication="cookie"
allow_multiple_user_per_session=false
login_api_enabled=true
plugin_api_run_enabled=""
add_x_frame_option_header_deny=true
max_post_size=1048576
admin_scope="g_admin"
profile_scope="g_profile"
user_module_path="/usr/lib/glewlwyd/user"
client_module_path="/usr/lib/glewlwyd/client"
user_auth_scheme_module_path="/usr/lib/glewlwyd/scheme"
plugin_module_path="/usr/lib/glewlwyd/plugin"
use_secure_connection=false
# Glewlwyd 2.7 will not start without these two lines, even with TLS off.
secure_connection_key_file="$DIR/none.key"
secure_connection_pem_file="$DIR/none.pem"
hash_algorithm = "SHA512"
database =
{
  type = "sqlite3"
  path = "$DIR/glewlwyd.db"
};
CONF
    if python3 -c "import socket,sys; s=socket.socket(); sys.exit(0 if s.connect_ex(('127.0.0.1', $PORT)) == 0 else 1)"; then
        echo "error: port $PORT is already in use" >&2; exit 3
    fi
    glewlwyd --config-file="$DIR/glewlwyd.conf" > "$DIR/stdout.log" 2>&1 &
    echo $! > "$DIR/pid"
    python3 "$HERE/provision.py" "$BASE" "$DIR" "$TTL" || { cat "$DIR/stdout.log" >&2; stop; exit 4; }
    echo "$BASE/api/oidc"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
