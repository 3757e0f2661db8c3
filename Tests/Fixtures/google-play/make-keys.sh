#!/bin/sh
# Makes the Google Play test keys (test keys only: see README.md). Running it again replaces
# every key, and so invalidates every token and key file made with the old ones.
set -eu
cd "$(dirname "$0")"
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out oidc-signer-key.pem
openssl pkey -in oidc-signer-key.pem -pubout -out oidc-signer-public.pem
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out service-account-key.pem
openssl pkey -in service-account-key.pem -pubout -out service-account-public.pem
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out other-key.pem
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:1024 -out short-key.pem
openssl pkey -in other-key.pem -traditional -out other-key-pkcs1.pem
# The service account's key file, shaped as Google Cloud writes one (its token_uri is ignored).
python3 - <<'PY'
import json
key = open("service-account-key.pem").read()
document = {
    "type": "service_account",
    "project_id": "masthead-test",
    "private_key_id": "0123456789abcdef0123456789abcdef01234567",
    "private_key": key,
    "client_email": "play-reader@masthead-test.iam.gserviceaccount.com",
    "client_id": "100000000000000000001",
    "auth_uri": "https://accounts.google.com/o/oauth2/auth",
    "token_uri": "https://oauth2.googleapis.com/token",
    "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
    "client_x509_cert_url": "https://www.googleapis.com/robot/v1/metadata/x509/play-reader%40masthead-test.iam.gserviceaccount.com",
    "universe_domain": "googleapis.com",
}
open("service-account.json", "w").write(json.dumps(document, indent=2) + "\n")
PY
# A message signed by the openssl command line: RS256 (PKCS #1 v1.5, SHA-256), and PS256 (PSS),
# which RS256 must refuse.
printf 'The Monthly, December 2020' > signed-message.txt
openssl dgst -sha256 -sign oidc-signer-key.pem -out signed-message.rs256 signed-message.txt
openssl dgst -sha256 -sigopt rsa_padding_mode:pss -sign oidc-signer-key.pem -out signed-message.ps256 signed-message.txt
# The JWKS publishing oidc-signer-public.pem under the kid masthead-test-oidc-1, as Google's certs URL does.
python3 - <<'PY'
import base64, json, subprocess
def b64(data): return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
modulus = subprocess.run(["openssl", "rsa", "-pubin", "-in", "oidc-signer-public.pem", "-modulus", "-noout"], capture_output=True, text=True, check=True).stdout.strip().split("=", 1)[1]
n = bytes.fromhex(modulus)
document = {"keys": [{"kty": "RSA", "alg": "RS256", "use": "sig", "kid": "masthead-test-oidc-1", "n": b64(n), "e": "AQAB"}]}
open("jwks.json", "w").write(json.dumps(document, indent=2) + "\n")
PY
