/*
 * Strict JSON reader and JSON text buffer: see json.h for the accepted language.
 *
 * Memory: nodes live in one growing array linked by index while parsing (so growth may move
 * them) and get their pointers once parsing is done. Decoded strings and number tokens go to one
 * buffer of len + 2 bytes allocated up front, which always suffices: a string's decoded text plus
 * its NUL is never longer than its quoted source, and a number plus its NUL takes the place of
 * the delimiter that must follow it (or of the one spare byte at the end of the input).
 */
#include "compat/json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

typedef struct {
    const unsigned char *s;
    size_t len, pos;
    const char *what;
    g16_error *err;
    g16__json_doc *doc;
} parser;

void g16__json_line_col(const char *text, size_t len, size_t off, size_t *line, size_t *col)
{
    size_t l = 1, c = 1;
    for (size_t i = 0; i < off && i < len; i++) {
        if (text[i] == '\n')
            l++, c = 1;
        else
            c++;
    }
    *line = l;
    *col = c;
}

static g16_status fail_at(parser *p, size_t at, const char *why)
{
    size_t line, col;
    g16__json_line_col((const char *)p->s, p->len, at, &line, &col);
    return g16__error(p->err, G16_ERR_FORMAT, "%s: invalid JSON at line %zu, column %zu (byte %zu): %s", p->what, line,
                      col, at, why);
}

const char *g16__json_type_name(g16__json_type t)
{
    static const char *names[] = {"null", "false", "true", "number", "string", "array", "object"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

static void skip_ws(parser *p)
{
    while (p->pos < p->len) {
        unsigned char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        p->pos++;
    }
}

/* Index + 1 of a new node, or 0 when out of memory (err set). */
static size_t new_node(parser *p, g16__json_type type, size_t offset)
{
    g16__json_doc *d = p->doc;
    if (d->n_nodes == d->cap_nodes) {
        size_t cap = d->cap_nodes ? 2 * d->cap_nodes : 64;
        g16__json *grown = realloc(d->nodes, cap * sizeof *grown);
        if (!grown) {
            g16__error(p->err, G16_ERR_NOMEM, "%s: out of memory for %zu JSON values", p->what, cap);
            return 0;
        }
        d->nodes = grown;
        d->cap_nodes = cap;
    }
    g16__json *n = &d->nodes[d->n_nodes++];
    memset(n, 0, sizeof *n);
    n->type = type;
    n->offset = offset;
    return d->n_nodes;
}

static g16__json *node(parser *p, size_t id) { return &p->doc->nodes[id - 1]; }

/* Appends one code point as UTF-8 to the string buffer. */
static void put_utf8(g16__json_doc *d, uint32_t cp)
{
    char *o = d->strings + d->n_strings;
    if (cp < 0x80) {
        o[0] = (char)cp;
        d->n_strings += 1;
    } else if (cp < 0x800) {
        o[0] = (char)(0xC0 | cp >> 6);
        o[1] = (char)(0x80 | (cp & 0x3F));
        d->n_strings += 2;
    } else if (cp < 0x10000) {
        o[0] = (char)(0xE0 | cp >> 12);
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        d->n_strings += 3;
    } else {
        o[0] = (char)(0xF0 | cp >> 18);
        o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[3] = (char)(0x80 | (cp & 0x3F));
        d->n_strings += 4;
    }
}

static int hex4(const unsigned char *s, uint32_t *out)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned c = s[i], d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
            d = (c | 0x20) - 'a' + 10;
        else
            return -1;
        v = v << 4 | d;
    }
    *out = v;
    return 0;
}

/* Length of the valid UTF-8 sequence at s[0..avail), or 0 (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF). */
static size_t utf8_len(const unsigned char *s, size_t avail)
{
    unsigned c = s[0];
    size_t n;
    uint32_t cp, min;
    if (c < 0x80)
        return 1;
    if ((c & 0xE0) == 0xC0)
        n = 2, cp = c & 0x1F, min = 0x80;
    else if ((c & 0xF0) == 0xE0)
        n = 3, cp = c & 0x0F, min = 0x800;
    else if ((c & 0xF8) == 0xF0)
        n = 4, cp = c & 0x07, min = 0x10000;
    else
        return 0;
    if (avail < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

/* Parses a string at p->pos (the opening quote) into the string buffer; *out = its text. */
static g16_status parse_string(parser *p, const char **out, size_t *out_len)
{
    g16__json_doc *d = p->doc;
    size_t start = d->n_strings;
    p->pos++; /* opening quote */
    for (;;) {
        if (p->pos >= p->len)
            return fail_at(p, p->pos, "the string is not closed");
        unsigned char c = p->s[p->pos];
        if (c == '"') {
            p->pos++;
            break;
        }
        if (c < 0x20)
            return fail_at(p, p->pos, "a control character inside a string (escape it)");
        if (c != '\\') {
            size_t n = utf8_len(p->s + p->pos, p->len - p->pos);
            if (!n)
                return fail_at(p, p->pos, "invalid UTF-8 in a string");
            memcpy(d->strings + d->n_strings, p->s + p->pos, n);
            d->n_strings += n;
            p->pos += n;
            continue;
        }
        size_t esc = p->pos;
        if (p->pos + 1 >= p->len)
            return fail_at(p, esc, "the string ends inside an escape");
        unsigned char e = p->s[p->pos + 1];
        p->pos += 2;
        const char *simple = strchr("\"\\/bfnrt", e);
        if (e && simple) {
            static const char map[] = "\"\\/\b\f\n\r\t";
            d->strings[d->n_strings++] = map[simple - "\"\\/bfnrt"];
            continue;
        }
        if (e != 'u')
            return fail_at(p, esc, "unknown escape (allowed: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
        uint32_t cp, lo;
        if (p->len - p->pos < 4 || hex4(p->s + p->pos, &cp))
            return fail_at(p, esc, "\\u needs four hex digits");
        p->pos += 4;
        if (cp >= 0xDC00 && cp <= 0xDFFF)
            return fail_at(p, esc, "a low surrogate without a high one");
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (p->len - p->pos < 6 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u' ||
                hex4(p->s + p->pos + 2, &lo) || lo < 0xDC00 || lo > 0xDFFF)
                return fail_at(p, esc, "a high surrogate not followed by a \\u low surrogate");
            p->pos += 6;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        if (cp == 0)
            return fail_at(p, esc, "\\u0000 (NUL) is not allowed in strings here");
        put_utf8(d, cp);
    }
    d->strings[d->n_strings++] = 0;
    *out = d->strings + start;
    *out_len = d->n_strings - start - 1;
    return G16_OK;
}

static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static g16_status parse_number(parser *p, size_t id)
{
    size_t start = p->pos, i = p->pos;
    const unsigned char *s = p->s;
    if (i < p->len && s[i] == '-')
        i++;
    if (i >= p->len || !is_digit(s[i]))
        return fail_at(p, start, "a number needs a digit here");
    if (s[i] == '0') {
        i++;
        if (i < p->len && is_digit(s[i]))
            return fail_at(p, start, "a number with a leading zero");
    } else {
        while (i < p->len && is_digit(s[i]))
            i++;
    }
    if (i < p->len && s[i] == '.') {
        i++;
        if (i >= p->len || !is_digit(s[i]))
            return fail_at(p, start, "a number needs digits after the decimal point");
        while (i < p->len && is_digit(s[i]))
            i++;
    }
    if (i < p->len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < p->len && (s[i] == '+' || s[i] == '-'))
            i++;
        if (i >= p->len || !is_digit(s[i]))
            return fail_at(p, start, "a number needs digits in its exponent");
        while (i < p->len && is_digit(s[i]))
            i++;
    }
    g16__json_doc *d = p->doc;
    g16__json *n = node(p, id);
    n->len = i - start;
    memcpy(d->strings + d->n_strings, s + start, n->len);
    n->str = d->strings + d->n_strings;
    d->n_strings += n->len;
    d->strings[d->n_strings++] = 0;
    p->pos = i;
    return G16_OK;
}

static g16_status parse_value(parser *p, size_t *out_id, unsigned depth);

static int literal(parser *p, const char *word)
{
    size_t n = strlen(word);
    if (p->len - p->pos >= n && memcmp(p->s + p->pos, word, n) == 0) {
        p->pos += n;
        return 1;
    }
    return 0;
}

typedef struct {
    const char *key;
    size_t offset;
} keyed;

static int cmp_keys(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->offset > y->offset) - (x->offset < y->offset);
}

/* Refuses an object with two members of the same key (by sorting: objects may be large). */
static g16_status check_duplicates(parser *p, size_t id, size_t count)
{
    if (count < 2)
        return G16_OK;
    keyed *keys = malloc(count * sizeof *keys);
    size_t k = 0, dup_at = 0;
    int dup = 0;
    if (!keys)
        return g16__error(p->err, G16_ERR_NOMEM, "%s: out of memory (an object of %zu members)", p->what, count);
    for (size_t m = node(p, id)->i_child; m; m = node(p, m)->i_next, k++)
        keys[k] = (keyed){node(p, m)->key, node(p, m)->offset};
    qsort(keys, count, sizeof *keys, cmp_keys);
    for (size_t i = 1; i < count && !dup; i++)
        if (!strcmp(keys[i].key, keys[i - 1].key))
            dup = 1, dup_at = keys[i].offset;
    free(keys);
    return dup ? fail_at(p, dup_at, "a duplicate key in an object") : G16_OK;
}

/* An array or object at p->pos; members are linked by index. */
static g16_status parse_container(parser *p, size_t id, int is_object, unsigned depth)
{
    char close = is_object ? '}' : ']';
    size_t last = 0, count = 0;
    p->pos++;
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == (unsigned char)close) {
        p->pos++;
        return G16_OK;
    }
    for (;;) {
        g16_status st;
        const char *key = NULL;
        size_t key_len, key_at = p->pos, member;
        if (is_object) {
            if (p->pos >= p->len || p->s[p->pos] != '"')
                return fail_at(p, p->pos, p->pos >= p->len ? "the object is not closed" : "an object key must be a string");
            if ((st = parse_string(p, &key, &key_len)) != G16_OK)
                return st;
            skip_ws(p);
            if (p->pos >= p->len || p->s[p->pos] != ':')
                return fail_at(p, p->pos, "expected ':' after an object key");
            p->pos++;
            skip_ws(p);
        }
        if ((st = parse_value(p, &member, depth + 1)) != G16_OK)
            return st;
        node(p, member)->key = key;
        if (is_object)
            node(p, member)->offset = key_at; /* a member's offset is its key's */
        if (last)
            node(p, last)->i_next = member;
        else
            node(p, id)->i_child = member;
        last = member;
        count++;
        skip_ws(p);
        if (p->pos >= p->len)
            return fail_at(p, p->pos, is_object ? "the object is not closed" : "the array is not closed");
        unsigned char c = p->s[p->pos];
        if (c == (unsigned char)close) {
            p->pos++;
            break;
        }
        if (c != ',')
            return fail_at(p, p->pos, is_object ? "expected ',' or '}'" : "expected ',' or ']'");
        p->pos++;
        skip_ws(p);
        if (p->pos < p->len && p->s[p->pos] == (unsigned char)close)
            return fail_at(p, p->pos, "a trailing comma");
    }
    node(p, id)->len = count;
    return is_object ? check_duplicates(p, id, count) : G16_OK;
}

static g16_status parse_value(parser *p, size_t *out_id, unsigned depth)
{
    if (depth > G16__JSON_MAX_DEPTH)
        return fail_at(p, p->pos, "nested more than 64 levels deep");
    if (p->pos >= p->len)
        return fail_at(p, p->pos, "expected a value, found the end of the input");
    unsigned char c = p->s[p->pos];
    size_t at = p->pos, id;
    g16__json_type t;
    switch (c) {
    case '{': t = G16__JSON_OBJECT; break;
    case '[': t = G16__JSON_ARRAY; break;
    case '"': t = G16__JSON_STRING; break;
    case 't': t = G16__JSON_TRUE; break;
    case 'f': t = G16__JSON_FALSE; break;
    case 'n': t = G16__JSON_NULL; break;
    default:
        if (c == '-' || is_digit(c)) {
            t = G16__JSON_NUMBER;
            break;
        }
        return fail_at(p, at, "expected a value (object, array, string, number, true, false or null)");
    }
    if (!(id = new_node(p, t, at)))
        return G16_ERR_NOMEM;
    *out_id = id;
    switch (t) {
    case G16__JSON_OBJECT:
    case G16__JSON_ARRAY:
        return parse_container(p, id, t == G16__JSON_OBJECT, depth);
    case G16__JSON_STRING: {
        const char *s;
        size_t n;
        g16_status st = parse_string(p, &s, &n);
        node(p, id)->str = s;
        node(p, id)->len = n;
        return st;
    }
    case G16__JSON_NUMBER:
        return parse_number(p, id);
    default:
        if (literal(p, t == G16__JSON_TRUE ? "true" : t == G16__JSON_FALSE ? "false" : "null"))
            return G16_OK;
        return fail_at(p, at, "an unknown word (true, false and null are the only literals)");
    }
}

void g16__json_free(g16__json_doc *doc)
{
    if (!doc)
        return;
    free(doc->nodes);
    free(doc->strings);
    memset(doc, 0, sizeof *doc);
}

g16_status g16__json_parse(g16__json_doc *doc, const char *text, size_t len, const char *what, g16_error *err)
{
    g16_status st;
    if (!doc || (!text && len))
        return g16__error(err, G16_ERR_ARG, "g16__json_parse: NULL argument");
    memset(doc, 0, sizeof *doc);
    if (!what)
        what = "JSON input";
    if (len > G16__JSON_MAX_BYTES)
        return g16__error(err, G16_ERR_FORMAT, "%s: %zu bytes of JSON (at most %zu)", what, len, G16__JSON_MAX_BYTES);
    parser p = {(const unsigned char *)text, len, 0, what, err, doc};
    size_t root = 0;
    doc->cap_strings = len + 2;
    if (!(doc->strings = malloc(doc->cap_strings))) {
        st = g16__error(err, G16_ERR_NOMEM, "%s: out of memory (%zu bytes)", what, len);
        goto cleanup;
    }
    skip_ws(&p);
    if ((st = parse_value(&p, &root, 1)) != G16_OK)
        goto cleanup;
    skip_ws(&p);
    if (p.pos != len) {
        st = fail_at(&p, p.pos, "text after the end of the JSON value");
        goto cleanup;
    }
    for (size_t i = 0; i < doc->n_nodes; i++) {
        g16__json *n = &doc->nodes[i];
        n->child = n->i_child ? &doc->nodes[n->i_child - 1] : NULL;
        n->next = n->i_next ? &doc->nodes[n->i_next - 1] : NULL;
    }
    doc->root = &doc->nodes[root - 1];
cleanup:
    if (st != G16_OK)
        g16__json_free(doc);
    return st;
}

const g16__json *g16__json_get(const g16__json *o, const char *key)
{
    if (!o || o->type != G16__JSON_OBJECT)
        return NULL;
    for (const g16__json *m = o->child; m; m = m->next)
        if (!strcmp(m->key, key))
            return m;
    return NULL;
}

const g16__json *g16__json_at(const g16__json *a, size_t i)
{
    if (!a || a->type != G16__JSON_ARRAY)
        return NULL;
    const g16__json *m = a->child;
    while (m && i--)
        m = m->next;
    return m;
}

/* ---------------------------------------------------------------- writing */

static void jbuf_reserve(g16__jbuf *b, size_t extra)
{
    if (b->failed || b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *grown = realloc(b->s, cap);
    if (!grown) {
        b->failed = 1;
        return;
    }
    b->s = grown;
    b->cap = cap;
}

void g16__jbuf_puts(g16__jbuf *b, const char *s)
{
    size_t n = strlen(s);
    jbuf_reserve(b, n);
    if (b->failed)
        return;
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

void g16__jbuf_printf(g16__jbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    jbuf_reserve(b, (size_t)n);
    if (b->failed)
        return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void g16__jbuf_string(g16__jbuf *b, const char *s)
{
    g16__jbuf_puts(b, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            g16__jbuf_printf(b, "\\%c", c);
        else if (c < 0x20)
            g16__jbuf_printf(b, "\\u%04x", c);
        else {
            char one[2] = {(char)c, 0};
            g16__jbuf_puts(b, one);
        }
    }
    g16__jbuf_puts(b, "\"");
}

char *g16__jbuf_take(g16__jbuf *b)
{
    char *s = b->failed ? NULL : b->s;
    if (b->failed)
        free(b->s);
    else if (!s) /* nothing written: an empty string */
        s = calloc(1, 1);
    memset(b, 0, sizeof *b);
    return s;
}
