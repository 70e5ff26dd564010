/* Filling a caller's g16_error (which may be NULL) with a status and a printf-style detail line. */
#ifndef G16_UTIL_ERROR_H
#define G16_UTIL_ERROR_H

#include "g16.h"

/* Records status and the formatted message in err (when non-NULL); returns status so that
 * callers can write `return g16__error(err, G16_ERR_FORMAT, "section %s at byte %zu", ...)`. */
g16_status g16__error(g16_error *err, g16_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prepends formatted text to err->msg (no-op when err is NULL), truncating the old text if the
 * whole would not fit; the status is unchanged. For callers adding context ("circuit 3: "). */
void g16__error_prefix(g16_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
