/*
 * book.h - finding the opening book for the server and the pbrain brain.
 *
 * The engine parses a book from bytes (engine_book_parse); this reads them.
 * A spec is "builtin" for the book built into the binary (config/book.txt
 * as committed, compiled in by the Makefile), "" for no book, or the path of
 * a book file, read once at start.
 */
#ifndef GOMOKUD_SERVER_BOOK_H
#define GOMOKUD_SERVER_BOOK_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/engine.h"

#define BOOK_BUILTIN "builtin"

/* The bytes of config/book.txt, NUL-terminated; book_data_len excludes the NUL. */
extern const unsigned char book_data[];
extern const size_t book_data_len;

/* Loads the book a spec names into *out (NULL for ""). Returns false with
 * the reason in err when the file cannot be read or is not a book. */
bool book_load(const char *spec, EngineBook **out, char *err, size_t errlen);

#endif
