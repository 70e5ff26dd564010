#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>

g16_status g16__error(g16_error *err, g16_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->status = status;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return status;
}
