#!/usr/bin/env bash
# Makes the test certificate chain of Tests/Fixtures/test-chain with the openssl command line
# (OpenSSL 3). Run once; its outputs are committed, and running it again replaces every key and
# certificate (and so every token signed with them). See README.md for what each file is.
#
# TEST KEYS ONLY: the private keys written here are public, in the repository, and must never
# sign anything a real system trusts.
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Apple's App Store signing OIDs: the leaf's receipt-signing extension and the intermediate's
# WWDR extension, each holding an ASN.1 NULL as Apple's certificates do.
leaf_oid=1.2.840.113635.100.6.11.1
intermediate_oid=1.2.840.113635.100.6.2.1

cat > "$work/ca.cnf" <<CONF
[ ca ]
default_ca = test_ca
[ test_ca ]
dir = $work
database = $work/index.txt
new_certs_dir = $work/issued
serial = $work/serial
default_md = sha384
policy = any_name
unique_subject = no
email_in_dn = no
copy_extensions = none
[ any_name ]
commonName = supplied
organizationName = optional
organizationalUnitName = optional
countryName = optional
[ root ]
basicConstraints = critical, CA:true
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[ intermediate ]
basicConstraints = critical, CA:true, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
$intermediate_oid = ASN1:NULL
[ intermediate_without_oid ]
basicConstraints = critical, CA:true, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[ leaf ]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature
authorityKeyIdentifier = keyid
$leaf_oid = ASN1:NULL
[ leaf_without_oid ]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature
authorityKeyIdentifier = keyid
CONF
mkdir "$work/issued"
touch "$work/index.txt"
echo 1000 > "$work/serial"

p256() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1"; }

# issue NAME SUBJECT KEY EXTENSIONS START END [ISSUER]: a certificate NAME.der for KEY, signed
# by ISSUER (NAME.der and its key $work/ISSUER-key.pem), or self-signed without ISSUER.
issue() {
  local name=$1 subject=$2 key=$3 extensions=$4 start=$5 end=$6 issuer=${7:-}
  openssl req -new -key "$key" -subj "$subject" -out "$work/$name.csr"
  if [ -z "$issuer" ]; then
    openssl ca -batch -notext -config "$work/ca.cnf" -selfsign -keyfile "$key" -in "$work/$name.csr" \
      -startdate "$start" -enddate "$end" -extensions "$extensions" -out "$work/$name.pem" 2> "$work/$name.log"
  else
    openssl ca -batch -notext -config "$work/ca.cnf" -cert "$work/$issuer.pem" -keyfile "$work/$issuer-key.pem" \
      -in "$work/$name.csr" -startdate "$start" -enddate "$end" -extensions "$extensions" -out "$work/$name.pem" 2> "$work/$name.log"
  fi
  openssl x509 -in "$work/$name.pem" -outform der -out "$name.der"
}

p256 "$work/root-key.pem"
p256 "$work/intermediate-key.pem"
p256 "$work/intermediate-without-oid-key.pem"
p256 "$work/other-root-key.pem"
p256 "$work/other-intermediate-key.pem"
p256 leaf-key.pem
p256 other-key.pem
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384 -out p384-key.pem
# The leaf's key again, in SEC1 form (BEGIN EC PRIVATE KEY).
openssl ec -in leaf-key.pem -out leaf-key-sec1.pem 2> /dev/null

issue root "/CN=Masthead Test Root CA/O=Masthead tests" "$work/root-key.pem" root 20150101000000Z 20460101000000Z
issue intermediate "/CN=Masthead Test Intermediate CA/O=Masthead tests" "$work/intermediate-key.pem" intermediate \
  20150101000000Z 20451231000000Z root
issue intermediate-without-oid "/CN=Masthead Test Intermediate CA without OID/O=Masthead tests" "$work/intermediate-without-oid-key.pem" \
  intermediate_without_oid 20150101000000Z 20451231000000Z root
issue leaf "/CN=Masthead Test Signing/O=Masthead tests" leaf-key.pem leaf 20160101000000Z 20450101000000Z intermediate
issue leaf-expired "/CN=Masthead Test Signing (expired)/O=Masthead tests" leaf-key.pem leaf 20160101000000Z 20190101000000Z intermediate
issue leaf-without-oid "/CN=Masthead Test Signing without OID/O=Masthead tests" leaf-key.pem leaf_without_oid \
  20160101000000Z 20450101000000Z intermediate
issue leaf-under-intermediate-without-oid "/CN=Masthead Test Signing under an intermediate without OID/O=Masthead tests" \
  leaf-key.pem leaf 20160101000000Z 20450101000000Z intermediate-without-oid
issue leaf-under-root "/CN=Masthead Test Signing issued by the root/O=Masthead tests" leaf-key.pem leaf \
  20160101000000Z 20450101000000Z root
issue leaf-p384 "/CN=Masthead Test Signing with a P-384 key/O=Masthead tests" p384-key.pem leaf \
  20160101000000Z 20450101000000Z intermediate
issue other-root "/CN=Masthead Test Other Root CA/O=Masthead tests" "$work/other-root-key.pem" root 20150101000000Z 20460101000000Z
issue other-intermediate "/CN=Masthead Test Other Intermediate CA/O=Masthead tests" "$work/other-intermediate-key.pem" \
  intermediate 20150101000000Z 20451231000000Z other-root
issue other-leaf "/CN=Masthead Test Other Signing/O=Masthead tests" leaf-key.pem leaf 20160101000000Z 20450101000000Z other-intermediate

openssl x509 -inform der -in root.der -out root.pem
# The chain as `masthead generate --signing-chain` takes it: leaf, intermediate, root.
for name in leaf intermediate root; do openssl x509 -inform der -in $name.der; done > chain.pem
echo "made $(ls *.der | wc -l) certificates and $(ls *.pem | wc -l) PEM files in $(pwd)"
