// The service's OpenAPI document, openapi.json beside this target's C file, compiled into the binary.
#include <stddef.h>

/// The document's bytes: UTF-8 JSON, not NUL-terminated.
const unsigned char *masthead_openapi_json(void);

/// How many bytes `masthead_openapi_json` points to.
size_t masthead_openapi_json_length(void);
