/* Device-memory plans (see gpu.h): plain C shared by the CUDA and the stub builds. */
#include <stdio.h>
#include <string.h>

#include "gpu/gpu.h"
#include "util/error.h"

void g16__gpu_plan_init(g16__gpu_plan *p) { memset(p, 0, sizeof *p); }

void g16__gpu_plan_add(g16__gpu_plan *p, const char *what, size_t bytes)
{
    if (p->n == G16__GPU_PLAN_MAX) {
        p->item[p->n - 1].what = "other buffers";
        p->item[p->n - 1].bytes += bytes;
        return;
    }
    p->item[p->n].what = what;
    p->item[p->n].bytes = bytes;
    p->n++;
}

size_t g16__gpu_plan_total(const g16__gpu_plan *p)
{
    size_t t = 0;
    for (size_t i = 0; i < p->n; i++)
        t += p->item[i].bytes;
    return t;
}

static double mib(size_t b) { return (double)b / (1024.0 * 1024.0); }

/* "item X MiB + item Y MiB" from offset k of buf (k < len); returns the new offset */
static int format_items(const g16__gpu_plan *p, char *buf, size_t len, int k)
{
    for (size_t i = 0; i < p->n && k >= 0 && (size_t)k < len; i++)
        k += snprintf(buf + k, len - (size_t)k, "%s%s %.1f MiB", i ? " + " : "", p->item[i].what,
                      mib(p->item[i].bytes));
    return k;
}

void g16__gpu_plan_format(const g16__gpu_plan *p, char *buf, size_t len)
{
    if (len == 0)
        return;
    int k = format_items(p, buf, len, snprintf(buf, len, "%.1f MiB (", mib(g16__gpu_plan_total(p))));
    if (k > 0 && (size_t)k < len)
        snprintf(buf + k, len - (size_t)k, ")");
}

g16_status g16__gpu_plan_check(g16__gpu *g, const g16__gpu_plan *p, g16_error *err)
{
    size_t free_b = 0, total_b = 0;
    g16_status st = g16__gpu_mem_info(g, &free_b, &total_b, err);
    if (st != G16_OK)
        return st;
    size_t need = g16__gpu_plan_total(p);
    if (need <= free_b && free_b - need >= G16__GPU_RESERVE)
        return G16_OK;
    /* the totals first: the items' breakdown is what the message's length may cut */
    char what[sizeof err->msg] = "";
    format_items(p, what, sizeof what, 0);
    return g16__error(err, G16_ERR_NOMEM,
                      "gpu: needs %.1f MiB, the device has %.1f MiB free of %.1f MiB (%.0f MiB kept in reserve): %s",
                      mib(need), mib(free_b), mib(total_b), mib(G16__GPU_RESERVE), what);
}
