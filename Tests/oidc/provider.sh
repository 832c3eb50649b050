#!/usr/bin/env bash
# A real OpenID Provider for JourneyKit's OAuth journeys: Glewlwyd (Debian's `glewlwyd`),
# on 127.0.0.1 with fresh databases, provisioned through its admin API. Two instances run:
#
#   http://127.0.0.1:4593   the provider most scenarios use
#   https://127.0.0.1:4594  the same provider over TLS, for certificate pinning (eIAM's I12),
#                           with a certificate made for this run by a loopback test CA
#
#   Tests/oidc/provider.sh start   # prints the issuers; leaves the provider running
#   Tests/oidc/provider.sh stop    # stops it and removes its files
#
# env: JOURNEYKIT_OIDC_PORT (default 4593), JOURNEYKIT_OIDC_TLS_PORT (default the port + 1),
#      JOURNEYKIT_OIDC_DIR (default /tmp/journeykit-oidc),
#      JOURNEYKIT_OIDC_TOKEN_TTL (access/id token lifetime in seconds, default 300)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PORT="${JOURNEYKIT_OIDC_PORT:-4593}"
TLS_PORT="${JOURNEYKIT_OIDC_TLS_PORT:-$((PORT + 1))}"
DIR="${JOURNEYKIT_OIDC_DIR:-/tmp/journeykit-oidc}"
TTL="${JOURNEYKIT_OIDC_TOKEN_TTL:-300}"

stop() {
    for pidfile in "$DIR/pid" "$DIR/http/pid" "$DIR/https/pid"; do
        [ -f "$pidfile" ] || continue
        pid=$(cat "$pidfile")
        if kill -0 "$pid" 2>/dev/null; then kill "$pid"; for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done; fi
    done
    rm -rf "$DIR"
}

# The loopback test CA. Its key is derived from a published phrase, so that its public key,
# and the SPKI pin the I12 scenarios trust (UQB/2RMa4OJx6QcCRMN8whpi/xPSw3A62ecyiFjdiCQ=), is the
# same in every run; it signs nothing but the certificates this script makes for 127.0.0.1, and
# only a scenario that trusts it by that pin believes them. Its certificate, and the server's key
# and certificate, are new in every run.
make_tls() {
    local tls="$DIR/tls" scalar
    mkdir -p "$tls"
    scalar=$(printf 'JourneyKit loopback test CA' | openssl dgst -sha256 -r | cut -d' ' -f1)
    printf 'asn1=SEQUENCE:ec\n[ec]\nversion=INTEGER:1\nkey=FORMAT:HEX,OCTETSTRING:%s\nparams=EXPLICIT:0,OID:prime256v1\n' \
        "$scalar" > "$tls/ca-key.cnf"
    openssl asn1parse -genconf "$tls/ca-key.cnf" -out "$tls/ca-key.der" -noout
    openssl ec -inform DER -in "$tls/ca-key.der" -out "$tls/ca.key" 2>/dev/null
    rm -f "$tls/ca-key.cnf" "$tls/ca-key.der"
    openssl req -x509 -new -key "$tls/ca.key" -sha256 -days 2 -subj "/CN=JourneyKit loopback test CA" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
        -out "$tls/ca.pem" 2>/dev/null
    openssl ecparam -name prime256v1 -genkey -noout -out "$tls/server.key"
    openssl req -new -key "$tls/server.key" -subj "/CN=127.0.0.1" -out "$tls/server.csr" 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n' \
        > "$tls/server.ext"
    openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" -set_serial "0x$(openssl rand -hex 8)" \
        -days 2 -sha256 -extfile "$tls/server.ext" -out "$tls/server.pem" 2>/dev/null
    # The server presents its certificate and the CA's, as servers send their chain.
    cat "$tls/server.pem" "$tls/ca.pem" > "$tls/chain.pem"
    rm -f "$tls/server.csr" "$tls/server.ext"
}

# Writes the configuration of one instance: config NAME PORT SCHEME
config() {
    local name="$1" port="$2" scheme="$3" secure=false key="$DIR/none.key" pem="$DIR/none.pem" cookie=0
    if [ "$scheme" = https ]; then secure=true; key="$DIR/tls/server.key"; pem="$DIR/tls/chain.pem"; cookie=1; fi
    mkdir -p "$DIR/$name"
    sqlite3 "$DIR/$name/glewlwyd.db" < "$schema"
    cat > "$DIR/$name/glewlwyd.conf" <<CONF
port=$port
bind_address="127.0.0.1"
external_url="$scheme://127.0.0.1:$port"
login_url="login.html"
api_prefix="api"
allow_origin="*"
log_mode="file"
log_level="WARNING"
log_file="$DIR/$name/glewlwyd.log"
cookie_secure=$cookie
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
use_secure_connection=$secure
# Glewlwyd 2.7 will not start without these two lines, even with TLS off.
secure_connection_key_file="$key"
secure_connection_pem_file="$pem"
hash_algorithm = "SHA512"
database =
{
  type = "sqlite3"
  path = "$DIR/$name/glewlwyd.db"
};
CONF
}

in_use() {
    python3 -c "import socket,sys; s=socket.socket(); sys.exit(0 if s.connect_ex(('127.0.0.1', $1)) == 0 else 1)"
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
    for port in "$PORT" "$TLS_PORT"; do
        if in_use "$port"; then echo "error: port $port is already in use" >&2; exit 3; fi
    done
    mkdir -p "$DIR/keys"
    # The id_token signing keys: RSA for RS256, P-256 for ES256, Ed25519 for EdDSA.
    openssl genrsa -out "$DIR/keys/rsa.key" 2048 2>/dev/null
    openssl rsa -in "$DIR/keys/rsa.key" -pubout -out "$DIR/keys/rsa.pub" 2>/dev/null
    openssl ecparam -name prime256v1 -genkey -noout -out "$DIR/keys/ec.key"
    openssl ec -in "$DIR/keys/ec.key" -pubout -out "$DIR/keys/ec.pub" 2>/dev/null
    openssl genpkey -algorithm ed25519 -out "$DIR/keys/ed.key" 2>/dev/null
    openssl pkey -in "$DIR/keys/ed.key" -pubout -out "$DIR/keys/ed.pub" 2>/dev/null
    make_tls
    config http "$PORT" http
    config https "$TLS_PORT" https
    for name in http https; do
        glewlwyd --config-file="$DIR/$name/glewlwyd.conf" > "$DIR/$name/stdout.log" 2>&1 &
        echo $! > "$DIR/$name/pid"
    done
    python3 "$HERE/provision.py" "http://127.0.0.1:$PORT" "$DIR/keys" "$TTL" \
        || { cat "$DIR/http/stdout.log" >&2; stop; exit 4; }
    python3 "$HERE/provision.py" "https://127.0.0.1:$TLS_PORT" "$DIR/keys" "$TTL" "$DIR/tls/ca.pem" \
        || { cat "$DIR/https/stdout.log" >&2; stop; exit 4; }
    echo "http://127.0.0.1:$PORT/api/oidc"
    echo "https://127.0.0.1:$TLS_PORT/api/oidc"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
