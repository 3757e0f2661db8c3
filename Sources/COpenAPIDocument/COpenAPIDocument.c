#include "COpenAPIDocument.h"

// C23's #embed copies the file in at compile time; clang records it as a dependency, so an edit
// to openapi.json rebuilds this file. An installed binary needs no resource bundle beside it.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wc23-extensions"
static const unsigned char document[] = {
#embed "openapi.json"
};
#pragma clang diagnostic pop

const unsigned char *masthead_openapi_json(void) { return document; }

size_t masthead_openapi_json_length(void) { return sizeof document; }
