#!/usr/bin/env python3
"""acme.directoryLogin: signs a user in against Acme's company directory.

The step asks for a username and a password (or a screen action such as "Forgot password?"),
charges the step's attempt limit before it compares anything, and checks the password with
PBKDF2-SHA256 and a constant-time comparison. A wrong password and an unknown username give the
same outcome after the same work, so the step never tells which usernames exist. A disabled
account is said only to someone who knows its password. On success the device remembers the
username, and the step gives the user's name and a session token (secret) derived from the
directory's record and the journey's clock.

The directory is a JSON file (handlers/directory.json) standing in for an LDAP server or an
identity API: the part of a sign-in that is the team's own.
"""

import hashlib
import hmac
import json
import os
import sys

# The protocol module beside this file, without leaving compiled copies in the project.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from journeykit_handler import serve  # noqa: E402

# Compared against when the username is unknown, so that it costs the same as a known one.
UNKNOWN = {"salt": "00" * 16, "rounds": 100000, "pbkdf2Sha256": "00" * 32, "disabled": False}


def load(path):
    with open(path, encoding="utf-8") as file:
        return json.load(file)["users"]


def matches(record, password):
    derived = hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), bytes.fromhex(record["salt"]), record["rounds"])
    return hmac.compare_digest(derived.hex(), record["pbkdf2Sha256"])


def run(step):
    users = load(step.parameters["directory"])
    action, values = step.ask()
    if action:
        return action, {}
    username = values.get("username", "").strip().lower()
    password = values.get("password", "")
    step.charge_attempt()
    record = users.get(username)
    if not matches(record or UNKNOWN, password) or record is None:
        print("sign-in refused for a username of %d characters" % len(username), file=sys.stderr)
        return "wrong", {}
    if record["disabled"]:
        return "disabled", {}
    step.store(step.parameters["rememberKey"], username)
    now = step.now()
    session = hmac.new(bytes.fromhex(record["pbkdf2Sha256"]), ("%s:%d" % (username, now)).encode(), "sha256")
    return "signedIn", {"displayName": record["displayName"], "session": session.hexdigest()}


if __name__ == "__main__":
    serve(run)
