#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

void g16__error_prefix(g16_error *err, const char *fmt, ...)
{
    if (!err)
        return;
    char prefix[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    if (k <= 0)
        return;
    size_t plen = (size_t)k < sizeof prefix ? (size_t)k : sizeof prefix - 1;
    size_t mlen = strnlen(err->msg, sizeof err->msg - 1);
    if (plen + mlen > sizeof err->msg - 1)
        mlen = sizeof err->msg - 1 - plen; /* keep the prefix; truncate the old text */
    memmove(err->msg + plen, err->msg, mlen);
    memcpy(err->msg, prefix, plen);
    err->msg[plen + mlen] = 0;
}
