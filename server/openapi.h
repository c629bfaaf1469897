/* openapi.h - the OpenAPI 3.1 document of the HTTP API, served at
 * GET /v1/openapi.json. Its source is api/openapi.json; the build turns it
 * into a C array (scripts/embed.sh), so the binary needs no file at run time. */
#ifndef GOMOKUD_OPENAPI_H
#define GOMOKUD_OPENAPI_H

#include <stddef.h>

/* The document's bytes, NUL-terminated; openapi_doc_len excludes the NUL. */
extern const unsigned char openapi_doc[];
extern const size_t openapi_doc_len;

#endif
