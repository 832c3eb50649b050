#!/usr/bin/env python3
"""Waits for Glewlwyd, then provisions it through its admin API for JourneyKit's journeys:
the OIDC plugins (PKCE S256 required, rotating one-use refresh tokens, revocation and
end-session), the scopes, a user, and the public clients the shipped journeys use.

Issuers, each an instance of the OIDC plugin under /api/NAME:
  oidc       RS256, the one the shipped scenarios use
  oidcshort  RS256 with 2-second access tokens, for tests that need one to expire for real
  oidces     ES256 (an ECDSA P-256 key)
  oidced     EdDSA (an Ed25519 key). Glewlwyd 2.7 takes its at_hash with SHA-256, where OpenID
             Connect asks for SHA-512 with Ed25519, so clients that check at_hash refuse its tokens

usage: provision.py BASE_URL KEY_DIR TOKEN_TTL [CA_PEM]
  KEY_DIR holds rsa.key/rsa.pub, ec.key/ec.pub and ed.key/ed.pub (PEM); CA_PEM, for an https
  BASE_URL, is the CA its certificate is checked against.
"""
import http.cookiejar
import json
import os
import ssl
import sys
import time
import urllib.error
import urllib.request

BASE, KEYS, TTL = sys.argv[1].rstrip("/"), sys.argv[2], int(sys.argv[3])
CONTEXT = ssl.create_default_context(cafile=sys.argv[4]) if len(sys.argv) > 4 else None
API = BASE + "/api"


def pem(name):
    with open(os.path.join(KEYS, name)) as file:
        return file.read()

CLIENTS = [
    # eIAM's app (eiam-ch/eiam-ios EIAMConfiguration): public client, custom-scheme redirect.
    {"client_id": "BK-picardapp", "redirect_uri": ["eiam://redirect/"], "post_logout_redirect_uri": "eiam://redirect/"},
    # eduID's app (Tiqr/eduid-app-ios AppAuthController): public client, universal-link redirect.
    {"client_id": "dev.egeniq.nl", "redirect_uri": ["https://login.test2.eduid.nl/client/mobile/oauth-redirect"]},
    # An app using the Erste Locker SDK: strong customer authentication through OIDC.
    {"client_id": "locker-demo", "redirect_uri": ["test.example-bank.locker:/oauth-callback"]},
]
USER = {"username": "ada", "name": "Ada Lovelace", "given_name": "Ada", "email": "ada@example.test",
        "password": "ada-Analytical-1843", "scope": ["openid", "offline_access", "eduid.nl/mobile"], "enabled": True}

jar = http.cookiejar.CookieJar()
opener = urllib.request.build_opener(
    urllib.request.HTTPCookieProcessor(jar), urllib.request.HTTPSHandler(context=CONTEXT))


def call(method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(API + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"} if data else {})
    try:
        with opener.open(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except OSError:
        return 0, b""


deadline = time.monotonic() + 10
while call("GET", "/auth/")[0] == 0:
    if time.monotonic() > deadline:
        sys.exit("glewlwyd did not start within 10 s")
    time.sleep(0.05)


def require(what, status, body):
    if status != 200:
        sys.exit(f"cannot {what}: HTTP {status} {body[:300]!r}")


require("sign in as admin", *call("POST", "/auth/", {"username": "admin", "password": "password"}))
require("create the offline_access scope", *call("POST", "/scope/", {
    "name": "offline_access", "display_name": "Offline access", "description": "refresh tokens",
    "password_required": False, "scheme": {}}))
require("create eduID's scope", *call("POST", "/scope/", {
    "name": "eduid.nl/mobile", "display_name": "eduID mobile", "description": "eduID's app API",
    "password_required": False, "scheme": {}}))


def oidc_plugin(name, ttl, jwt_type="rsa", key_size="256", key="rsa"):
    """The OIDC plugin's settings; `name` is also its path under /api. Glewlwyd signs with
    `jwt-type` and takes at_hash with the SHA-2 of `jwt-key-size` bits."""
    return {"module": "oidc", "name": name, "display_name": "OIDC " + name, "enabled": True, "parameters": {
        "iss": API + "/" + name, "jwt-type": jwt_type, "jwt-key-size": key_size, "key": pem(key + ".key"),
        "cert": pem(key + ".pub"), "jwks-show": True,
        "secret-type": "public", "access-token-duration": ttl, "refresh-token-duration": 3600, "code-duration": 60,
        "refresh-token-rolling": False, "refresh-token-one-use": "always",
        "client-refresh-token-one-use-parameter": "refresh-token-one-use", "allow-non-oidc": True,
        "auth-type-code-enabled": True, "auth-type-code-revoke-replayed": True, "auth-type-token-enabled": False,
        "auth-type-id-token-enabled": True, "auth-type-none-enabled": False, "auth-type-password-enabled": False,
        "auth-type-client-enabled": False, "auth-type-device-enabled": False, "auth-type-refresh-enabled": True,
        "scope": [], "additional-parameters": [], "claims": [], "name-claim": "mandatory", "email-claim": "mandatory",
        "scope-claim": "no", "address-claim": {"type": "no"}, "allowed-scope": ["openid", "offline_access", "eduid.nl/mobile"],
        "pkce-allowed": True, "pkce-method-plain-allowed": False, "pkce-required": True,
        "pkce-required-public-client": True, "pkce-scopes": [], "introspection-revocation-allowed": True,
        "introspection-revocation-auth-scope": ["openid"], "introspection-revocation-allow-target-client": True,
        "request-parameter-allow": False, "session-management-allowed": True,
        "session-cookie-name": "GLEWLWYD2_OIDC_SID", "session-cookie-expiration": 3600,
        "front-channel-logout-allowed": False, "back-channel-logout-allowed": False, "register-client-allowed": False,
        "oauth-dpop-allowed": False, "oauth-par-allowed": False, "oauth-rar-allowed": False,
        "oauth-ciba-allowed": False, "resource-allowed": False, "encrypt-out-token-allow": False}}


require("create the oidc plugin", *call("POST", "/mod/plugin/", oidc_plugin("oidc", TTL)))
# The same provider with 2-second access tokens, for tests that need one to expire for real.
require("create the short-lived oidc plugin", *call("POST", "/mod/plugin/", oidc_plugin("oidcshort", 2)))
require("create the ES256 oidc plugin", *call("POST", "/mod/plugin/", oidc_plugin("oidces", TTL, "ecdsa", "256", "ec")))
require("create the EdDSA oidc plugin", *call("POST", "/mod/plugin/", oidc_plugin("oidced", TTL, "eddsa", "256", "ed")))
require("create the user", *call("POST", "/user/", USER))
for client in CLIENTS:
    require(f"create client {client['client_id']}", *call("POST", "/client/", {
        "name": client["client_id"], "description": "public native client", "confidential": False, "enabled": True,
        "authorization_type": ["code", "refresh_token"], "scope": [], **client}))
call("DELETE", "/auth/")
