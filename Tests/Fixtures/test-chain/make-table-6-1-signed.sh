#!/usr/bin/env bash
# Writes Catalog/the-monthly/receipts/table-6-1-signed.json: the transactions and renewal info of
# table-6-1.json as a StoreKit 2 app sends them, {"signedTransactions": [...],
# "signedRenewalInfos": [...]}, each a compact JWS (ES256, x5c leaf, intermediate, root) signed
# with this folder's test chain, using the openssl command line (OpenSSL 3).
#
# ECDSA signatures are randomized: running this again writes other tokens that verify the same
# against root.der. The payloads below are the data; keep them in step with table-6-1.json.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out="$here/../../../Catalog/the-monthly/receipts/table-6-1-signed.json"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

base64url() { base64 -w0 | tr '+/' '-_' | tr -d '='; }
der64() { base64 -w0 < "$here/$1"; }
header=$(printf '{"alg":"ES256","x5c":["%s","%s","%s"]}' "$(der64 leaf.der)" "$(der64 intermediate.der)" "$(der64 root.der)" | base64url)

# The compact JWS of the payload $1: ECDSA P-256 over SHA-256, the DER signature turned into the
# 64 bytes r‖s that JWS uses.
sign() {
  local input
  input="$header.$(printf '%s' "$1" | base64url)"
  printf '%s' "$input" | openssl dgst -sha256 -sign "$here/leaf-key.pem" -binary > "$work/signature.der"
  local raw=""
  for integer in $(openssl asn1parse -inform DER -in "$work/signature.der" | awk -F: '/INTEGER/ { print $NF }'); do
    integer=$(printf '%64s' "$(printf '%s' "$integer" | sed 's/^0*//')" | tr ' ' 0)
    raw="$raw$integer"
  done
  printf '%s.%s' "$input" "$(printf '%s' "$raw" | xxd -r -p | base64url)"
}

# Subscribe 2020-02-20 12:00, renew 2020-03-20 11:58 (to 2020-04-20 12:00), auto-renew off then
# on again, resubscribe 2020-06-17 12:00 (to 2020-07-17 12:00); each signed when it was bought.
transaction() {
  printf '{"transactionId":"%s","originalTransactionId":"1000001","webOrderLineItemId":"%s","bundleId":"com.example.magazine",' "$1" "$2"
  printf '"productId":"com.example.monthly","subscriptionGroupIdentifier":"20000001","purchaseDate":%s,"originalPurchaseDate":1582200000000,' "$3"
  printf '"expiresDate":%s,"quantity":1,"type":"Auto-Renewable Subscription","inAppOwnershipType":"PURCHASED","signedDate":%s,' "$4" "$3"
  printf '"environment":"Production","transactionReason":"%s","storefront":"USA","storefrontId":"143441","price":4990,"currency":"USD"}' "$5"
}
# The renewal info as the receipt's pending_renewal_info says it, known from the resubscription on.
renewal='{"originalTransactionId":"1000001","autoRenewProductId":"com.example.monthly","productId":"com.example.monthly","autoRenewStatus":1,'
renewal+='"signedDate":1592395200000,"environment":"Production","recentSubscriptionStartDate":1592395200000,"renewalDate":1594987200000}'

{
  printf '{\n  "signedTransactions": [\n'
  printf '    "%s",\n' "$(sign "$(transaction 1000001 2000001 1582200000000 1584705600000 PURCHASE)")"
  printf '    "%s",\n' "$(sign "$(transaction 1000002 2000002 1584705480000 1587384000000 RENEWAL)")"
  printf '    "%s"\n' "$(sign "$(transaction 1000003 2000003 1592395200000 1594987200000 PURCHASE)")"
  printf '  ],\n  "signedRenewalInfos": [\n'
  printf '    "%s"\n' "$(sign "$renewal")"
  printf '  ]\n}\n'
} > "$out"
echo "wrote $out"
