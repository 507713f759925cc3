#!/usr/bin/python3
"""An independent reader and writer of the rijn sealed-file format.

Written from doc/format.md alone (not from the C code), on Debian's
python3-cryptography (AES-GCM, HKDF-Expand) and python3-argon2 (Argon2id),
so that tests/seal/test_seal.sh can check `rijn seal` and `rijn open`
against a second implementation in both directions.

  reader.py open  KEYOPT [-in f] [-out f]
  reader.py seal  KEYOPT [-in f] [-out f] [--argon2 t,m,p]
                  [--salt hex24] [--argon2-salt hex16]
  reader.py sparse --key-file k --size n --chunks i,j,... -out f
  reader.py pattern --offset n --length n
  reader.py reject KEYOPT -list f
KEYOPT: --key-file f | --passphrase-env VAR

`sparse` writes a sealed file of an n-byte message whose chunk i holds
pattern bytes (below) but materialises only the listed chunks (and the
final one): the rest of the file is a hole. It lets a test read ranges
beyond 4 GiB with `rijn open --offset` without storing gigabytes.
`pattern` prints message bytes [offset, offset + length) of such a file:
chunk i is the 8-byte big-endian i repeated. `reject` opens every file
named in the list file (one per line, damaged copies) and fails if any of
them opens.

Exit status: 0, or 1 with a message on stderr (any failure: a damaged
file, a wrong key, a usage error).
"""
import hmac
import os
import struct
import sys

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand

MAGIC = b"rijnseal"
CHUNK = 16384
TAG = 16
CT_CHUNK = CHUNK + TAG
PREFIX = b"c2sp.org/chunked-encryption@v1+AEAD_AES_256_GCM\x00"
LIMIT_T, LIMIT_M, LIMIT_P = 10, 1048576, 16


class Bad(Exception):
    pass


def derive(ikm, salt, context):
    okm = HKDFExpand(hashes.SHA512(), 76, PREFIX + salt + context).derive(ikm)
    return okm[:32], okm[32:44], okm[44:76]


def nonce(base, i):
    n = bytearray(base)
    for k in range(8):
        n[11 - k] ^= (i >> (8 * k)) & 0xFF
    return bytes(n)


def argon2id(passphrase, t, m, p, salt):
    from argon2.low_level import Type, hash_secret_raw
    return hash_secret_raw(secret=passphrase, salt=salt, time_cost=t,
                           memory_cost=m, parallelism=p, hash_len=32,
                           type=Type.ID, version=0x13)


def read_exact(f, n):
    out = bytearray()
    while len(out) < n:
        b = f.read(n - len(out))
        if not b:
            break
        out += b
    return bytes(out)


def passphrase_of(opts):
    if opts.get("passphrase-env") is None:
        raise Bad("a passphrase file needs --passphrase-env here")
    v = os.environb.get(opts["passphrase-env"].encode())
    if not v:
        raise Bad("no passphrase in $" + opts["passphrase-env"])
    return v


def key_file(opts):
    with open(opts["key-file"], "rb") as f:
        k = f.read()
    if len(k) != 32:
        raise Bad("key file must hold 32 bytes")
    return k


def do_open(opts, fin, fout):
    head = read_exact(fin, 10)
    if not head or head[:8] != MAGIC[:len(head[:8])]:
        raise Bad("not a rijn sealed file")
    if len(head) < 10:
        raise Bad("truncated header")
    if head[8] != 1:
        raise Bad("unsupported version")
    if head[9] == 1:
        if "key-file" not in opts:
            raise Bad("sealed with a key file")
        ikm = key_file(opts)
    elif head[9] == 2:
        rest = read_exact(fin, 25)
        if len(rest) < 25:
            raise Bad("truncated header")
        head += rest
        t, m, p = struct.unpack(">IIB", rest[:9])
        if t == 0 or p == 0 or m < 8 * p:
            raise Bad("corrupted header")
        if t > LIMIT_T or m > LIMIT_M or p > LIMIT_P:
            raise Bad("parameters over the limits")
        ikm = argon2id(passphrase_of(opts), t, m, p, rest[9:25])
    else:
        raise Bad("corrupted header (key mode)")
    salt_commit = read_exact(fin, 56)
    if len(salt_commit) < 56:
        raise Bad("truncated")
    key, base, commit = derive(ikm, salt_commit[:24], head)
    if not hmac.compare_digest(commit, salt_commit[24:]):
        raise Bad("wrong key or passphrase")
    aead = AESGCM(key)
    i = 0
    buf = read_exact(fin, CT_CHUNK + 1)
    while len(buf) > CT_CHUNK:          # a full chunk with more after it
        try:
            fout.write(aead.decrypt(nonce(base, i), buf[:CT_CHUNK], None))
        except InvalidTag:
            raise Bad("chunk %d fails authentication" % i)
        i += 1
        buf = buf[CT_CHUNK:] + read_exact(fin, CT_CHUNK)
    # buf is the final chunk: shorter than a full one, at least a tag
    if len(buf) < TAG or len(buf) == CT_CHUNK:
        raise Bad("truncated (no final chunk)")
    try:
        fout.write(aead.decrypt(nonce(base, i), buf, None))
    except InvalidTag:
        raise Bad("final chunk %d fails authentication" % i)


def make_header(opts):
    if "key-file" in opts:
        return b"rijnseal\x01\x01", key_file(opts)
    t, m, p = (int(x) for x in opts.get("argon2", "3,262144,4").split(","))
    asalt = (bytes.fromhex(opts["argon2-salt"]) if "argon2-salt" in opts
             else os.urandom(16))
    head = b"rijnseal\x01\x02" + struct.pack(">IIB", t, m, p) + asalt
    return head, argon2id(passphrase_of(opts), t, m, p, asalt)


def do_seal(opts, fin, fout):
    head, ikm = make_header(opts)
    salt = bytes.fromhex(opts["salt"]) if "salt" in opts else os.urandom(24)
    key, base, commit = derive(ikm, salt, head)
    fout.write(head + salt + commit)
    aead = AESGCM(key)
    i = 0
    buf = read_exact(fin, CHUNK)
    while len(buf) == CHUNK:
        fout.write(aead.encrypt(nonce(base, i), buf, None))
        i += 1
        buf = read_exact(fin, CHUNK)
    fout.write(aead.encrypt(nonce(base, i), buf, None))


def pattern(offset, length):
    out = bytearray()
    pos = offset
    while pos < offset + length:
        i = pos // CHUNK
        block = struct.pack(">Q", i) * (CHUNK // 8)
        lo = pos - i * CHUNK
        hi = min(CHUNK, offset + length - i * CHUNK)
        out += block[lo:hi]
        pos = (i + 1) * CHUNK
    return bytes(out)


def do_sparse(opts):
    size = int(opts["size"])
    head = b"rijnseal\x01\x01"
    salt = os.urandom(24)
    key, base, commit = derive(key_file(opts), salt, head)
    aead = AESGCM(key)
    nfinal = size // CHUNK
    with open(opts["out"], "wb") as f:
        f.write(head + salt + commit)
        for i in sorted({int(x) for x in opts["chunks"].split(",")} |
                        {nfinal}):
            pt = pattern(i * CHUNK, min(CHUNK, size - i * CHUNK))
            f.seek(len(head) + 56 + i * CT_CHUNK)
            f.write(aead.encrypt(nonce(base, i), pt, None))


def main(argv):
    if len(argv) < 2:
        raise Bad(__doc__)
    cmd, opts, args = argv[1], {}, argv[2:]
    while args:
        name = args.pop(0).lstrip("-")
        if not args:
            raise Bad("option %s needs a value" % name)
        opts[name] = args.pop(0)
    if cmd == "pattern":
        sys.stdout.buffer.write(pattern(int(opts["offset"]),
                                        int(opts["length"])))
        return
    if cmd == "sparse":
        do_sparse(opts)
        return
    if cmd == "reject":
        accepted = []
        with open(opts["list"]) as names:
            for name in names.read().split("\n"):
                if not name:
                    continue
                try:
                    with open(name, "rb") as f:
                        do_open(opts, f, open(os.devnull, "wb"))
                    accepted.append(name)
                except Bad:
                    pass
        if accepted:
            raise Bad("accepted damaged files: " + " ".join(accepted))
        return
    fin = open(opts["in"], "rb") if "in" in opts else sys.stdin.buffer
    fout = open(opts["out"], "wb") if "out" in opts else sys.stdout.buffer
    if cmd == "open":
        do_open(opts, fin, fout)
    elif cmd == "seal":
        do_seal(opts, fin, fout)
    else:
        raise Bad("unknown command " + cmd)
    fout.flush()


if __name__ == "__main__":
    try:
        main(sys.argv)
    except Bad as e:
        sys.stderr.write("reader.py: %s\n" % e)
        sys.exit(1)
