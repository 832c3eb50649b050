#!/usr/bin/env python3
"""Prints the device store of journeys/locker/scenarios/tampered-data-needs-reauthentication:
an app enrolled with the easy-access password below, holding the same note sealed at level
active (intact) and at level offline (its ciphertext then altered by one bit), which the
scenario reads after verifying offline.

It writes Locker's formats independently of the Swift code (LockerVault.swift), so the
scenario also checks that the two agree (the password opens the vault, the intact note
opens): PBKDF2-HMAC-SHA256 and AES-256-GCM with the same associated data. Run it again only to change the fixture; the keys it makes are random.
"""
import base64
import os
import sys

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC

PASSWORD, ROUNDS, NOTE = "Correct-Horse-7", 1000, "IBAN CH93 0076 2011 6238 5295 7"
b64 = lambda data: base64.b64encode(data).decode()


def seal(key, data, context):
    nonce = os.urandom(12)
    return nonce + AESGCM(key).encrypt(nonce, data, context)


def keyring(keys):
    return "locker-v1:" + ",".join(f"{level}={b64(keys[level])}" for level in keys)


keys = {level: os.urandom(32) for level in ["active", "offline", "background", "base"]}
salt = os.urandom(16)
kek = PBKDF2HMAC(algorithm=hashes.SHA256(), length=32, salt=salt, iterations=ROUNDS).derive(PASSWORD.encode())
vault = seal(kek, keyring(keys).encode(), b"journeykit.locker.vault.v1")
device_key = os.urandom(32)
device = {level: keys[level] for level in ["background", "base"]}
wrap = seal(device_key, keyring(device).encode(), b"journeykit.locker.device.v1")
active = seal(keys["active"], NOTE.encode(), b"journeykit.locker.data.v1|active|activeNote")
note = bytearray(seal(keys["offline"], NOTE.encode(), b"journeykit.locker.data.v1|offline|offlineNote"))
note[len(note) // 2] ^= 0x01  # the tampering

sys.stdout.write(f"""    vault: "locker-v1:{ROUNDS}:{b64(salt)}:{b64(vault)}"
    deviceWrap: "locker-v1:{b64(device_key)}:{b64(wrap)}"
    offlineNote: "locker-v1:offline:{b64(bytes(note))}"
    activeNote: "locker-v1:active:{b64(active)}"
""")
