import Masthead

/// The service's HTTP contract as an OpenAPI 3.1 document: every route, parameter, body, answer
/// and error code, served at `GET /openapi.json`.
///
/// Kept in source rather than as a resource, so the installed binary needs no bundle beside it.
/// Edit the JSON below when a route, parameter, body or error code changes;
/// `OpenAPIDocumentTests` checks that it parses, that every reference resolves and that its
/// operations are the router's.
enum OpenAPIDocument {
    /// The document, pretty-printed JSON.
    static let json: String = #"""
        {
          "openapi": "3.1.0",
          "info": {
            "title": "Masthead",
            "version": "\#(MastheadVersion.current)",
            "summary": "Which magazine issues an App Store subscriber may read.",
            "description": "Masthead's companion service: it decides which magazine issues an App Store subscriber may read. A content-delivery API asks it before serving an issue (the download check); the app's backend posts verified receipts, or the signed transactions a StoreKit 2 app holds; Apple posts its status notifications (version 1, and version 2: signed).\n\n**Authentication.** Every route but `/health`, `/openapi.json` and the App Store notifications needs `Authorization: Bearer <MASTHEAD_API_TOKEN>` (the scheme name in any case; the token compared in constant time). Publishing an issue (PUT) and listing the rejected notifications need the admin token, `MASTHEAD_ADMIN_TOKEN` (the API token there is 403; the admin token elsewhere is 401). A version 1 notification carries the App Store shared secret, `MASTHEAD_APP_STORE_SHARED_SECRET`, in its body's `password` field (OpenAPI has no security scheme for a secret in the body: see that operation); a version 2 notification is signed by Apple and verified instead. The token is checked before the route is looked up: without it, an unknown path is 401 too.\n\n**Path ids.** User, publication and issue ids in the path are percent-decoded and must then be 1 to 256 bytes of valid UTF-8 with no control character (C0 U+0000–U+001F, DEL U+007F, C1 U+0080–U+009F); anything else is 400 `invalid_user_id`, `invalid_publication_id` or `invalid_issue_id` before any lookup, the message naming the rule broken. An id is its exact bytes, never normalised: `caf%C3%A9` and `cafe%CC%81` (é precomposed and decomposed) are two users, or two issues. An app account token in the path is a UUID written 8-4-4-4-12 hexadecimal digits, in either case; anything else is 400 `invalid_app_account_token`.\n\n**Query strings.** Parameters are percent-decoded and `+` is a space (so an offset such as `+09:30` in `at` is sent as `%2B09:30`); the last of repeated names wins; unknown names are ignored.\n\n**Bodies.** JSON (RFC 8259, read strictly), framed by `Content-Length` (at most 2 MiB by default); `Transfer-Encoding` is not supported. A request whose body has not all arrived is judged by its head first: a wrong token, no route, a wrong method, the API token on an admin route, a malformed path id or a body over `maxBodyBytes` is answered at once (401, 404, 405, 403, 400, 413), the body never read, and the connection closed. A request sent with `Expect: 100-continue` gets `100 Continue` once these checks pass, or its refusal at once, without the body being sent. The bodies held at once, all connections together, stay within `maxBufferedBodyBytes` (64 MiB by default): past it, 503 `server_busy` with `Retry-After: 1`, the body unread.\n\n**HEAD.** Every GET route answers HEAD as it answers GET: the same status and header fields (`Content-Length` is the length of GET's body), without the body.\n\n**Errors.** Every error is `{\"error\": {\"code\": \"…\", \"message\": \"…\"}}` (schema `Error`); the code is stable, the message is for people. Besides the codes listed with each operation, any request may get:\n- 400 `bad_request`: the request cannot be parsed (malformed request line or header field, a field value holding a control character such as NUL or a bare CR, an HTTP/1.1 request without `Host` or any request with several, obsolete line folding, an invalid or conflicting `Content-Length`, `Content-Length` together with `Transfer-Encoding`); the connection is closed.\n- 404 `not_found`: no route for the method and path (with a valid token).\n- 405 `method_not_allowed`: the path exists but not with this method; the `Allow` header names the one that does.\n- 408 `request_timeout`: the request was not complete within the read timeout (10 s by default).\n- 413 `content_too_large`: the body is larger than `maxBodyBytes` (2 MiB by default).\n- 414 `uri_too_long`: the request line is longer than `maxRequestLineBytes` (8 KiB by default).\n- 431 `request_header_fields_too_large`: a header field, the header section (80 KiB each by default) or the number of fields (1000) is over its limit.\n- 501 `not_implemented`: `Transfer-Encoding` (chunked bodies are not supported; send `Content-Length`).\n- 503 `handler_timeout`: the answer was not ready within the handler timeout (30 s by default); `too_many_connections`: the server has too many open connections; `server_busy`: the request bodies held at once would exceed `maxBufferedBodyBytes` (`Retry-After: 1`; the body is not read).\n- 505 `http_version_not_supported`: only HTTP/1.1 and HTTP/1.0 are served.\nThe HTTP layer's errors close the connection. Every limit is a setting of `masthead serve` (see `masthead serve --help`).",
            "license": {
              "name": "Apache-2.0",
              "identifier": "Apache-2.0"
            }
          },
          "servers": [
            {
              "url": "http://localhost:8080",
              "description": "`masthead serve` with its default port"
            }
          ],
          "security": [
            {
              "apiToken": []
            }
          ],
          "tags": [
            {
              "name": "Entitlements",
              "description": "Receipts and app account tokens in; entitlements and download checks out."
            },
            {
              "name": "App Store",
              "description": "Apple's server-to-server notifications, those refused for their signature, and the polling job's list."
            },
            {
              "name": "Catalog",
              "description": "The publications' issues, with those published through the API."
            },
            {
              "name": "Operations",
              "description": "Health, metrics and this document."
            }
          ],
          "paths": {
            "/health": {
              "get": {
                "tags": [
                  "Operations"
                ],
                "summary": "Whether the service can write its database",
                "description": "No token. 200 `{\"status\": \"ok\"}`; 503 `degraded` with the reason while the last database write failed (a full disk, a file system remounted read-only, a failing commit), until a write succeeds. A failed read does not count, and neither does a receipt or app account token refused as in use.",
                "operationId": "getHealth",
                "security": [],
                "responses": {
                  "200": {
                    "description": "The service can write its database.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Health"
                        },
                        "examples": {
                          "ok": {
                            "value": {
                              "status": "ok"
                            }
                          }
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "`bad_request`: the request cannot be parsed (closes the connection).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "408": {
                    "$ref": "#/components/responses/RequestTimeout"
                  },
                  "413": {
                    "$ref": "#/components/responses/ContentTooLarge"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeaderFieldsTooLarge"
                  },
                  "501": {
                    "$ref": "#/components/responses/NotImplemented"
                  },
                  "503": {
                    "description": "`degraded`: the last write failed (body `Health`); or an `Error` from the HTTP layer: `handler_timeout`, `too_many_connections`.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "oneOf": [
                            {
                              "$ref": "#/components/schemas/Health"
                            },
                            {
                              "$ref": "#/components/schemas/Error"
                            }
                          ]
                        },
                        "examples": {
                          "degraded": {
                            "value": {
                              "status": "degraded",
                              "database": "the last write failed: …"
                            }
                          }
                        }
                      }
                    }
                  },
                  "505": {
                    "$ref": "#/components/responses/HTTPVersionNotSupported"
                  }
                }
              },
              "head": {
                "tags": [
                  "Operations"
                ],
                "summary": "The head of: whether the service can write its database",
                "description": "As GET, without the body.",
                "operationId": "headHealth",
                "security": [],
                "responses": {
                  "200": {
                    "$ref": "#/components/responses/Head"
                  },
                  "400": {
                    "$ref": "#/components/responses/Head"
                  },
                  "408": {
                    "$ref": "#/components/responses/Head"
                  },
                  "413": {
                    "$ref": "#/components/responses/Head"
                  },
                  "414": {
                    "$ref": "#/components/responses/Head"
                  },
                  "431": {
                    "$ref": "#/components/responses/Head"
                  },
                  "501": {
                    "$ref": "#/components/responses/Head"
                  },
                  "503": {
                    "$ref": "#/components/responses/Head"
                  },
                  "505": {
                    "$ref": "#/components/responses/Head"
                  }
                }
              }
            },
            "/openapi.json": {
              "get": {
                "tags": [
                  "Operations"
                ],
                "summary": "This document",
                "description": "No token. The OpenAPI 3.1 document of the service's HTTP contract.",
                "operationId": "getOpenAPIDocument",
                "security": [],
                "responses": {
                  "200": {
                    "description": "The OpenAPI document.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "type": "object"
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "`bad_request`: the request cannot be parsed (closes the connection).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "408": {
                    "$ref": "#/components/responses/RequestTimeout"
                  },
                  "413": {
                    "$ref": "#/components/responses/ContentTooLarge"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeaderFieldsTooLarge"
                  },
                  "501": {
                    "$ref": "#/components/responses/NotImplemented"
                  },
                  "503": {
                    "$ref": "#/components/responses/Unavailable"
                  },
                  "505": {
                    "$ref": "#/components/responses/HTTPVersionNotSupported"
                  }
                }
              },
              "head": {
                "tags": [
                  "Operations"
                ],
                "summary": "The head of: this document",
                "description": "As GET, without the body.",
                "operationId": "headOpenAPIDocument",
                "security": [],
                "responses": {
                  "200": {
                    "$ref": "#/components/responses/Head"
                  },
                  "400": {
                    "$ref": "#/components/responses/Head"
                  },
                  "408": {
                    "$ref": "#/components/responses/Head"
                  },
                  "413": {
                    "$ref": "#/components/responses/Head"
                  },
                  "414": {
                    "$ref": "#/components/responses/Head"
                  },
                  "431": {
                    "$ref": "#/components/responses/Head"
                  },
                  "501": {
                    "$ref": "#/components/responses/Head"
                  },
                  "503": {
                    "$ref": "#/components/responses/Head"
                  },
                  "505": {
                    "$ref": "#/components/responses/Head"
                  }
                }
              }
            },
            "/metrics": {
              "get": {
                "tags": [
                  "Operations"
                ],
                "summary": "Prometheus metrics",
                "description": "The Prometheus text exposition format: `masthead_requests_total{route,status}`, `masthead_request_duration_seconds{route}` (histogram), `masthead_notifications_total{type}` (a type Apple does not document is counted as `other`; label values are escaped as the format says), `masthead_store_errors_total`, `masthead_http_accept_backoffs_total`, `masthead_http_body_budget_refusals_total`.",
                "operationId": "getMetrics",
                "responses": {
                  "200": {
                    "description": "The metrics.",
                    "content": {
                      "text/plain; version=0.0.4": {
                        "schema": {
                          "type": "string"
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "`bad_request`: the request cannot be parsed (closes the connection).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "408": {
                    "$ref": "#/components/responses/RequestTimeout"
                  },
                  "413": {
                    "$ref": "#/components/responses/ContentTooLarge"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeaderFieldsTooLarge"
                  },
                  "501": {
                    "$ref": "#/components/responses/NotImplemented"
                  },
                  "503": {
                    "$ref": "#/components/responses/Unavailable"
                  },
                  "505": {
                    "$ref": "#/components/responses/HTTPVersionNotSupported"
                  }
                }
              },
              "head": {
                "tags": [
                  "Operations"
                ],
                "summary": "The head of: prometheus metrics",
                "description": "As GET, without the body.",
                "operationId": "headMetrics",
                "responses": {
                  "200": {
                    "$ref": "#/components/responses/Head"
                  },
                  "400": {
                    "$ref": "#/components/responses/Head"
                  },
                  "401": {
                    "$ref": "#/components/responses/Head"
                  },
                  "408": {
                    "$ref": "#/components/responses/Head"
                  },
                  "413": {
                    "$ref": "#/components/responses/Head"
                  },
                  "414": {
                    "$ref": "#/components/responses/Head"
                  },
                  "431": {
                    "$ref": "#/components/responses/Head"
                  },
                  "501": {
                    "$ref": "#/components/responses/Head"
                  },
                  "503": {
                    "$ref": "#/components/responses/Head"
                  },
                  "505": {
                    "$ref": "#/components/responses/Head"
                  }
                }
              }
            },
            "/v1/notifications/app-store": {
              "post": {
                "tags": [
                  "App Store"
                ],
                "summary": "Store an App Store server notification (version 1 or 2)",
                "description": "The two versions are told apart by the body's shape. **Version 2** (`{\"signedPayload\": …}`): the signed payload is verified — its chain to a configured root (`appStoreRootCertificates`, Apple Root CA - G3 by default) judged at its `signedDate`, its ES256 signature, its app (`appStoreBundleId`, `appStoreAppAppleId` for production data) and environment (`appStoreEnvironments`) — and so are the signed transaction and renewal info its `data` carries. A refused one is answered 401 `notification_refused` with the reason, its body kept in the rejected notifications (`GET /v1/notifications/rejected`), never applied. A verified one is stored raw with its `notificationType`, `subtype` and `notificationUUID` — once per uuid: a second delivery is answered 200 with `duplicate: true` and is not applied again — and its transaction and renewal info are merged (the copy Apple signed last gives a transaction's state, rule R2.8). Its subscription goes to the user it is linked to; else to the owner of the transaction's `appAccountToken`, linked now; else it stays unlinked and counts for a user once a receipt or signed transactions posted for the user, or the token linked to the user, link it. Every type is stored, one Apple adds later too. **Version 1**: authenticated by the body's `password`, which must equal the App Store shared secret (`MASTHEAD_APP_STORE_SHARED_SECRET`, compared in constant time); otherwise 401 and nothing is stored. No token (OpenAPI has no security scheme for a secret in the body). The raw body is kept, and the transactions and renewal info it carries are merged even when no user has the subscription yet: they count for a user once a receipt links it. A body with the right password whose content cannot be read is kept raw and answered 200 with `applied: false` and the reason (Apple's retries would carry the same body). Either version is answered once committed.",
                "operationId": "postAppStoreNotification",
                "security": [],
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/json": {
                      "schema": {
                        "oneOf": [
                          {
                            "$ref": "#/components/schemas/AppStoreNotificationV1"
                          },
                          {
                            "$ref": "#/components/schemas/AppStoreNotificationV2"
                          }
                        ]
                      }
                    }
                  }
                },
                "responses": {
                  "200": {
                    "description": "Stored (and applied, unless `applied` is false).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/NotificationAnswer"
                        },
                        "examples": {
                          "applied": {
                            "value": {
                              "stored": true,
                              "applied": true
                            }
                          }
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "- `bad_request`: the request cannot be parsed (closes the connection).\n- `invalid_json`: the body is not JSON.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "- `unauthorized`: a version 1 body's `password` does not match the shared secret (also when it is missing, or the body is not an object). Nothing is stored.\n- `notification_refused`: a version 2 notification was refused — a signature, a chain, the app, the environment, or what a verified payload holds; the message names the JSON path (`$.signedPayload`, `$.signedPayload.data.signedTransactionInfo`, …) and the reason. Its body is kept in the rejected notifications; nothing is applied.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "408": {
                    "$ref": "#/components/responses/RequestTimeout"
                  },
                  "413": {
                    "$ref": "#/components/responses/ContentTooLarge"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeaderFieldsTooLarge"
                  },
                  "501": {
                    "$ref": "#/components/responses/NotImplemented"
                  },
                  "503": {
                    "description": "- `store_unavailable`: the notification could not be stored (Apple sends it again).\n- `signed_data_not_configured`: a version 2 notification arrived while no `appStoreBundleId` is configured; it is kept in the rejected notifications, not applied (Apple sends it again).\n- `handler_timeout`: the answer was not ready within the handler timeout.\n- `too_many_connections`: the server has too many open connections.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "505": {
                    "$ref": "#/components/responses/HTTPVersionNotSupported"
                  }
                }
              }
            },
            "/v1/notifications/rejected": {
              "get": {
                "tags": [
                  "App Store"
                ],
                "summary": "Notifications refused for their signature",
                "description": "Needs the admin token. The newest notification bodies refused because their signature did not verify (App Store Server Notifications V2), newest first, for forensics: id, when received, why refused and the body's size; the body itself (base64) only with `bodies=true`. They are never applied. The database keeps the newest 10,000 within 32 MiB of bodies (fewer when bodies are large; the newest always), so a sender of bad signatures cannot fill the disk.",
                "operationId": "getRejectedNotifications",
                "security": [
                  {
                    "adminToken": []
                  }
                ],
                "parameters": [
                  {
                    "$ref": "#/components/parameters/limit"
                  },
                  {
                    "$ref": "#/components/parameters/bodies"
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The rejected notifications, newest first.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/RejectedNotifications"
                        },
                        "examples": {
                          "one": {
                            "value": {
                              "rejectedNotifications": [
                                {
                                  "id": 7,
                                  "received": "2020-07-02T00:00:00Z",
                                  "reason": "the signature does not verify with the leaf certificate's key",
                                  "kind": "signed",
                                  "bodyBytes": 5120
                                }
                              ]
                            }
                          }
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "- `bad_request`: the request cannot be parsed (closes the connection).\n- `invalid_limit`: `limit` is not a whole number from 1 to 1000.\n- `invalid_bodies`: `bodies` is neither `true` nor `false`.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "`unauthorized`: no `Authorization: Bearer` header with the admin (or API) token.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "`forbidden`: the API token was sent; this route needs the admin token.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "408": {
                    "$ref": "#/components/responses/RequestTimeout"
                  },
                  "413": {
                    "$ref": "#/components/responses/ContentTooLarge"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeaderFieldsTooLarge"
                  },
                  "501": {
                    "$ref": "#/components/responses/NotImplemented"
                  },
                  "503": {
                    "description": "- `store_unavailable`: the database could not be read.\n- `handler_timeout`: the answer was not ready within the handler timeout.\n- `too_many_connections`: the server has too many open connections.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "505": {
                    "$ref": "#/components/responses/HTTPVersionNotSupported"
                  }
                }
              },
              "head": {
                "tags": [
                  "App Store"
                ],
                "summary": "The head of: notifications refused for their signature",
                "description": "As GET, without the body.",
                "operationId": "headRejectedNotifications",
                "security": [
                  {
                    "adminToken": []
                  }
                ],
                "parameters": [
                  {
                    "$ref": "#/components/parameters/limit"
                  },
                  {
                    "$ref": "#/components/parameters/bodies"
                  }
                ],
                "responses": {
                  "200": {
                    "$ref": "#/components/responses/Head"
                  },
                  "400": {
                    "$ref": "#/components/responses/Head"
                  },
                  "401": {
                    "$ref": "#/components/responses/Head"
                  },
                  "403": {
                    "$ref": "#/components/responses/Head"
                  },
                  "408": {
                    "$ref": "#/components/responses/Head"
                  },
                  "413": {
                    "$ref": "#/components/responses/Head"
                  },
                  "414": {
                    "$ref": "#/components/responses/Head"
                  },
                  "431": {
                    "$ref": "#/components/responses/Head"
                  },
                  "501": {
                    "$ref": "#/components/responses/Head"
                  },
                  "503": {
                    "$ref": "#/components/responses/Head"
                  },
                  "505": {
                    "$ref": "#/components/responses/Head"
                  }
                }
              }
            },
            "/v1/users/{userId}/receipts": {
              "post": {
                "tags": [
                  "Entitlements"
                ],
                "summary": "Store a verified receipt for a user",
                "description": "A verifyReceipt response, as verified by the app's backend: its transactions and renewal info are stored and its subscriptions linked to the user (by environment and `original_transaction_id`). When a subscription belongs to another user, the `restore` setting decides: `transfer` (default) moves it, `keep` answers 409, `transferIfInactive` answers 409 while a transaction of it covers the present. Answered once committed, with the user's entitlements now, in the receipt's environment.",
                "operationId": "postReceipt",
                "parameters": [
                  {
                    "$ref": "#/components/parameters/userId"
                  }
                ],
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/VerifyReceiptResponse"
                      }
                    }
                  }
                },
                "responses": {
                  "200": {
                    "description": "Stored: the user's entitlements now (`Entitlements`); or, when reading them back failed after the commit, `ReceiptStoredUnread` (the receipt is stored: do not send it again).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "oneOf": [
                            {
                              "$ref": "#/components/schemas/Entitlements"
                            },
                            {
                              "$ref": "#/components/schemas/ReceiptStoredUnread"
                            }
                          ]
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "- `bad_request`: the request cannot be parsed (closes the connection).\n- `invalid_user_id`: the user id breaks the path id rules.\n- `invalid_json`: the body is not JSON.\n- `invalid_receipt`: a field the rules use cannot be read; the message names its JSON path, line and value.\n\nA body that is a base64 app receipt, or a verifyReceipt request (`{\"receipt-data\": …}`), gets the same codes with a hint in the message: what was detected, and to post Apple's verifyReceipt answer instead.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "408": {
                    "$ref": "#/components/responses/RequestTimeout"
                  },
                  "409": {
                    "description": "`receipt_already_in_use`: a subscription of the receipt is linked to another user and the `restore` setting keeps it there.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "413": {
                    "$ref": "#/components/responses/ContentTooLarge"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "422": {
                    "description": "`receipt_rejected`: Apple's `status` is neither 0 nor 21006; the message says what it means.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "431": {
                    "$ref": "#/components/responses/HeaderFieldsTooLarge"
                  },
                  "501": {
                    "$ref": "#/components/responses/NotImplemented"
                  },
                  "503": {
                    "description": "- `store_unavailable`: the receipt could not be stored; send it again.\n- `handler_timeout`: the answer was not ready within the handler timeout.\n- `too_many_connections`: the server has too many open connections.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "505": {
                    "$ref": "#/components/responses/HTTPVersionNotSupported"
                  }
                }
              }
            },
            "/v1/users/{userId}/transactions": {
              "post": {
                "tags": [
                  "Entitlements"
                ],
                "summary": "Store a StoreKit 2 app's signed transactions for a user",
                "description": "A signed-transactions document (`Transaction.jwsRepresentation` values, and optionally the subscriptions' signed renewal infos): every token is verified as a version 2 notification is (chain to a configured root, ES256 signature, `appStoreBundleId`, `appStoreEnvironments`), then its transactions and renewal info are stored (the copy Apple signed last gives a transaction's state, rule R2.8) and its subscriptions linked to the user as a receipt's are: when one belongs to another user, the `restore` setting decides (`transfer` moves it, `keep` answers 409, `transferIfInactive` answers 409 while a transaction of it covers the present). One refused token refuses the document, and nothing is stored. Answered once committed, with the user's entitlements now: in production unless every transaction is sandbox data.",
                "operationId": "postTransactions",
                "parameters": [
                  {
                    "$ref": "#/components/parameters/userId"
                  }
                ],
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/SignedTransactions"
                      }
                    }
                  }
                },
                "responses": {
                  "200": {
                    "description": "Stored: the user's entitlements now (`Entitlements`); or, when reading them back failed after the commit, `ReceiptStoredUnread` (the transactions are stored: do not send them again).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "oneOf": [
                            {
                              "$ref": "#/components/schemas/Entitlements"
                            },
                            {
                              "$ref": "#/components/schemas/ReceiptStoredUnread"
                            }
                          ]
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "- `bad_request`: the request cannot be parsed (closes the connection).\n- `invalid_user_id`: the user id breaks the path id rules.\n- `invalid_json`: the body is not JSON.\n- `invalid_signed_data`: the body is not a signed-transactions document.\n- `signed_data_refused`: a token was refused (its signature, chain, app or environment, or what its verified payload holds), or a member is not an array of tokens; the message names its JSON path (`$.signedTransactions[1]`) and the reason. Nothing is stored.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "408": {
                    "$ref": "#/components/responses/RequestTimeout"
                  },
                  "409": {
                    "description": "`receipt_already_in_use`: a subscription of the transactions is linked to another user and the `restore` setting keeps it there.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "413": {
                    "$ref": "#/components/responses/ContentTooLarge"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeaderFieldsTooLarge"
                  },
                  "501": {
                    "$ref": "#/components/responses/NotImplemented"
                  },
                  "503": {
                    "description": "- `store_unavailable`: the transactions could not be stored; send them again.\n- `signed_data_not_configured`: no `appStoreBundleId` is configured, so signed data is refused.\n- `handler_timeout`: the answer was not ready within the handler timeout.\n- `too_many_connections`: the server has too many open connections.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "505": {
                    "$ref": "#/components/responses/HTTPVersionNotSupported"
                  }
                }
              }
            },
            "/v1/users/{userId}/restore": {
              "post": {
                "tags": [
                  "Entitlements"
                ],
                "summary": "Restore a user's purchases from Apple",
                "description": "Any transaction id of the user's (`{\"transactionId\": \"…\"}`, such as StoreKit's `Transaction.id` or an original transaction id): the service asks Apple's App Store Server API for the customer's transaction history (Get Transaction History, every page; production, then the sandbox when production does not know the id), verifies every signed transaction as posted signed transactions are, stores them (the copy Apple signed last gives a transaction's state, rule R2.8) and links every subscription of the history to the user as a receipt's are: when one belongs to another user, the `restore` setting decides (`transfer` moves it, `keep` answers 409, `transferIfInactive` answers 409 while a transaction of it covers the present). Whatever the setting, a subscription whose signed transactions carry an app account token another user owns is never moved (409). A transaction id is not a secret: send only ids from a StoreKit transaction the backend has verified. Needs the App Store Server API key (`MASTHEAD_APP_STORE_KEY_ID`, `MASTHEAD_APP_STORE_ISSUER_ID`, `MASTHEAD_APP_STORE_PRIVATE_KEY_FILE`) and `appStoreBundleId`. Apple is asked off the event loops, at most 4 restores at a time, each done within `restoreTimeoutMilliseconds` or answered 504. Answered once committed, with the user's entitlements now, in the environment whose server answered.",
                "operationId": "restore",
                "parameters": [
                  {
                    "$ref": "#/components/parameters/userId"
                  }
                ],
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/RestoreRequest"
                      }
                    }
                  }
                },
                "responses": {
                  "200": {
                    "description": "Restored: the user's entitlements now (`Entitlements`); or, when reading them back failed after the commit, `ReceiptStoredUnread` (the transactions are stored).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "oneOf": [
                            {
                              "$ref": "#/components/schemas/Entitlements"
                            },
                            {
                              "$ref": "#/components/schemas/ReceiptStoredUnread"
                            }
                          ]
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "- `bad_request`: the request cannot be parsed (closes the connection).\n- `invalid_user_id`: the user id breaks the path id rules.\n- `invalid_json`: the body is not JSON.\n- `invalid_transaction_id`: `$.transactionId` is missing, not a string, or not 1 to 64 digits; the message names the field.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "404": {
                    "description": "`transaction_not_found`: Apple knows no transaction with this id, in production nor in the sandbox (or its history is empty). Nothing is stored.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "408": {
                    "$ref": "#/components/responses/RequestTimeout"
                  },
                  "409": {
                    "description": "`receipt_already_in_use`: a subscription of the history is linked to another user and the `restore` setting keeps it there. Nothing is stored.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "413": {
                    "$ref": "#/components/responses/ContentTooLarge"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeaderFieldsTooLarge"
                  },
                  "501": {
                    "$ref": "#/components/responses/NotImplemented"
                  },
                  "502": {
                    "description": "- `apple_signed_data_refused`: a signed transaction in Apple's answer was refused (its signature, chain, app or environment); the message names its JSON path and the reason. Nothing is stored.\n- `app_store_server_api_unavailable`: Apple could not be asked (network errors or 5xx after the retries, rate limited past the wait cap) or its answer not read; the message names the endpoint. Nothing is stored; try again.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "503": {
                    "description": "- `app_store_server_api_not_configured`: no App Store Server API key is configured.\n- `app_store_server_api_key_refused`: Apple refused the key (HTTP 401 or 403); the message names the key id, issuer id and bundle id to check.\n- `signed_data_not_configured`: no `appStoreBundleId` is configured.\n- `too_many_restores`: 4 restores are asking Apple already; try again shortly.\n- `store_unavailable`: the transactions could not be stored; try again.\n- `handler_timeout`: the answer was not ready within the handler timeout.\n- `too_many_connections`: the server has too many open connections.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "504": {
                    "description": "`restore_timeout`: the restore was not done within `restoreTimeoutMilliseconds` (Apple's answers, every page, retry and wait included, or its write not begun in time); the message says where it stood. Nothing is stored; try again. Each request to Apple has its own total deadline, `appStoreRequestTimeoutSeconds`. `restoreTimeoutMilliseconds` is at least 5 s less than the handler timeout (the time its write has to commit), so a restore answered 503 `handler_timeout` is never stored either.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "505": {
                    "$ref": "#/components/responses/HTTPVersionNotSupported"
                  }
                }
              }
            },
            "/v1/users/{userId}/entitlements": {
              "get": {
                "tags": [
                  "Entitlements"
                ],
                "summary": "A user's entitlements",
                "description": "Every publication's status, periods, lapses, refunds and every issue's decision, as of `at` (the JSON of `masthead check --format json`).",
                "operationId": "getEntitlements",
                "parameters": [
                  {
                    "$ref": "#/components/parameters/userId"
                  },
                  {
                    "$ref": "#/components/parameters/publication"
                  },
                  {
                    "$ref": "#/components/parameters/at"
                  },
                  {
                    "$ref": "#/components/parameters/environment"
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The user's entitlements.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Entitlements"
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "- `bad_request`: the request cannot be parsed (closes the connection).\n- `invalid_user_id`: the user id breaks the path id rules.\n- `invalid_at`: `at` is not an RFC 3339 instant (when a `+` arrived unencoded, as a space, the message says to send it as `%2B`).\n- `invalid_environment`: `environment` is neither `production` nor `sandbox`.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "404": {
                    "description": "- `unknown_user`: no receipt or app account token has been posted for the user.\n- `unknown_publication`: the catalog has no publication named by `publication`.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "408": {
                    "$ref": "#/components/responses/RequestTimeout"
                  },
                  "413": {
                    "$ref": "#/components/responses/ContentTooLarge"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeaderFieldsTooLarge"
                  },
                  "501": {
                    "$ref": "#/components/responses/NotImplemented"
                  },
                  "503": {
                    "description": "- `store_unavailable`: the database could not be read.\n- `handler_timeout`: the answer was not ready within the handler timeout.\n- `too_many_connections`: the server has too many open connections.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "505": {
                    "$ref": "#/components/responses/HTTPVersionNotSupported"
                  }
                }
              },
              "head": {
                "tags": [
                  "Entitlements"
                ],
                "summary": "The head of: a user's entitlements",
                "description": "As GET, without the body.",
                "operationId": "headEntitlements",
                "parameters": [
                  {
                    "$ref": "#/components/parameters/userId"
                  },
                  {
                    "$ref": "#/components/parameters/publication"
                  },
                  {
                    "$ref": "#/components/parameters/at"
                  },
                  {
                    "$ref": "#/components/parameters/environment"
                  }
                ],
                "responses": {
                  "200": {
                    "$ref": "#/components/responses/Head"
                  },
                  "400": {
                    "$ref": "#/components/responses/Head"
                  },
                  "401": {
                    "$ref": "#/components/responses/Head"
                  },
                  "404": {
                    "$ref": "#/components/responses/Head"
                  },
                  "408": {
                    "$ref": "#/components/responses/Head"
                  },
                  "413": {
                    "$ref": "#/components/responses/Head"
                  },
                  "414": {
                    "$ref": "#/components/responses/Head"
                  },
                  "431": {
                    "$ref": "#/components/responses/Head"
                  },
                  "501": {
                    "$ref": "#/components/responses/Head"
                  },
                  "503": {
                    "$ref": "#/components/responses/Head"
                  },
                  "505": {
                    "$ref": "#/components/responses/Head"
                  }
                }
              }
            },
            "/v1/users/{userId}/issues/{publicationId}/{issueId}": {
              "get": {
                "tags": [
                  "Entitlements"
                ],
                "summary": "The download check: may the user read this issue",
                "description": "The hot path. A user never seen is answered 200 `readable: false` (`notSubscribed`), or readable for a free issue.",
                "operationId": "checkIssue",
                "parameters": [
                  {
                    "$ref": "#/components/parameters/userId"
                  },
                  {
                    "$ref": "#/components/parameters/publicationId"
                  },
                  {
                    "$ref": "#/components/parameters/issueId"
                  },
                  {
                    "$ref": "#/components/parameters/at"
                  },
                  {
                    "$ref": "#/components/parameters/environment"
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The decision.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/IssueCheck"
                        },
                        "examples": {
                          "denied": {
                            "value": {
                              "user_id": "alice",
                              "publication": "the-monthly",
                              "issue": "2020-05",
                              "at": "2020-07-02T00:00:00Z",
                              "readable": false,
                              "reason": {
                                "kind": "publishedDuringLapse",
                                "lapseStart": "2020-04-20T12:00:00Z",
                                "lapseEnd": "2020-06-17T12:00:00Z"
                              }
                            }
                          },
                          "readable": {
                            "value": {
                              "user_id": "alice",
                              "publication": "the-monthly",
                              "issue": "2020-06",
                              "at": "2020-07-02T00:00:00Z",
                              "readable": true,
                              "reason": {
                                "kind": "unlockedAtPeriodStart",
                                "period": 1,
                                "periodStart": "2020-06-17T12:00:00Z"
                              },
                              "reasons": [
                                {
                                  "kind": "unlockedAtPeriodStart",
                                  "period": 1,
                                  "periodStart": "2020-06-17T12:00:00Z"
                                }
                              ]
                            }
                          }
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "- `bad_request`: the request cannot be parsed (closes the connection).\n- `invalid_user_id`: the user id breaks the path id rules.\n- `invalid_publication_id`: the publication id breaks the path id rules.\n- `invalid_issue_id`: the issue id breaks the path id rules.\n- `invalid_at`: `at` is not an RFC 3339 instant (when a `+` arrived unencoded, as a space, the message says to send it as `%2B`).\n- `invalid_environment`: `environment` is neither `production` nor `sandbox`.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "404": {
                    "description": "- `unknown_publication`: the catalog has no such publication.\n- `unknown_issue`: the publication has no such issue.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "408": {
                    "$ref": "#/components/responses/RequestTimeout"
                  },
                  "413": {
                    "$ref": "#/components/responses/ContentTooLarge"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeaderFieldsTooLarge"
                  },
                  "501": {
                    "$ref": "#/components/responses/NotImplemented"
                  },
                  "503": {
                    "description": "- `store_unavailable`: the database could not be read.\n- `handler_timeout`: the answer was not ready within the handler timeout.\n- `too_many_connections`: the server has too many open connections.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "505": {
                    "$ref": "#/components/responses/HTTPVersionNotSupported"
                  }
                }
              },
              "head": {
                "tags": [
                  "Entitlements"
                ],
                "summary": "The head of: the download check: may the user read this issue",
                "description": "As GET, without the body.",
                "operationId": "headCheckIssue",
                "parameters": [
                  {
                    "$ref": "#/components/parameters/userId"
                  },
                  {
                    "$ref": "#/components/parameters/publicationId"
                  },
                  {
                    "$ref": "#/components/parameters/issueId"
                  },
                  {
                    "$ref": "#/components/parameters/at"
                  },
                  {
                    "$ref": "#/components/parameters/environment"
                  }
                ],
                "responses": {
                  "200": {
                    "$ref": "#/components/responses/Head"
                  },
                  "400": {
                    "$ref": "#/components/responses/Head"
                  },
                  "401": {
                    "$ref": "#/components/responses/Head"
                  },
                  "404": {
                    "$ref": "#/components/responses/Head"
                  },
                  "408": {
                    "$ref": "#/components/responses/Head"
                  },
                  "413": {
                    "$ref": "#/components/responses/Head"
                  },
                  "414": {
                    "$ref": "#/components/responses/Head"
                  },
                  "431": {
                    "$ref": "#/components/responses/Head"
                  },
                  "501": {
                    "$ref": "#/components/responses/Head"
                  },
                  "503": {
                    "$ref": "#/components/responses/Head"
                  },
                  "505": {
                    "$ref": "#/components/responses/Head"
                  }
                }
              }
            },
            "/v1/users/{userId}/app-account-tokens": {
              "get": {
                "tags": [
                  "Entitlements"
                ],
                "summary": "A user's app account tokens",
                "description": "The StoreKit 2 app account tokens linked to the user, in the order they were linked; read from the database, so they include what other services on it committed.",
                "operationId": "getAppAccountTokens",
                "parameters": [
                  {
                    "$ref": "#/components/parameters/userId"
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The user's tokens.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/AppAccountTokens"
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "- `bad_request`: the request cannot be parsed (closes the connection).\n- `invalid_user_id`: the user id breaks the path id rules.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "404": {
                    "description": "`unknown_user`: no receipt or app account token has been posted for the user.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "408": {
                    "$ref": "#/components/responses/RequestTimeout"
                  },
                  "413": {
                    "$ref": "#/components/responses/ContentTooLarge"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeaderFieldsTooLarge"
                  },
                  "501": {
                    "$ref": "#/components/responses/NotImplemented"
                  },
                  "503": {
                    "description": "- `store_unavailable`: the database could not be read.\n- `handler_timeout`: the answer was not ready within the handler timeout.\n- `too_many_connections`: the server has too many open connections.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "505": {
                    "$ref": "#/components/responses/HTTPVersionNotSupported"
                  }
                }
              },
              "head": {
                "tags": [
                  "Entitlements"
                ],
                "summary": "The head of: a user's app account tokens",
                "description": "As GET, without the body.",
                "operationId": "headAppAccountTokens",
                "parameters": [
                  {
                    "$ref": "#/components/parameters/userId"
                  }
                ],
                "responses": {
                  "200": {
                    "$ref": "#/components/responses/Head"
                  },
                  "400": {
                    "$ref": "#/components/responses/Head"
                  },
                  "401": {
                    "$ref": "#/components/responses/Head"
                  },
                  "404": {
                    "$ref": "#/components/responses/Head"
                  },
                  "408": {
                    "$ref": "#/components/responses/Head"
                  },
                  "413": {
                    "$ref": "#/components/responses/Head"
                  },
                  "414": {
                    "$ref": "#/components/responses/Head"
                  },
                  "431": {
                    "$ref": "#/components/responses/Head"
                  },
                  "501": {
                    "$ref": "#/components/responses/Head"
                  },
                  "503": {
                    "$ref": "#/components/responses/Head"
                  },
                  "505": {
                    "$ref": "#/components/responses/Head"
                  }
                }
              }
            },
            "/v1/users/{userId}/app-account-tokens/{appAccountToken}": {
              "put": {
                "tags": [
                  "Entitlements"
                ],
                "summary": "Link an app account token to a user",
                "description": "The `appAccountToken` a StoreKit 2 app sets at purchase (a UUID; stored in lower case) belongs to this user: a subscription whose signed transactions carry it is then linked to the user on first sight, without a receipt being posted. Records the user when new. Linking a token the user already has changes nothing (answered with the mapping as first linked); a token another user has is 409 and nothing changes. No body (one sent is ignored). Answered once committed; every service on the database sees it.",
                "operationId": "putAppAccountToken",
                "parameters": [
                  {
                    "$ref": "#/components/parameters/userId"
                  },
                  {
                    "$ref": "#/components/parameters/appAccountToken"
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The mapping as stored.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/AppAccountToken"
                        },
                        "examples": {
                          "linked": {
                            "value": {
                              "userId": "alice",
                              "appAccountToken": "3f2504e0-4f89-41d3-9a0c-0305e82c3301",
                              "linked": "2020-07-02T00:00:00Z"
                            }
                          }
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "- `bad_request`: the request cannot be parsed (closes the connection).\n- `invalid_user_id`: the user id breaks the path id rules.\n- `invalid_app_account_token`: the token is not a UUID written 8-4-4-4-12 hexadecimal digits.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "408": {
                    "$ref": "#/components/responses/RequestTimeout"
                  },
                  "409": {
                    "description": "`app_account_token_in_use`: another user has the token; nothing is changed.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "413": {
                    "$ref": "#/components/responses/ContentTooLarge"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeaderFieldsTooLarge"
                  },
                  "501": {
                    "$ref": "#/components/responses/NotImplemented"
                  },
                  "503": {
                    "description": "- `store_unavailable`: the token could not be stored.\n- `handler_timeout`: the answer was not ready within the handler timeout.\n- `too_many_connections`: the server has too many open connections.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "505": {
                    "$ref": "#/components/responses/HTTPVersionNotSupported"
                  }
                }
              },
              "delete": {
                "tags": [
                  "Entitlements"
                ],
                "summary": "Remove an app account token from a user",
                "description": "The token no longer links subscriptions to the user; subscriptions it linked already stay linked. Answered once committed; every service on the database sees it.",
                "operationId": "deleteAppAccountToken",
                "parameters": [
                  {
                    "$ref": "#/components/parameters/userId"
                  },
                  {
                    "$ref": "#/components/parameters/appAccountToken"
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The mapping removed.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/AppAccountToken"
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "- `bad_request`: the request cannot be parsed (closes the connection).\n- `invalid_user_id`: the user id breaks the path id rules.\n- `invalid_app_account_token`: the token is not a UUID written 8-4-4-4-12 hexadecimal digits.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "404": {
                    "description": "`unknown_app_account_token`: the user has no such token (another user's is left alone).",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "408": {
                    "$ref": "#/components/responses/RequestTimeout"
                  },
                  "413": {
                    "$ref": "#/components/responses/ContentTooLarge"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeaderFieldsTooLarge"
                  },
                  "501": {
                    "$ref": "#/components/responses/NotImplemented"
                  },
                  "503": {
                    "description": "- `store_unavailable`: the removal could not be stored.\n- `handler_timeout`: the answer was not ready within the handler timeout.\n- `too_many_connections`: the server has too many open connections.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "505": {
                    "$ref": "#/components/responses/HTTPVersionNotSupported"
                  }
                }
              }
            },
            "/v1/publications/{publicationId}/issues": {
              "get": {
                "tags": [
                  "Catalog"
                ],
                "summary": "A publication's issues",
                "description": "The catalog's issues, with those published through the API, in publish order.",
                "operationId": "listIssues",
                "parameters": [
                  {
                    "$ref": "#/components/parameters/publicationId"
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The issues.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/PublicationIssues"
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "- `bad_request`: the request cannot be parsed (closes the connection).\n- `invalid_publication_id`: the publication id breaks the path id rules.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "404": {
                    "description": "`unknown_publication`: the catalog has no such publication.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "408": {
                    "$ref": "#/components/responses/RequestTimeout"
                  },
                  "413": {
                    "$ref": "#/components/responses/ContentTooLarge"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeaderFieldsTooLarge"
                  },
                  "501": {
                    "$ref": "#/components/responses/NotImplemented"
                  },
                  "503": {
                    "$ref": "#/components/responses/Unavailable"
                  },
                  "505": {
                    "$ref": "#/components/responses/HTTPVersionNotSupported"
                  }
                }
              },
              "head": {
                "tags": [
                  "Catalog"
                ],
                "summary": "The head of: a publication's issues",
                "description": "As GET, without the body.",
                "operationId": "headListIssues",
                "parameters": [
                  {
                    "$ref": "#/components/parameters/publicationId"
                  }
                ],
                "responses": {
                  "200": {
                    "$ref": "#/components/responses/Head"
                  },
                  "400": {
                    "$ref": "#/components/responses/Head"
                  },
                  "401": {
                    "$ref": "#/components/responses/Head"
                  },
                  "404": {
                    "$ref": "#/components/responses/Head"
                  },
                  "408": {
                    "$ref": "#/components/responses/Head"
                  },
                  "413": {
                    "$ref": "#/components/responses/Head"
                  },
                  "414": {
                    "$ref": "#/components/responses/Head"
                  },
                  "431": {
                    "$ref": "#/components/responses/Head"
                  },
                  "501": {
                    "$ref": "#/components/responses/Head"
                  },
                  "503": {
                    "$ref": "#/components/responses/Head"
                  },
                  "505": {
                    "$ref": "#/components/responses/Head"
                  }
                }
              }
            },
            "/v1/publications/{publicationId}/issues/{issueId}": {
              "put": {
                "tags": [
                  "Catalog"
                ],
                "summary": "Publish or correct an issue",
                "description": "Needs the admin token. The issue is stored (it survives restarts) and every service on the database sees it; answers once committed.",
                "operationId": "publishIssue",
                "security": [
                  {
                    "adminToken": []
                  }
                ],
                "parameters": [
                  {
                    "$ref": "#/components/parameters/publicationId"
                  },
                  {
                    "$ref": "#/components/parameters/issueId"
                  }
                ],
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/IssueUpsert"
                      },
                      "examples": {
                        "special": {
                          "value": {
                            "title": "Summer special",
                            "published": "2020-07-15T00:00:00Z"
                          }
                        }
                      }
                    }
                  }
                },
                "responses": {
                  "200": {
                    "description": "The issue as stored.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/CatalogIssue"
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "- `bad_request`: the request cannot be parsed (closes the connection).\n- `invalid_publication_id`: the publication id breaks the path id rules.\n- `invalid_issue_id`: the issue id breaks the path id rules.\n- `invalid_json`: the body is not JSON.\n- `invalid_issue`: the body is not an object with `published` an RFC 3339 instant, or `free` is neither a boolean nor null.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "401": {
                    "description": "`unauthorized`: no `Authorization: Bearer` header with the admin (or API) token.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "403": {
                    "description": "`forbidden`: the API token was sent; this route needs the admin token.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "404": {
                    "description": "`unknown_publication`: the catalog has no such publication.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "408": {
                    "$ref": "#/components/responses/RequestTimeout"
                  },
                  "413": {
                    "$ref": "#/components/responses/ContentTooLarge"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeaderFieldsTooLarge"
                  },
                  "501": {
                    "$ref": "#/components/responses/NotImplemented"
                  },
                  "503": {
                    "description": "- `store_unavailable`: the issue could not be stored.\n- `handler_timeout`: the answer was not ready within the handler timeout.\n- `too_many_connections`: the server has too many open connections.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "505": {
                    "$ref": "#/components/responses/HTTPVersionNotSupported"
                  }
                }
              }
            },
            "/v1/refresh-due": {
              "get": {
                "tags": [
                  "App Store"
                ],
                "summary": "Subscriptions expiring soon",
                "description": "The subscriptions expiring within the window from now, with their latest receipt, for a polling job to re-verify with Apple.",
                "operationId": "getRefreshDue",
                "parameters": [
                  {
                    "$ref": "#/components/parameters/within"
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The subscriptions.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/RefreshDue"
                        }
                      }
                    }
                  },
                  "400": {
                    "description": "- `bad_request`: the request cannot be parsed (closes the connection).\n- `invalid_window`: `within` is not a number followed by `d`, `h`, `m` or `s`.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "408": {
                    "$ref": "#/components/responses/RequestTimeout"
                  },
                  "413": {
                    "$ref": "#/components/responses/ContentTooLarge"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeaderFieldsTooLarge"
                  },
                  "501": {
                    "$ref": "#/components/responses/NotImplemented"
                  },
                  "503": {
                    "description": "- `store_unavailable`: the database could not be read.\n- `handler_timeout`: the answer was not ready within the handler timeout.\n- `too_many_connections`: the server has too many open connections.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    }
                  },
                  "505": {
                    "$ref": "#/components/responses/HTTPVersionNotSupported"
                  }
                }
              },
              "head": {
                "tags": [
                  "App Store"
                ],
                "summary": "The head of: subscriptions expiring soon",
                "description": "As GET, without the body.",
                "operationId": "headRefreshDue",
                "parameters": [
                  {
                    "$ref": "#/components/parameters/within"
                  }
                ],
                "responses": {
                  "200": {
                    "$ref": "#/components/responses/Head"
                  },
                  "400": {
                    "$ref": "#/components/responses/Head"
                  },
                  "401": {
                    "$ref": "#/components/responses/Head"
                  },
                  "408": {
                    "$ref": "#/components/responses/Head"
                  },
                  "413": {
                    "$ref": "#/components/responses/Head"
                  },
                  "414": {
                    "$ref": "#/components/responses/Head"
                  },
                  "431": {
                    "$ref": "#/components/responses/Head"
                  },
                  "501": {
                    "$ref": "#/components/responses/Head"
                  },
                  "503": {
                    "$ref": "#/components/responses/Head"
                  },
                  "505": {
                    "$ref": "#/components/responses/Head"
                  }
                }
              }
            }
          },
          "components": {
            "schemas": {
              "Error": {
                "type": "object",
                "description": "The shape of every error answer.",
                "required": [
                  "error"
                ],
                "properties": {
                  "error": {
                    "type": "object",
                    "required": [
                      "code",
                      "message"
                    ],
                    "properties": {
                      "code": {
                        "type": "string",
                        "description": "A stable, machine-readable code such as `invalid_at` or `store_unavailable`."
                      },
                      "message": {
                        "type": "string",
                        "description": "What was wrong and where, for people."
                      }
                    }
                  }
                }
              },
              "Health": {
                "type": "object",
                "description": "`{\"status\": \"ok\"}`, or `degraded` with the reason while the last database write failed (until a write succeeds).",
                "required": [
                  "status"
                ],
                "properties": {
                  "status": {
                    "type": "string",
                    "enum": [
                      "ok",
                      "degraded"
                    ]
                  },
                  "database": {
                    "type": "string",
                    "description": "Only when `degraded`: `the last write failed: …` with the storage error (SQLite's code, message and SQL, never bound values)."
                  }
                }
              },
              "Environment": {
                "type": "string",
                "enum": [
                  "production",
                  "sandbox"
                ],
                "description": "The App Store environment."
              },
              "AccessStyle": {
                "type": "string",
                "enum": [
                  "archive",
                  "streaming"
                ],
                "description": "How a subscription gives access: keep what was published during it (`archive`, R11) or read while it is active (`streaming`, R12)."
              },
              "Entitlements": {
                "type": "object",
                "description": "One user's entitlements as of an instant: the JSON of `masthead check --format json`, with `user_id`.",
                "required": [
                  "user_id",
                  "at",
                  "environment",
                  "publications",
                  "unknownProducts"
                ],
                "properties": {
                  "user_id": {
                    "type": "string",
                    "description": "The user the answer is for."
                  },
                  "at": {
                    "type": "string",
                    "format": "date-time",
                    "description": "The as-of instant."
                  },
                  "environment": {
                    "$ref": "#/components/schemas/Environment"
                  },
                  "publications": {
                    "type": "array",
                    "description": "One entry per publication of the catalog (only the one asked for with `publication`).",
                    "items": {
                      "$ref": "#/components/schemas/PublicationEntitlement"
                    }
                  },
                  "unknownProducts": {
                    "type": "array",
                    "description": "Product ids of the user's transactions that the catalog does not know.",
                    "items": {
                      "type": "string"
                    }
                  }
                }
              },
              "PublicationEntitlement": {
                "type": "object",
                "description": "One user's entitlement to one publication.",
                "required": [
                  "publication",
                  "title",
                  "status",
                  "periods",
                  "lapses",
                  "refunded",
                  "readable",
                  "issues"
                ],
                "properties": {
                  "publication": {
                    "type": "string",
                    "description": "The publication id."
                  },
                  "title": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "description": "The publication's title."
                  },
                  "status": {
                    "$ref": "#/components/schemas/SubscriptionStatus"
                  },
                  "periods": {
                    "type": "array",
                    "description": "The periods of access, in order; a reason or denial names a period by its index here.",
                    "items": {
                      "$ref": "#/components/schemas/Period"
                    }
                  },
                  "lapses": {
                    "type": "array",
                    "description": "Gaps between consecutive periods of one access style, and the time since the last one ended.",
                    "items": {
                      "$ref": "#/components/schemas/Lapse"
                    }
                  },
                  "refunded": {
                    "type": "array",
                    "description": "Refunded purchases: they grant nothing (R5.1).",
                    "items": {
                      "$ref": "#/components/schemas/Refund"
                    }
                  },
                  "readable": {
                    "type": "array",
                    "description": "The ids of the issues the user may read, in publish order.",
                    "items": {
                      "type": "string"
                    }
                  },
                  "issues": {
                    "type": "array",
                    "description": "The decision on every issue of the publication, in publish order (R16).",
                    "items": {
                      "$ref": "#/components/schemas/IssueDecision"
                    }
                  }
                }
              },
              "SubscriptionStatus": {
                "type": "object",
                "required": [
                  "state",
                  "autoRenew",
                  "productId",
                  "autoRenewProductId",
                  "pendingPlanChange",
                  "expirationIntent"
                ],
                "properties": {
                  "state": {
                    "type": "string",
                    "enum": [
                      "active",
                      "gracePeriod",
                      "billingRetry",
                      "expired",
                      "none"
                    ],
                    "description": "`active`: a period covers the instant; `gracePeriod`: only a billing grace extension does (R9); `billingRetry`: nothing does, the latest auto-renewable transaction expired less than 60 days before and Apple is retrying the payment; `expired`: nothing does any more; `none`: no interval has started (R15)."
                  },
                  "autoRenew": {
                    "type": [
                      "boolean",
                      "null"
                    ],
                    "description": "Whether the subscription will renew, when the renewal info says."
                  },
                  "productId": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "description": "The product of the latest auto-renewable transaction."
                  },
                  "autoRenewProductId": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "description": "The product it will renew to."
                  },
                  "pendingPlanChange": {
                    "type": "boolean",
                    "description": "Whether the renewal moves to another product."
                  },
                  "expirationIntent": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "description": "Apple's expiration intent code, when given."
                  }
                }
              },
              "Period": {
                "type": "object",
                "description": "A maximal run of intervals with no gap between them, for one access style (R8).",
                "required": [
                  "period",
                  "access",
                  "start",
                  "end",
                  "intervals"
                ],
                "properties": {
                  "period": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "The period's index."
                  },
                  "access": {
                    "$ref": "#/components/schemas/AccessStyle"
                  },
                  "start": {
                    "type": "string",
                    "format": "date-time"
                  },
                  "end": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "format": "date-time",
                    "description": "`null`: no end (a free subscription)."
                  },
                  "intervals": {
                    "type": "array",
                    "description": "The intervals merged into the period, ordered by start (R8).",
                    "items": {
                      "$ref": "#/components/schemas/Interval"
                    }
                  }
                }
              },
              "Interval": {
                "type": "object",
                "description": "The time one transaction grants.",
                "required": [
                  "transactionId",
                  "productId",
                  "kind",
                  "start",
                  "end"
                ],
                "properties": {
                  "transactionId": {
                    "type": "string"
                  },
                  "productId": {
                    "type": "string"
                  },
                  "kind": {
                    "type": "string",
                    "enum": [
                      "paid",
                      "trial",
                      "introductoryOffer",
                      "offer",
                      "upgraded",
                      "nonRenewing",
                      "free",
                      "grace"
                    ]
                  },
                  "start": {
                    "type": "string",
                    "format": "date-time"
                  },
                  "end": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "format": "date-time",
                    "description": "`null`: no end."
                  }
                }
              },
              "Lapse": {
                "type": "object",
                "required": [
                  "access",
                  "start",
                  "end"
                ],
                "properties": {
                  "access": {
                    "$ref": "#/components/schemas/AccessStyle"
                  },
                  "start": {
                    "type": "string",
                    "format": "date-time"
                  },
                  "end": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "format": "date-time",
                    "description": "`null`: the last period ended by the as-of instant and none followed."
                  }
                }
              },
              "Refund": {
                "type": "object",
                "required": [
                  "transactionId",
                  "productId",
                  "refundedAt"
                ],
                "properties": {
                  "transactionId": {
                    "type": "string"
                  },
                  "productId": {
                    "type": "string"
                  },
                  "refundedAt": {
                    "type": "string",
                    "format": "date-time"
                  }
                }
              },
              "Reason": {
                "description": "Why an issue is readable (R16), by `kind`: published while an archive period was active (`publishedDuringPeriod`, R11); the latest issue when an archive period started (`unlockedAtPeriodStart`, R11); a streaming period covers the instant (`streaming`, R12; `window` limits it to the latest issues, `null`: no limit); bought on its own (`singlePurchase`, R13); a free issue (`free`). `period` is an index into the publication's `periods`.",
                "oneOf": [
                  {
                    "title": "period",
                    "type": "object",
                    "required": [
                      "kind",
                      "period",
                      "periodStart"
                    ],
                    "properties": {
                      "kind": {
                        "enum": [
                          "publishedDuringPeriod",
                          "unlockedAtPeriodStart"
                        ]
                      },
                      "period": {
                        "type": "integer",
                        "minimum": 0
                      },
                      "periodStart": {
                        "type": "string",
                        "format": "date-time"
                      }
                    }
                  },
                  {
                    "title": "streaming",
                    "type": "object",
                    "required": [
                      "kind",
                      "period",
                      "window"
                    ],
                    "properties": {
                      "kind": {
                        "const": "streaming"
                      },
                      "period": {
                        "type": "integer",
                        "minimum": 0
                      },
                      "window": {
                        "type": [
                          "integer",
                          "null"
                        ],
                        "minimum": 1
                      }
                    }
                  },
                  {
                    "title": "singlePurchase",
                    "type": "object",
                    "required": [
                      "kind",
                      "transactionId"
                    ],
                    "properties": {
                      "kind": {
                        "const": "singlePurchase"
                      },
                      "transactionId": {
                        "type": "string"
                      }
                    }
                  },
                  {
                    "title": "free",
                    "type": "object",
                    "required": [
                      "kind"
                    ],
                    "properties": {
                      "kind": {
                        "const": "free"
                      }
                    }
                  }
                ]
              },
              "Denial": {
                "description": "Why an issue is not readable (R16), by `kind`: published after the as-of instant (`notYetPublished`, R10); nothing grants the publication (`notSubscribed`); the purchase that would have granted it was refunded (`refunded`, R5.1); published before the first archive period, and not the issue it unlocked (`publishedBeforeSubscription`, R11); published during a lapse, or after the last period ended (`lapseEnd` null) (`publishedDuringLapse`, R8, R11); no streaming period covers the instant (`streamingInactive`, R12; `since`: when the last one ended); older than the streaming product's window (`outsideStreamingWindow`, R12).",
                "oneOf": [
                  {
                    "title": "notYetPublished",
                    "type": "object",
                    "required": [
                      "kind"
                    ],
                    "properties": {
                      "kind": {
                        "const": "notYetPublished"
                      }
                    }
                  },
                  {
                    "title": "notSubscribed",
                    "type": "object",
                    "required": [
                      "kind"
                    ],
                    "properties": {
                      "kind": {
                        "const": "notSubscribed"
                      }
                    }
                  },
                  {
                    "title": "refunded",
                    "type": "object",
                    "required": [
                      "kind",
                      "transactionId"
                    ],
                    "properties": {
                      "kind": {
                        "const": "refunded"
                      },
                      "transactionId": {
                        "type": "string"
                      }
                    }
                  },
                  {
                    "title": "publishedBeforeSubscription",
                    "type": "object",
                    "required": [
                      "kind",
                      "firstPeriodStart"
                    ],
                    "properties": {
                      "kind": {
                        "const": "publishedBeforeSubscription"
                      },
                      "firstPeriodStart": {
                        "type": "string",
                        "format": "date-time"
                      }
                    }
                  },
                  {
                    "title": "publishedDuringLapse",
                    "type": "object",
                    "required": [
                      "kind",
                      "lapseStart",
                      "lapseEnd"
                    ],
                    "properties": {
                      "kind": {
                        "const": "publishedDuringLapse"
                      },
                      "lapseStart": {
                        "type": "string",
                        "format": "date-time"
                      },
                      "lapseEnd": {
                        "type": [
                          "string",
                          "null"
                        ],
                        "format": "date-time"
                      }
                    }
                  },
                  {
                    "title": "streamingInactive",
                    "type": "object",
                    "required": [
                      "kind",
                      "since"
                    ],
                    "properties": {
                      "kind": {
                        "const": "streamingInactive"
                      },
                      "since": {
                        "type": [
                          "string",
                          "null"
                        ],
                        "format": "date-time"
                      }
                    }
                  },
                  {
                    "title": "outsideStreamingWindow",
                    "type": "object",
                    "required": [
                      "kind",
                      "window"
                    ],
                    "properties": {
                      "kind": {
                        "const": "outsideStreamingWindow"
                      },
                      "window": {
                        "type": "integer",
                        "minimum": 1
                      }
                    }
                  }
                ]
              },
              "IssueDecision": {
                "type": "object",
                "description": "The decision on one issue: readable with every reason that applies (the first is the main one), or not with the denial.",
                "required": [
                  "id",
                  "published",
                  "readable"
                ],
                "properties": {
                  "id": {
                    "type": "string",
                    "description": "The issue id."
                  },
                  "published": {
                    "type": "string",
                    "format": "date-time"
                  },
                  "readable": {
                    "type": "boolean"
                  },
                  "reasons": {
                    "type": "array",
                    "items": {
                      "$ref": "#/components/schemas/Reason"
                    }
                  },
                  "reason": {
                    "$ref": "#/components/schemas/Denial"
                  }
                },
                "oneOf": [
                  {
                    "title": "readable",
                    "properties": {
                      "readable": {
                        "const": true
                      }
                    },
                    "required": [
                      "reasons"
                    ]
                  },
                  {
                    "title": "not readable",
                    "properties": {
                      "readable": {
                        "const": false
                      }
                    },
                    "required": [
                      "reason"
                    ]
                  }
                ]
              },
              "IssueCheck": {
                "type": "object",
                "description": "The download check's answer. Readable: `reason` is the main reason and `reasons` lists every one; not readable: `reason` is the denial.",
                "required": [
                  "user_id",
                  "publication",
                  "issue",
                  "at",
                  "readable",
                  "reason"
                ],
                "properties": {
                  "user_id": {
                    "type": "string"
                  },
                  "publication": {
                    "type": "string"
                  },
                  "issue": {
                    "type": "string"
                  },
                  "at": {
                    "type": "string",
                    "format": "date-time",
                    "description": "The as-of instant."
                  },
                  "readable": {
                    "type": "boolean"
                  },
                  "reason": {
                    "oneOf": [
                      {
                        "$ref": "#/components/schemas/Reason"
                      },
                      {
                        "$ref": "#/components/schemas/Denial"
                      }
                    ]
                  },
                  "reasons": {
                    "type": "array",
                    "items": {
                      "$ref": "#/components/schemas/Reason"
                    }
                  }
                },
                "oneOf": [
                  {
                    "title": "readable",
                    "properties": {
                      "readable": {
                        "const": true
                      },
                      "reason": {
                        "$ref": "#/components/schemas/Reason"
                      }
                    },
                    "required": [
                      "reasons"
                    ]
                  },
                  {
                    "title": "not readable",
                    "properties": {
                      "readable": {
                        "const": false
                      },
                      "reason": {
                        "$ref": "#/components/schemas/Denial"
                      }
                    },
                    "not": {
                      "required": [
                        "reasons"
                      ]
                    }
                  }
                ]
              },
              "CatalogIssue": {
                "type": "object",
                "description": "An issue of the catalog.",
                "required": [
                  "id",
                  "title",
                  "published",
                  "free"
                ],
                "properties": {
                  "id": {
                    "type": "string"
                  },
                  "title": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "published": {
                    "type": "string",
                    "format": "date-time"
                  },
                  "free": {
                    "type": "boolean",
                    "description": "Free issues are readable by everyone (R13)."
                  }
                }
              },
              "PublicationIssues": {
                "type": "object",
                "required": [
                  "publication",
                  "title",
                  "issues"
                ],
                "properties": {
                  "publication": {
                    "type": "string",
                    "description": "The publication id."
                  },
                  "title": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "issues": {
                    "type": "array",
                    "description": "In publish order.",
                    "items": {
                      "$ref": "#/components/schemas/CatalogIssue"
                    }
                  }
                }
              },
              "ReceiptStoredUnread": {
                "type": "object",
                "description": "The receipt is committed, but reading the entitlements back failed: the write stands (a 503 would mean \"not stored, send again\").",
                "required": [
                  "user_id",
                  "stored",
                  "entitlements_unavailable"
                ],
                "properties": {
                  "user_id": {
                    "type": "string"
                  },
                  "stored": {
                    "const": true
                  },
                  "entitlements_unavailable": {
                    "type": "string",
                    "description": "Why the entitlements could not be read back."
                  }
                }
              },
              "NotificationAnswer": {
                "type": "object",
                "required": [
                  "stored",
                  "applied"
                ],
                "properties": {
                  "stored": {
                    "type": "boolean",
                    "description": "Whether the raw body was kept now (in `notifications`): false only for a duplicate, which stores nothing."
                  },
                  "applied": {
                    "type": "boolean",
                    "description": "Whether its transactions and renewal info were read and merged."
                  },
                  "error": {
                    "type": "string",
                    "description": "Only when `applied` is false: why the body could not be read (JSON path, line and value)."
                  },
                  "duplicate": {
                    "const": true,
                    "description": "Only for a version 2 notification whose `notificationUUID` was stored before: this delivery is neither stored nor applied again (`stored` and `applied` are false)."
                  }
                }
              },
              "RejectedNotifications": {
                "type": "object",
                "required": [
                  "rejectedNotifications"
                ],
                "properties": {
                  "rejectedNotifications": {
                    "type": "array",
                    "description": "Newest first.",
                    "items": {
                      "type": "object",
                      "required": [
                        "id",
                        "received",
                        "reason",
                        "kind",
                        "bodyBytes"
                      ],
                      "properties": {
                        "id": {
                          "type": "integer",
                          "description": "Grows with every rejection."
                        },
                        "received": {
                          "type": "string",
                          "format": "date-time"
                        },
                        "reason": {
                          "type": "string",
                          "description": "Why the notification was refused; at most 1024 bytes (a longer reason is cut and ends with \"…\")."
                        },
                        "kind": {
                          "enum": [
                            "signed",
                            "malformed"
                          ],
                          "description": "`signed`: signed data of Apple's shape refused for its chain, signature, app or content (or a token of that shape while `appStoreBundleId` is unset); `malformed`: a body that is not a notification document, or a token that is not a well-formed JWS. Each kind keeps its newest 10,000 within 32 MiB of bodies and reasons, apart from the other."
                        },
                        "bodyBytes": {
                          "type": "integer",
                          "minimum": 0,
                          "description": "The body's length in bytes."
                        },
                        "bodyBase64": {
                          "type": "string",
                          "contentEncoding": "base64",
                          "description": "Only with `bodies=true`: the body as received, base64."
                        }
                      }
                    }
                  }
                }
              },
              "RefreshDue": {
                "type": "object",
                "description": "Subscriptions expiring within the window from now.",
                "required": [
                  "subscriptions"
                ],
                "properties": {
                  "subscriptions": {
                    "type": "array",
                    "items": {
                      "type": "object",
                      "required": [
                        "environment",
                        "originalTransactionId",
                        "userId",
                        "expires",
                        "latestReceipt"
                      ],
                      "properties": {
                        "environment": {
                          "$ref": "#/components/schemas/Environment"
                        },
                        "originalTransactionId": {
                          "type": "string"
                        },
                        "userId": {
                          "type": [
                            "string",
                            "null"
                          ],
                          "description": "The user the subscription is linked to, if any."
                        },
                        "expires": {
                          "type": "string",
                          "format": "date-time"
                        },
                        "latestReceipt": {
                          "type": [
                            "string",
                            "null"
                          ],
                          "description": "The latest base64 receipt known for the subscription, to re-verify with Apple."
                        }
                      }
                    }
                  }
                }
              },
              "AppAccountToken": {
                "type": "object",
                "description": "A StoreKit 2 app account token and the user who owns it.",
                "required": [
                  "userId",
                  "appAccountToken",
                  "linked"
                ],
                "properties": {
                  "userId": {
                    "type": "string"
                  },
                  "appAccountToken": {
                    "type": "string",
                    "format": "uuid",
                    "description": "In lower case."
                  },
                  "linked": {
                    "type": "string",
                    "format": "date-time",
                    "description": "When it was first linked to the user."
                  }
                }
              },
              "AppAccountTokens": {
                "type": "object",
                "required": [
                  "userId",
                  "appAccountTokens"
                ],
                "properties": {
                  "userId": {
                    "type": "string"
                  },
                  "appAccountTokens": {
                    "type": "array",
                    "description": "In the order they were linked.",
                    "items": {
                      "$ref": "#/components/schemas/AppAccountToken"
                    }
                  }
                }
              },
              "AppStoreTransaction": {
                "type": "object",
                "description": "One transaction as verifyReceipt writes it. Other fields are ignored; null, an empty string or an empty object count as absent (R2.5).",
                "required": [
                  "transaction_id",
                  "product_id"
                ],
                "properties": {
                  "transaction_id": {
                    "type": [
                      "string",
                      "integer"
                    ],
                    "description": "A string, or an integer number."
                  },
                  "original_transaction_id": {
                    "type": [
                      "string",
                      "integer"
                    ],
                    "description": "A string, or an integer number."
                  },
                  "product_id": {
                    "type": [
                      "string",
                      "integer"
                    ],
                    "description": "A string, or an integer number."
                  },
                  "purchase_date_ms": {
                    "type": [
                      "string",
                      "integer",
                      "null"
                    ],
                    "description": "Milliseconds since 1970, as digits or a number (used before the field without `_ms`)."
                  },
                  "purchase_date": {
                    "type": [
                      "string",
                      "integer",
                      "null"
                    ],
                    "description": "Milliseconds (digits), Apple's `yyyy-MM-dd HH:mm:ss Etc/GMT`, or RFC 3339 (R2.1)."
                  },
                  "expires_date_ms": {
                    "type": [
                      "string",
                      "integer",
                      "null"
                    ],
                    "description": "Milliseconds since 1970, as digits or a number (used before the field without `_ms`)."
                  },
                  "expires_date": {
                    "type": [
                      "string",
                      "integer",
                      "null"
                    ],
                    "description": "Milliseconds (digits), Apple's `yyyy-MM-dd HH:mm:ss Etc/GMT`, or RFC 3339 (R2.1). Required (or `expires_date_ms`) for an auto-renewable product of the catalog."
                  },
                  "cancellation_date_ms": {
                    "type": [
                      "string",
                      "integer",
                      "null"
                    ],
                    "description": "Milliseconds since 1970, as digits or a number (used before the field without `_ms`)."
                  },
                  "cancellation_date": {
                    "type": [
                      "string",
                      "integer",
                      "null"
                    ],
                    "description": "Milliseconds (digits), Apple's `yyyy-MM-dd HH:mm:ss Etc/GMT`, or RFC 3339 (R2.1)."
                  },
                  "is_upgraded": {
                    "type": [
                      "boolean",
                      "string",
                      "integer",
                      "null"
                    ],
                    "description": "`true`/`false`, `\"true\"`/`\"false\"`, `\"1\"`/`\"0\"` or 1/0 (R2.2)."
                  },
                  "is_trial_period": {
                    "type": [
                      "boolean",
                      "string",
                      "integer",
                      "null"
                    ],
                    "description": "`true`/`false`, `\"true\"`/`\"false\"`, `\"1\"`/`\"0\"` or 1/0 (R2.2)."
                  },
                  "is_in_intro_offer_period": {
                    "type": [
                      "boolean",
                      "string",
                      "integer",
                      "null"
                    ],
                    "description": "`true`/`false`, `\"true\"`/`\"false\"`, `\"1\"`/`\"0\"` or 1/0 (R2.2)."
                  }
                }
              },
              "AppStoreRenewalInfo": {
                "type": "object",
                "description": "One `pending_renewal_info` entry. Without `original_transaction_id` it is attached to the subscription whose latest transaction has its product (R2.6).",
                "properties": {
                  "original_transaction_id": {
                    "type": [
                      "string",
                      "integer"
                    ],
                    "description": "A string, or an integer number."
                  },
                  "product_id": {
                    "type": [
                      "string",
                      "integer"
                    ],
                    "description": "A string, or an integer number."
                  },
                  "auto_renew_product_id": {
                    "type": [
                      "string",
                      "integer",
                      "null"
                    ]
                  },
                  "auto_renew_status": {
                    "type": [
                      "boolean",
                      "string",
                      "integer",
                      "null"
                    ],
                    "description": "`true`/`false`, `\"true\"`/`\"false\"`, `\"1\"`/`\"0\"` or 1/0 (R2.2)."
                  },
                  "is_in_billing_retry_period": {
                    "type": [
                      "boolean",
                      "string",
                      "integer",
                      "null"
                    ],
                    "description": "`true`/`false`, `\"true\"`/`\"false\"`, `\"1\"`/`\"0\"` or 1/0 (R2.2)."
                  },
                  "expiration_intent": {
                    "type": [
                      "string",
                      "integer",
                      "null"
                    ]
                  },
                  "grace_period_expires_date_ms": {
                    "type": [
                      "string",
                      "integer",
                      "null"
                    ],
                    "description": "Milliseconds since 1970, as digits or a number (used before the field without `_ms`)."
                  },
                  "grace_period_expires_date": {
                    "type": [
                      "string",
                      "integer",
                      "null"
                    ],
                    "description": "Milliseconds (digits), Apple's `yyyy-MM-dd HH:mm:ss Etc/GMT`, or RFC 3339 (R2.1)."
                  }
                }
              },
              "VerifyReceiptResponse": {
                "description": "The JSON Apple's verifyReceipt endpoint answered, as the app's backend received it (it verifies the receipt with Apple; Masthead stores what it is given), with its `status`.",
                "allOf": [
                  {
                    "$ref": "#/components/schemas/VerifyReceiptFields"
                  }
                ],
                "required": [
                  "status"
                ]
              },
              "VerifyReceiptFields": {
                "type": "object",
                "description": "The fields of a verifyReceipt response that Masthead reads. Transactions come from `latest_receipt_info`, `receipt.in_app`, and for iOS 6-style receipts the `receipt` object itself and `latest_expired_receipt_info`, de-duplicated by transaction id (R2.3). iOS 6-style responses may carry `auto_renew_status`, `auto_renew_product_id`, `expiration_intent` and `is_in_billing_retry_period` at the top level. A field the rules use that cannot be read makes the whole receipt 400 `invalid_receipt`, naming its JSON path, line and value (R2.5).",
                "properties": {
                  "status": {
                    "type": [
                      "integer",
                      "string"
                    ],
                    "description": "Apple's status: 0 or 21006 are stored; any other is 422 `receipt_rejected` (R2.4)."
                  },
                  "environment": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "description": "`Production` (or `PROD`) or `Sandbox`, in any case; absent: production."
                  },
                  "receipt": {
                    "type": [
                      "object",
                      "null"
                    ],
                    "description": "The decoded receipt: `in_app` transactions, or (iOS 6 style) the fields of one transaction.",
                    "properties": {
                      "in_app": {
                        "oneOf": [
                          {
                            "type": "array",
                            "items": {
                              "$ref": "#/components/schemas/AppStoreTransaction"
                            }
                          },
                          {
                            "$ref": "#/components/schemas/AppStoreTransaction"
                          },
                          {
                            "enum": [
                              null,
                              ""
                            ]
                          },
                          {
                            "type": "object",
                            "maxProperties": 0
                          }
                        ],
                        "description": "An array of transactions, or one; null, an empty string or an empty object count as absent."
                      }
                    }
                  },
                  "latest_receipt_info": {
                    "oneOf": [
                      {
                        "type": "array",
                        "items": {
                          "$ref": "#/components/schemas/AppStoreTransaction"
                        }
                      },
                      {
                        "$ref": "#/components/schemas/AppStoreTransaction"
                      },
                      {
                        "enum": [
                          null,
                          ""
                        ]
                      },
                      {
                        "type": "object",
                        "maxProperties": 0
                      }
                    ],
                    "description": "An array of transactions, or one; null, an empty string or an empty object count as absent."
                  },
                  "latest_expired_receipt_info": {
                    "oneOf": [
                      {
                        "type": "array",
                        "items": {
                          "$ref": "#/components/schemas/AppStoreTransaction"
                        }
                      },
                      {
                        "$ref": "#/components/schemas/AppStoreTransaction"
                      },
                      {
                        "enum": [
                          null,
                          ""
                        ]
                      },
                      {
                        "type": "object",
                        "maxProperties": 0
                      }
                    ],
                    "description": "An array of transactions, or one; null, an empty string or an empty object count as absent."
                  },
                  "pending_renewal_info": {
                    "oneOf": [
                      {
                        "type": "array",
                        "items": {
                          "$ref": "#/components/schemas/AppStoreRenewalInfo"
                        }
                      },
                      {
                        "$ref": "#/components/schemas/AppStoreRenewalInfo"
                      },
                      {
                        "enum": [
                          null,
                          ""
                        ]
                      },
                      {
                        "type": "object",
                        "maxProperties": 0
                      }
                    ],
                    "description": "An array of renewal infos, or one; null, an empty string or an empty object count as absent."
                  },
                  "latest_receipt": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "description": "The latest base64 receipt: kept for the polling job to re-verify."
                  }
                }
              },
              "AppStoreNotificationV2": {
                "type": "object",
                "description": "An App Store Server Notification, version 2: Apple's `responseBodyV2`. The payload (`ResponseBodyV2DecodedPayload`: `notificationType`, `subtype`, `notificationUUID`, `data` with `signedTransactionInfo` and `signedRenewalInfo`, …) is a compact JWS signed with ES256 and an `x5c` chain of three certificates.",
                "required": [
                  "signedPayload"
                ],
                "properties": {
                  "signedPayload": {
                    "type": "string",
                    "minLength": 1,
                    "description": "The signed payload, `header.payload.signature` in base64url."
                  }
                }
              },
              "RestoreRequest": {
                "type": "object",
                "description": "A transaction id of the user's: any transaction of theirs that Apple knows.",
                "required": [
                  "transactionId"
                ],
                "properties": {
                  "transactionId": {
                    "type": "string",
                    "pattern": "^[0-9]{1,64}$",
                    "description": "A transaction id (or original transaction id), 1 to 64 digits."
                  }
                }
              },
              "SignedTransactions": {
                "type": "object",
                "description": "What a StoreKit 2 app holds: its transactions' `jwsRepresentation` values and, optionally, its subscriptions' signed renewal infos. Either member may be left out; `signedPayload` may not be given beside them.",
                "properties": {
                  "signedTransactions": {
                    "type": "array",
                    "items": {
                      "type": "string",
                      "minLength": 1
                    },
                    "description": "Signed transactions (`JWSTransactionDecodedPayload`), compact JWS."
                  },
                  "signedRenewalInfos": {
                    "type": "array",
                    "items": {
                      "type": "string",
                      "minLength": 1
                    },
                    "description": "Signed renewal infos (`JWSRenewalInfoDecodedPayload`), compact JWS."
                  }
                }
              },
              "AppStoreNotificationV1": {
                "type": "object",
                "description": "An App Store server notification, version 1. Its transactions and renewal info are stored, so a REFUND or CANCEL arrives as a transaction with a cancellation date, a DID_RENEW as a new transaction, a DID_CHANGE_RENEWAL_STATUS as renewal info. The top-level renewal fields apply to the top-level `original_transaction_id`, or to the subscription of the latest transaction.",
                "required": [
                  "notification_type",
                  "password"
                ],
                "properties": {
                  "notification_type": {
                    "type": "string",
                    "description": "`INITIAL_BUY`, `DID_RENEW`, `REFUND`, …; every type is read the same way and an unknown one is not an error."
                  },
                  "password": {
                    "type": "string",
                    "description": "The App Store shared secret (`MASTHEAD_APP_STORE_SHARED_SECRET`), compared in constant time."
                  },
                  "environment": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "description": "`Production` (or `PROD`) or `Sandbox`, in any case; absent: production."
                  },
                  "unified_receipt": {
                    "$ref": "#/components/schemas/VerifyReceiptFields",
                    "description": "Read like a verifyReceipt response; its `status` may be absent."
                  },
                  "latest_receipt": {
                    "type": [
                      "string",
                      "integer",
                      "null"
                    ]
                  },
                  "latest_receipt_info": {
                    "oneOf": [
                      {
                        "type": "array",
                        "items": {
                          "$ref": "#/components/schemas/AppStoreTransaction"
                        }
                      },
                      {
                        "$ref": "#/components/schemas/AppStoreTransaction"
                      },
                      {
                        "enum": [
                          null,
                          ""
                        ]
                      },
                      {
                        "type": "object",
                        "maxProperties": 0
                      }
                    ],
                    "description": "An array of transactions, or one; null, an empty string or an empty object count as absent."
                  },
                  "latest_expired_receipt": {
                    "type": [
                      "string",
                      "integer",
                      "null"
                    ]
                  },
                  "latest_expired_receipt_info": {
                    "oneOf": [
                      {
                        "type": "array",
                        "items": {
                          "$ref": "#/components/schemas/AppStoreTransaction"
                        }
                      },
                      {
                        "$ref": "#/components/schemas/AppStoreTransaction"
                      },
                      {
                        "enum": [
                          null,
                          ""
                        ]
                      },
                      {
                        "type": "object",
                        "maxProperties": 0
                      }
                    ],
                    "description": "An array of transactions, or one; null, an empty string or an empty object count as absent."
                  },
                  "original_transaction_id": {
                    "type": [
                      "string",
                      "integer"
                    ],
                    "description": "A string, or an integer number."
                  },
                  "auto_renew_status": {
                    "type": [
                      "boolean",
                      "string",
                      "integer",
                      "null"
                    ],
                    "description": "`true`/`false`, `\"true\"`/`\"false\"`, `\"1\"`/`\"0\"` or 1/0 (R2.2)."
                  },
                  "auto_renew_product_id": {
                    "type": [
                      "string",
                      "integer",
                      "null"
                    ]
                  },
                  "expiration_intent": {
                    "type": [
                      "string",
                      "integer",
                      "null"
                    ]
                  },
                  "is_in_billing_retry_period": {
                    "type": [
                      "boolean",
                      "string",
                      "integer",
                      "null"
                    ],
                    "description": "`true`/`false`, `\"true\"`/`\"false\"`, `\"1\"`/`\"0\"` or 1/0 (R2.2)."
                  }
                }
              },
              "IssueUpsert": {
                "type": "object",
                "description": "An issue to publish or correct.",
                "required": [
                  "published"
                ],
                "properties": {
                  "published": {
                    "type": "string",
                    "format": "date-time",
                    "description": "When the issue is published: an RFC 3339 instant."
                  },
                  "title": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "description": "Absent, null (or not a string): no title."
                  },
                  "free": {
                    "type": [
                      "boolean",
                      "null"
                    ],
                    "description": "Absent or null: false."
                  }
                }
              }
            },
            "parameters": {
              "userId": {
                "name": "userId",
                "in": "path",
                "required": true,
                "description": "The user id, percent-decoded: 1 to 256 bytes of valid UTF-8 with no control character (C0 U+0000–U+001F, DEL U+007F, C1 U+0080–U+009F); otherwise 400 `invalid_user_id`.",
                "schema": {
                  "type": "string",
                  "minLength": 1,
                  "maxLength": 256,
                  "pattern": "^[^\\u0000-\\u001F\\u007F-\\u009F]+$"
                }
              },
              "publicationId": {
                "name": "publicationId",
                "in": "path",
                "required": true,
                "description": "The publication id, percent-decoded: 1 to 256 bytes of valid UTF-8 with no control character (C0 U+0000–U+001F, DEL U+007F, C1 U+0080–U+009F); otherwise 400 `invalid_publication_id`.",
                "schema": {
                  "type": "string",
                  "minLength": 1,
                  "maxLength": 256,
                  "pattern": "^[^\\u0000-\\u001F\\u007F-\\u009F]+$"
                }
              },
              "issueId": {
                "name": "issueId",
                "in": "path",
                "required": true,
                "description": "The issue id, percent-decoded: 1 to 256 bytes of valid UTF-8 with no control character (C0 U+0000–U+001F, DEL U+007F, C1 U+0080–U+009F); otherwise 400 `invalid_issue_id`.",
                "schema": {
                  "type": "string",
                  "minLength": 1,
                  "maxLength": 256,
                  "pattern": "^[^\\u0000-\\u001F\\u007F-\\u009F]+$"
                }
              },
              "appAccountToken": {
                "name": "appAccountToken",
                "in": "path",
                "required": true,
                "description": "A StoreKit 2 app account token: a UUID written 8-4-4-4-12 hexadecimal digits, in either case (stored in lower case); otherwise 400 `invalid_app_account_token`.",
                "schema": {
                  "type": "string",
                  "pattern": "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$"
                }
              },
              "at": {
                "name": "at",
                "in": "query",
                "required": false,
                "description": "The as-of instant, RFC 3339 (`2020-07-02T00:00:00Z`, `2020-07-02T09:30:00.250+09:30`; `T`, `t` or a space between date and time; `Z`, `z` or an offset; fractions beyond milliseconds are truncated; send `+` as `%2B`). Default: now. Anything else is 400 `invalid_at`.",
                "schema": {
                  "type": "string",
                  "format": "date-time"
                }
              },
              "environment": {
                "name": "environment",
                "in": "query",
                "required": false,
                "description": "Which App Store environment's transactions count (R14). Anything else is 400 `invalid_environment`.",
                "schema": {
                  "type": "string",
                  "enum": [
                    "production",
                    "sandbox"
                  ],
                  "default": "production"
                }
              },
              "publication": {
                "name": "publication",
                "in": "query",
                "required": false,
                "description": "Answer for this publication only; one the catalog does not have is 404 `unknown_publication`.",
                "schema": {
                  "type": "string"
                }
              },
              "within": {
                "name": "within",
                "in": "query",
                "required": false,
                "description": "The window from now: a whole number below 100000 followed by `d` (days), `h` (hours), `m` (minutes) or `s` (seconds), such as `3d`, `12h`, `30m`, `45s`. Anything else is 400 `invalid_window`.",
                "schema": {
                  "type": "string",
                  "pattern": "^[0-9]{1,5}[dhms]$",
                  "default": "3d"
                }
              },
              "limit": {
                "name": "limit",
                "in": "query",
                "required": false,
                "description": "How many to list, the newest: a whole number from 1 to 1000. Anything else is 400 `invalid_limit`.",
                "schema": {
                  "type": "integer",
                  "minimum": 1,
                  "maximum": 1000,
                  "default": 100
                }
              },
              "bodies": {
                "name": "bodies",
                "in": "query",
                "required": false,
                "description": "`true` adds each body, base64 (`bodyBase64`). Anything but `true` or `false` is 400 `invalid_bodies`.",
                "schema": {
                  "type": "boolean",
                  "default": false
                }
              }
            },
            "responses": {
              "Unauthorized": {
                "description": "`unauthorized`: no `Authorization: Bearer` header with the API token.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Error"
                    }
                  }
                }
              },
              "RequestTimeout": {
                "description": "`request_timeout`: the request was not complete within the read timeout.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Error"
                    }
                  }
                }
              },
              "ContentTooLarge": {
                "description": "`content_too_large`: the body is larger than `maxBodyBytes`.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Error"
                    }
                  }
                }
              },
              "URITooLong": {
                "description": "`uri_too_long`: the request line is longer than `maxRequestLineBytes`.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Error"
                    }
                  }
                }
              },
              "HeaderFieldsTooLarge": {
                "description": "`request_header_fields_too_large`: a header field, the header section or the number of fields is over its limit.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Error"
                    }
                  }
                }
              },
              "NotImplemented": {
                "description": "`not_implemented`: `Transfer-Encoding` is not supported; send `Content-Length`.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Error"
                    }
                  }
                }
              },
              "Unavailable": {
                "description": "`handler_timeout`: the answer was not ready within the handler timeout; `too_many_connections`: the server has too many open connections.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Error"
                    }
                  }
                }
              },
              "HTTPVersionNotSupported": {
                "description": "`http_version_not_supported`: only HTTP/1.1 and HTTP/1.0 are served.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Error"
                    }
                  }
                }
              },
              "Head": {
                "description": "The status and header fields GET would answer (`Content-Length` is the length of GET's body), without a body.",
                "headers": {
                  "Content-Length": {
                    "description": "The length of the body GET would send.",
                    "schema": {
                      "type": "integer",
                      "minimum": 0
                    }
                  }
                }
              }
            },
            "securitySchemes": {
              "apiToken": {
                "type": "http",
                "scheme": "bearer",
                "description": "`Authorization: Bearer <MASTHEAD_API_TOKEN>`: every route but `/health`, `/openapi.json`, the App Store notifications, publishing issues and the rejected notifications. The scheme name is matched in any case, the token in constant time."
              },
              "adminToken": {
                "type": "http",
                "scheme": "bearer",
                "description": "`Authorization: Bearer <MASTHEAD_ADMIN_TOKEN>`: publishing or correcting issues (PUT) and listing the rejected notifications. The API token there is 403 `forbidden`; the admin token elsewhere is 401."
              }
            }
          }
        }
        """#
}
