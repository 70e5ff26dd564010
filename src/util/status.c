/* Status codes and version: see include/g16.h. */
#include "g16.h"

static const char *const status_text[G16__STATUS_COUNT] = {
    [G16_OK] = "success",
    [G16_ERR_NOMEM] = "out of memory",
    [G16_ERR_ARG] = "invalid argument",
    [G16_ERR_IO] = "input/output error",
    [G16_ERR_INTERNAL] = "internal error (a bug in g16)",
    [G16_ERR_ENCODING_LENGTH] = "encoding has the wrong length",
    [G16_ERR_ENCODING_FLAGS] = "encoding has invalid flag bits",
    [G16_ERR_INFINITY_NONCANONICAL] = "point at infinity is not canonically encoded",
    [G16_ERR_COORD_RANGE] = "coordinate is not less than the field modulus",
    [G16_ERR_NOT_ON_CURVE] = "point is not on the curve",
    [G16_ERR_NOT_IN_SUBGROUP] = "point is not in the prime-order subgroup",
    [G16_ERR_SCALAR_RANGE] = "scalar is not less than the group order",
    [G16_ERR_TRUNCATED] = "input is truncated",
    [G16_ERR_FORMAT] = "input is malformed",
    [G16_ERR_SIZE_MISMATCH] = "sizes do not match",
    [G16_ERR_UNSATISFIED] = "witness does not satisfy the constraints",
    [G16_ERR_VERIFY_FAILED] = "proof verification failed",
    [G16_ERR_UNSUPPORTED] = "unsupported request",
    [G16_ERR_NO_DEVICE] = "no GPU device available",
    [G16_ERR_DEVICE] = "GPU call failed",
};

const char *g16_strerror(g16_status status)
{
    if ((unsigned)status >= G16__STATUS_COUNT || !status_text[status])
        return "unknown g16 status";
    return status_text[status];
}

const char *g16_version(void) { return G16_VERSION_STRING; }
