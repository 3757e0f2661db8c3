#!/bin/sh
# Makes the TLS test files of this folder with the openssl command line: a CA and a server
# certificate for 127.0.0.1 only (no DNS name). Test keys only: never trust them elsewhere.
set -eu
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/ca-key.pem" -out ca.pem \
    -days 36500 -subj "/CN=Masthead Test TLS CA" \
    -addext "basicConstraints=critical,CA:true" -addext "keyUsage=critical,keyCertSign,cRLSign"
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout server-key.pem -out "$work/server.csr" -subj "/CN=127.0.0.1"
printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=critical,CA:false\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n' > "$work/ext.cnf"
openssl x509 -req -in "$work/server.csr" -CA ca.pem -CAkey "$work/ca-key.pem" -CAcreateserial -CAserial "$work/ca.srl" \
    -out server.pem -days 36500 -extfile "$work/ext.cnf"
