/*
 * A small strict JSON reader (RFC 8259) and a text buffer for writing JSON, for the snarkjs file
 * formats (verification_key.json, proof.json, public.json) and the Filecoin test records.
 *
 * Representation: g16__json_parse builds a tree of g16__json nodes inside a g16__json_doc,
 * which owns every node and every decoded string; nodes are valid until g16__json_free.
 *   - STRING: str = the decoded text (UTF-8, NUL-terminated), len = its bytes.
 *   - NUMBER: str = the token exactly as written (NUL-terminated copy), len = its bytes; the
 *     reader checks the grammar but converts nothing (callers parse what they need).
 *   - ARRAY / OBJECT: len = member count; child = first member, each member's next = the
 *     following one; object members carry their decoded key in key.
 *   - every node records offset, the byte offset of its first character in the input.
 *
 * Strictness (everything else is refused with G16_ERR_FORMAT and "line L, column C (byte B)"):
 * one value and only whitespace (space, tab, CR, LF) around it; literals true/false/null; the
 * number grammar of the RFC (no leading zeros, no '+', no bare '.'); strings with the RFC's
 * escapes, \u surrogate pairs matched, no raw control characters, valid UTF-8 (no overlong forms,
 * no surrogates); no NUL character in a string or key (\u0000); no duplicate keys in an object;
 * nesting at most G16__JSON_MAX_DEPTH; input at most G16__JSON_MAX_BYTES.
 * The parser is iterative over siblings and recursive over depth only (bounded), and never reads
 * outside [text, text + len); text need not be NUL-terminated.
 */
#ifndef G16_COMPAT_JSON_H
#define G16_COMPAT_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "g16.h"

#define G16__JSON_MAX_DEPTH 64
#define G16__JSON_MAX_BYTES ((size_t)1 << 30)

typedef enum {
    G16__JSON_NULL = 0,
    G16__JSON_FALSE,
    G16__JSON_TRUE,
    G16__JSON_NUMBER,
    G16__JSON_STRING,
    G16__JSON_ARRAY,
    G16__JSON_OBJECT
} g16__json_type;

typedef struct g16__json g16__json;
struct g16__json {
    g16__json_type type;
    size_t len;
    const char *str;   /* STRING, NUMBER */
    const char *key;   /* member of an OBJECT, else NULL */
    g16__json *child;  /* ARRAY, OBJECT: first member */
    g16__json *next;   /* next member of the parent */
    size_t offset;     /* byte offset in the input */
    size_t i_child, i_next; /* private: links as node indices + 1 while parsing (0 = none) */
};

typedef struct {
    g16__json *root;
    /* private */
    g16__json *nodes;
    size_t n_nodes, cap_nodes;
    char *strings;
    size_t n_strings, cap_strings;
} g16__json_doc;

/* Parses text[0..len). what names the input in error messages ("proof.json"). On success doc
 * owns the tree (g16__json_free releases it); on failure doc is empty and err says where. */
g16_status g16__json_parse(g16__json_doc *doc, const char *text, size_t len, const char *what, g16_error *err);
void g16__json_free(g16__json_doc *doc);

/* The member of object o named key, or NULL (also when o is not an object). */
const g16__json *g16__json_get(const g16__json *o, const char *key);
/* Member i of an array (NULL past the end or when a is not an array). Linear in i. */
const g16__json *g16__json_at(const g16__json *a, size_t i);
/* "string", "number", ... for messages. */
const char *g16__json_type_name(g16__json_type t);
/* 1-based line and column of byte offset off in text (for messages about a node). */
void g16__json_line_col(const char *text, size_t len, size_t off, size_t *line, size_t *col);

/* A growing text buffer for writers. Appends never fail visibly: an allocation failure sets
 * failed, and g16__jbuf_take then returns NULL. */
typedef struct {
    char *s;
    size_t len, cap;
    int failed;
} g16__jbuf;

void g16__jbuf_puts(g16__jbuf *b, const char *s);
void g16__jbuf_printf(g16__jbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends s as a JSON string literal (quotes and escapes added). */
void g16__jbuf_string(g16__jbuf *b, const char *s);
/* The NUL-terminated text (caller frees), or NULL after an allocation failure (buffer freed). */
char *g16__jbuf_take(g16__jbuf *b);

#endif /* G16_COMPAT_JSON_H */
