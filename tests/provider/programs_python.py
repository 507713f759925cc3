"""AES-GCM known answers through python3-cryptography (tests/provider/programs.sh
runs this once with the default provider alone and once under the rijn
provider configuration; the trace then shows which provider did the work).

    python3 programs_python.py GCM_VECTOR_DIR

GCM_VECTOR_DIR is tests/gcm/vectors: gcm-spec.txt (McGrew-Viega test cases,
provenance line in the file) in full, and from the NIST CAVP GCMVS files
under cavp/ (provenance line in each file) the first record of every
section whose IV cryptography accepts (8 bytes or more): encryption
answers, and decryption answers including the forgeries that must fail.
16-byte tags go through AESGCM, shorter ones through Cipher(AES, GCM).
Then a 1 MiB message with AES-256-GCM, whose digest the caller compares
between the two runs. Prints the OpenSSL cryptography uses, one line per
file, a "digest:" line; exits 1 on any wrong answer.
"""
import hashlib
import os
import sys

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.backends.openssl import backend
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM


def records(path):
    """Yields (section, record) dicts of a "Name = value" vector file."""
    section, rec = {}, {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("#"):
                continue
            if line.startswith("[") and line.endswith("]"):
                name, _, value = line[1:-1].partition("=")
                section = dict(section, **{name.strip(): value.strip()})
                continue
            if not line:
                if rec:
                    yield section, rec
                rec = {}
                continue
            if line == "FAIL":
                rec["FAIL"] = True
                continue
            name, _, value = line.partition("=")
            if name.strip() == "Count" and rec:
                yield section, rec
                rec = {}
            rec[name.strip()] = value.strip()
    if rec:
        yield section, rec


def provenance(path):
    with open(path) as f:
        first = f.readline().strip()
    return first if first.startswith("# Provenance") else "(no provenance line)"


def h(rec, name):
    return bytes.fromhex(rec.get(name, ""))


def encrypt(key, iv, aad, pt, taglen):
    if taglen == 16:
        out = AESGCM(key).encrypt(iv, pt, aad)
        return out[:-16], out[-16:]
    enc = Cipher(algorithms.AES(key), modes.GCM(iv)).encryptor()
    enc.authenticate_additional_data(aad)
    ct = enc.update(pt) + enc.finalize()
    return ct, enc.tag[:taglen]


def decrypt(key, iv, aad, ct, tag):
    """The plaintext, or None when the tag does not verify."""
    try:
        if len(tag) == 16:
            return AESGCM(key).decrypt(iv, ct + tag, aad)
        dec = Cipher(algorithms.AES(key), modes.GCM(iv, tag, min_tag_length=len(tag))).decryptor()
        dec.authenticate_additional_data(aad)
        return dec.update(ct) + dec.finalize()
    except InvalidTag:
        return None


def check(path, first_only):
    """Runs the records of one file; returns (checked, wrong)."""
    checked = wrong = 0
    seen = set()
    for section, rec in records(path):
        key, iv, aad = h(rec, "Key"), h(rec, "IV"), h(rec, "AAD")
        if len(iv) < 8 or not key:
            continue
        skey = tuple(sorted(section.items()))
        if first_only and skey in seen:
            continue
        seen.add(skey)
        tag = h(rec, "Tag")
        valid = not rec.get("FAIL") and rec.get("Result", "valid") == "valid"
        what = "%s Count %s" % (os.path.basename(path), rec.get("Count"))
        if valid:
            ct, t = encrypt(key, iv, aad, h(rec, "PT"), len(tag))
            if ct != h(rec, "CT") or t != tag:
                print("WRONG: %s: encryption gives %s %s" % (what, ct.hex(), t.hex()))
                wrong += 1
        pt = decrypt(key, iv, aad, h(rec, "CT"), tag)
        if valid and pt != h(rec, "PT"):
            print("WRONG: %s: decryption gives %s" % (what, "a forgery" if pt is None else pt.hex()))
            wrong += 1
        if not valid and pt is not None:
            print("WRONG: %s: a forged tag verified" % what)
            wrong += 1
        checked += 1
    return checked, wrong


def main():
    vec = sys.argv[1]
    print("cryptography uses", backend.openssl_version_text())
    files = [(os.path.join(vec, "gcm-spec.txt"), False)]
    for kind in ("gcmEncryptExtIV", "gcmDecrypt"):
        for bits in (128, 192, 256):
            files.append((os.path.join(vec, "cavp", "%s%d.rsp" % (kind, bits)), True))
    wrong = 0
    for path, first_only in files:
        n, w = check(path, first_only)
        wrong += w
        print("%s: %d records, %d wrong; %s" % (os.path.basename(path), n, w, provenance(path)))
        if n == 0:
            print("WRONG: %s: no records read" % path)
            wrong += 1
    # A long message: same bytes with either provider, decrypts back.
    key, iv = bytes(range(32)), bytes(range(12))
    msg = hashlib.shake_256(b"rijn provider python").digest(1 << 20)
    sealed = AESGCM(key).encrypt(iv, msg, b"aad")
    if AESGCM(key).decrypt(iv, sealed, b"aad") != msg:
        print("WRONG: 1 MiB message does not decrypt back")
        wrong += 1
    print("digest: AES-256-GCM 1 MiB", hashlib.sha256(sealed).hexdigest())
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
