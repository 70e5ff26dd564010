/*
 * Point arithmetic and MSM phase functions for one group, written once over a field: included
 * twice by msm_core.cuh (no include guard), after it defines
 *   MSM_FE        the coordinate field type (gfp for G1, gfp2 for G2)
 *   MSM_F(op)     that field's function name for op (gfp_mul, gfp2_mul, ...)
 *   MSM_P(name)   the group's name for name (g1_xyzz, g2_madd_inl, ...)
 *   MSM_ADD_F(op) the field function of op (mul, sqr) in the general addition
 *
 * Representations (variable-time code: MSM inputs are public):
 *   aff   (x, y); (0, 0) is infinity (as g16_p1_affine / g16_p2_affine, same bits).
 *   xyzz  (X, Y, ZZ, ZZZ): x = X/ZZ, y = Y/ZZZ, ZZ³ = ZZZ²; ZZ = 0 is infinity (all-zero bits
 *         after set_inf, so zero-filled device memory is an array of infinities).
 * Formulas: the Explicit-Formulas Database's XYZZ set for a = 0 (add-2008-s, madd-2008-s,
 * dbl-2008-s-1), as in the CPU MSM (msm_tmpl.h), with the same special cases (equal points
 * double, opposite points give infinity), so every input the CPU accepts is handled.
 */

typedef struct {
    MSM_FE x, y;
} MSM_P(aff);

typedef struct {
    MSM_FE x, y, zz, zzz;
} MSM_P(xyzz);

G16_HD void MSM_P(set_inf)(MSM_P(xyzz) *r)
{
    MSM_F(set_zero)(&r->x);
    MSM_F(set_zero)(&r->y);
    MSM_F(set_zero)(&r->zz);
    MSM_F(set_zero)(&r->zzz);
}

G16_HD int MSM_P(is_inf)(const MSM_P(xyzz) *a) { return MSM_F(is_zero)(&a->zz); }

G16_HD int MSM_P(aff_is_inf)(const MSM_P(aff) *p) { return MSM_F(is_zero)(&p->x) && MSM_F(is_zero)(&p->y); }

G16_HD void MSM_P(from_aff)(MSM_P(xyzz) *r, const MSM_P(aff) *p, int neg)
{
    r->x = p->x;
    if (neg)
        MSM_F(neg)(&r->y, &p->y);
    else
        r->y = p->y;
    MSM_F(set_one)(&r->zz);
    MSM_F(set_one)(&r->zzz);
}

/* r = 2a (r may alias a). */
G16_NI void MSM_P(dbl)(MSM_P(xyzz) *r, const MSM_P(xyzz) *a)
{
    MSM_FE u, v, w, s, m, t;
    if (MSM_P(is_inf)(a) || MSM_F(is_zero)(&a->y)) {
        MSM_P(set_inf)(r);
        return;
    }
    MSM_F(add)(&u, &a->y, &a->y); /* U = 2Y */
    MSM_F(sqr)(&v, &u);           /* V = U² */
    MSM_F(mul)(&w, &u, &v);       /* W = U·V */
    MSM_F(mul)(&s, &a->x, &v);    /* S = X·V */
    MSM_F(sqr)(&m, &a->x);
    MSM_F(add)(&t, &m, &m);
    MSM_F(add)(&m, &m, &t);       /* M = 3X² */
    MSM_F(mul)(&r->zz, &a->zz, &v);
    MSM_F(mul)(&r->zzz, &a->zzz, &w);
    MSM_F(mul)(&w, &w, &a->y);    /* W·Y (a->y read before r->y is written) */
    MSM_F(sqr)(&t, &m);
    MSM_F(sub)(&t, &t, &s);
    MSM_F(sub)(&t, &t, &s);       /* X3 = M² − 2S */
    MSM_F(sub)(&s, &s, &t);
    MSM_F(mul)(&s, &m, &s);       /* M(S − X3) */
    MSM_F(sub)(&r->y, &s, &w);    /* Y3 = M(S − X3) − W·Y */
    r->x = t;
}

/* r += (neg ? −p : p); p affine, not infinity. Inline (G16_HD) for the hot loops (level-0
 * accumulation, ones), where r and p stay in registers (through a call, the accumulator lives on
 * the stack and every product reloads its operands from it). The rare cases (equal or opposite x)
 * leave the inline path: a doubling of ±p as a call, on a copy, so that r's address is never
 * taken. */
G16_HD void MSM_P(madd_inl)(MSM_P(xyzz) *r, const MSM_P(aff) *p, int neg)
{
    MSM_FE u2, s2, pp, ppp, q, t, py;
    if (MSM_P(is_inf)(r)) {
        MSM_P(from_aff)(r, p, neg);
        return;
    }
    if (neg)
        MSM_F(neg)(&py, &p->y);
    else
        py = p->y;
    MSM_F(mul_inl)(&u2, &p->x, &r->zz);
    MSM_F(mul_inl)(&s2, &py, &r->zzz);
    MSM_F(sub)(&u2, &u2, &r->x); /* P = U2 − X1 */
    MSM_F(sub)(&s2, &s2, &r->y); /* R = S2 − Y1 */
    if (MSM_F(is_zero)(&u2)) {
        if (MSM_F(is_zero)(&s2)) {
            MSM_P(xyzz) d;
            MSM_P(from_aff)(&d, p, neg);
            MSM_P(dbl)(&d, &d);
            *r = d;
        } else {
            MSM_P(set_inf)(r);
        }
        return;
    }
    MSM_F(sqr_inl)(&pp, &u2);
    MSM_F(mul_inl)(&ppp, &pp, &u2);
    MSM_F(mul_inl)(&q, &r->x, &pp);
    MSM_F(mul_inl)(&r->zz, &r->zz, &pp);
    MSM_F(mul_inl)(&r->zzz, &r->zzz, &ppp);
    MSM_F(sqr_inl)(&t, &s2);
    MSM_F(sub)(&t, &t, &ppp);
    MSM_F(sub)(&t, &t, &q);
    MSM_F(sub)(&t, &t, &q);      /* X3 = R² − PPP − 2Q */
    MSM_F(sub)(&q, &q, &t);
    MSM_F(mul_inl)(&q, &s2, &q); /* R(Q − X3) */
    MSM_F(mul_inl)(&ppp, &r->y, &ppp);
    MSM_F(sub)(&r->y, &q, &ppp); /* Y3 = R(Q − X3) − Y1·PPP */
    r->x = t;
}

/* *r = *p; on the device as 128-bit read-only loads (the level-0 base reads are random: 6 / 12
 * requests per point instead of 24 / 48; affine points are 16-byte aligned in their arrays). */
G16_HD void MSM_P(aff_load)(MSM_P(aff) *r, const MSM_P(aff) *p)
{
#if defined(G16_PTX)
    union {
        MSM_P(aff) a;
        uint4 v[sizeof(MSM_P(aff)) / 16];
    } x;
    const uint4 *s = (const uint4 *)p;
    G16_UNROLL
    for (int j = 0; j < (int)(sizeof(MSM_P(aff)) / 16); j++)
        x.v[j] = __ldg(s + j);
    *r = x.a;
#else
    *r = *p;
#endif
}

/* r += b (general addition; b must not alias r). Its products are MSM_ADD_F's (msm_core.cuh): in
 * G1 mul_inl (by value on the device): one copy of the product per kernel instead of fourteen
 * unrolled ones. Measured on the H200 (bench_gpu_msm 24 22, RESULTS.md, 2026-12-03): reduce
 * phase G1 2^24 random 15.2 -> 12.0 ms, Filecoin-like 9.1 -> 5.5, G1 2^16 2.3 -> 1.2. The same
 * change in dbl slowed the G1 accumulation by a fifth (the level-0 kernel calls dbl), so dbl
 * keeps the field's own products; G2 keeps the Fp2 product calls (see MSM_ADD_F). */
G16_NI void MSM_P(add)(MSM_P(xyzz) *r, const MSM_P(xyzz) *b)
{
    MSM_FE u1, u2, s1, s2, pp, ppp, q, t;
    if (MSM_P(is_inf)(b))
        return;
    if (MSM_P(is_inf)(r)) {
        *r = *b;
        return;
    }
    MSM_ADD_F(mul)(&u1, &r->x, &b->zz);
    MSM_ADD_F(mul)(&u2, &b->x, &r->zz);
    MSM_ADD_F(mul)(&s1, &r->y, &b->zzz);
    MSM_ADD_F(mul)(&s2, &b->y, &r->zzz);
    MSM_F(sub)(&u2, &u2, &u1); /* P */
    MSM_F(sub)(&s2, &s2, &s1); /* R */
    if (MSM_F(is_zero)(&u2)) {
        if (MSM_F(is_zero)(&s2))
            MSM_P(dbl)(r, r);
        else
            MSM_P(set_inf)(r);
        return;
    }
    MSM_ADD_F(sqr)(&pp, &u2);
    MSM_ADD_F(mul)(&ppp, &pp, &u2);
    MSM_ADD_F(mul)(&q, &u1, &pp);
    MSM_ADD_F(mul)(&r->zz, &r->zz, &b->zz);
    MSM_ADD_F(mul)(&r->zz, &r->zz, &pp);
    MSM_ADD_F(mul)(&r->zzz, &r->zzz, &b->zzz);
    MSM_ADD_F(mul)(&r->zzz, &r->zzz, &ppp);
    MSM_ADD_F(sqr)(&t, &s2);
    MSM_F(sub)(&t, &t, &ppp);
    MSM_F(sub)(&t, &t, &q);
    MSM_F(sub)(&t, &t, &q);
    MSM_F(sub)(&q, &q, &t);
    MSM_ADD_F(mul)(&q, &s2, &q);
    MSM_ADD_F(mul)(&ppp, &s1, &ppp);
    MSM_F(sub)(&r->y, &q, &ppp);
    r->x = t;
}

/* r = k·a for a small public k (double-and-add from the top bit); r must not alias a. */
G16_HD void MSM_P(mul_small)(MSM_P(xyzz) *r, const MSM_P(xyzz) *a, uint32_t k)
{
    MSM_P(set_inf)(r);
    for (int b = 31; b >= 0; b--) {
        MSM_P(dbl)(r, r);
        if ((k >> b) & 1)
            MSM_P(add)(r, a);
    }
}

/* ---------------------------------------------------------------- phases (one call = one thread) */

/* Hint that *p will be read soon (device: into L2, no register; host: nothing). */
G16_HD void MSM_P(aff_prefetch)(const MSM_P(aff) *p)
{
#if defined(G16_PTX)
    const char *c = (const char *)p;
    G16_UNROLL
    for (int j = 0; j < (int)sizeof(MSM_P(aff)); j += 32)
        asm volatile("prefetch.global.L2 [%0];" ::"l"(c + j));
#else
    (void)p;
#endif
}

/* Bucket accumulation, one thread of level 0 (msm_core.cuh, step 3): mixed additions of the
 * sorted entries' bases, inline (madd_inl). The next entry's base is requested before the current
 * addition so that its (random) read overlaps the arithmetic: MSM_ACC0_REGPF 1 loads it into
 * registers (G1: 24 more live registers), 0 only prefetches it into L2 (G2, whose 48 registers
 * per point the inline addition cannot spare). */
G16_HD void MSM_P(acc0_thread)(const msm_level *lv, uint64_t t)
{
    const MSM_P(aff) *bases = (const MSM_P(aff) *)lv->bases;
    MSM_P(xyzz) *buckets = (MSM_P(xyzz) *)lv->buckets;
    MSM_P(xyzz) *spts = (MSM_P(xyzz) *)lv->opts;
    const uint32_t *keys = lv->keys, *vals = lv->vals;
    uint64_t n = lv->n, start = t * lv->per, end = start + lv->per < n ? start + lv->per : n;
    uint32_t sent = lv->sent;
    MSM_P(xyzz) acc;
    lv->okeys[2 * t] = sent;
    lv->okeys[2 * t + 1] = sent;
    MSM_P(set_inf)(&spts[2 * t]);
    MSM_P(set_inf)(&spts[2 * t + 1]);
    if (start >= n || keys[start] == sent)
        return;
    uint32_t cur = keys[start];
    int head = start > 0 && keys[start - 1] == cur, first = 1;
    lv->okeys[2 * t] = cur;
    MSM_P(set_inf)(&acc);
    uint32_t v = vals[start];
#if MSM_ACC0_REGPF
    MSM_P(aff) nb;
    MSM_P(aff_load)(&nb, &bases[v & 0x7fffffffu]);
#else
    MSM_P(aff_prefetch)(&bases[v & 0x7fffffffu]);
#endif
    uint64_t i;
    for (i = start; i < end; i++) {
        uint32_t k = keys[i];
        if (k == sent)
            break;
        MSM_P(aff) b;
        int neg = (int)(v >> 31);
#if MSM_ACC0_REGPF
        b = nb;
#else
        MSM_P(aff_load)(&b, &bases[v & 0x7fffffffu]);
#endif
        if (i + 1 < end) {
            /* a sentinel entry's value is a valid base index too */
            v = vals[i + 1];
#if MSM_ACC0_REGPF
            MSM_P(aff_load)(&nb, &bases[v & 0x7fffffffu]);
#else
            MSM_P(aff_prefetch)(&bases[v & 0x7fffffffu]);
#endif
        }
        if (k != cur) {
            /* cur ends inside this range: either it began in an earlier one (head slot) or it
             * is this thread's alone */
            if (first && head)
                spts[2 * t] = acc;
            else
                buckets[cur] = acc;
            first = 0;
            cur = k;
            MSM_P(set_inf)(&acc);
        }
        MSM_P(madd_inl)(&acc, &b, neg);
    }
    int tail = i == end && end < n && keys[end] == cur;
    lv->okeys[2 * t + 1] = cur;
    if (first && head)
        spts[2 * t] = acc;
    else if (tail)
        spts[2 * t + 1] = acc;
    else
        buckets[cur] = acc;
}

/* The level-0 store of a finished run's sum (affine, or infinity) in XYZZ form. */
G16_HD void MSM_P(lane_store)(MSM_P(xyzz) *dst, const MSM_P(aff) *acc, uint32_t st)
{
    if (st & MSM_LN_INF)
        MSM_P(set_inf)(dst);
    else
        MSM_P(from_aff)(dst, acc, 0);
}

/* Base v (index | sign << 31) as a point. */
G16_HD void MSM_P(lane_base)(MSM_P(aff) *p, const MSM_P(aff) *bases, uint32_t v)
{
    MSM_P(aff_load)(p, &bases[v & 0x7fffffffu]);
    if (v >> 31)
        MSM_F(neg)(&p->y, &p->y);
}

/* Forward step of lane q (virtual thread vt) in a round, L its state (read by the caller, one lane
 * ahead): finishes the lane at the end of its range, stores a run that ends, loads the first point
 * of a run, or sets up an addition: its slope's denominator and numerator go to lden[q] and
 * lden[nl + q] (nl = K·TL) and its denominator to *den (L.st gets MSM_LN_ADD or MSM_LN_DBL). The
 * lane's next entry is read here (its key and value kept in L for the next round), so that a
 * round's only dependent read is the base. Writes L back. Returns 1 when the lane finished. */
G16_HD int MSM_P(lane_step)(const msm_level *lv, msm_lane L, uint64_t q, uint64_t vt, MSM_FE *den, uint32_t *st)
{
    MSM_P(xyzz) *spts = (MSM_P(xyzz) *)lv->opts;
    MSM_P(aff) *lacc = (MSM_P(aff) *)lv->lacc;
    MSM_FE *lden = (MSM_FE *)lv->lden;
    uint64_t nl = (uint64_t)lv->K * lv->TL;
    int done = 0;
    L.st &= ~(MSM_LN_ADD | MSM_LN_DBL | MSM_LN_FIRSTDEN);
    if (L.st & MSM_LN_LIVE) {
        uint32_t k = L.kn, v = L.vn;
        if (k == lv->sent) {
            /* as the end of acc0_thread: the last run goes to the head slot, the tail slot (it
             * goes on past the range) or its bucket */
            int tail = L.i == L.end && L.end < lv->n && lv->keys[L.end] == L.cur;
            lv->okeys[2 * vt + 1] = L.cur;
            if ((L.st & MSM_LN_FIRST) && (L.st & MSM_LN_HEAD))
                MSM_P(lane_store)(&spts[2 * vt], &lacc[q], L.st);
            else if (tail)
                MSM_P(lane_store)(&spts[2 * vt + 1], &lacc[q], L.st);
            else
                MSM_P(lane_store)(&((MSM_P(xyzz) *)lv->buckets)[L.cur], &lacc[q], L.st);
            L.st &= ~MSM_LN_LIVE;
            done = 1;
        } else {
            MSM_P(aff) p, a;
            L.i++;
            L.kn = L.i < L.end ? lv->keys[L.i] : lv->sent;
            L.vn = L.i < L.end ? lv->vals[L.i] : 0;
            MSM_P(lane_base)(&p, (const MSM_P(aff) *)lv->bases, v);
            if (k != L.cur) {
                if ((L.st & MSM_LN_FIRST) && (L.st & MSM_LN_HEAD))
                    MSM_P(lane_store)(&spts[2 * vt], &lacc[q], L.st);
                else
                    MSM_P(lane_store)(&((MSM_P(xyzz) *)lv->buckets)[L.cur], &lacc[q], L.st);
                L.st &= ~(MSM_LN_FIRST | MSM_LN_INF);
                L.cur = k;
                lacc[q] = p;
            } else if (L.st & MSM_LN_INF) {
                L.st &= ~MSM_LN_INF;
                lacc[q] = p;
            } else {
                MSM_FE num;
                a = lacc[q];
                MSM_F(sub)(den, &p.x, &a.x);
                MSM_F(sub)(&num, &p.y, &a.y);
                if (!MSM_F(is_zero)(den)) {
                    L.st |= MSM_LN_ADD;
                } else if (MSM_F(is_zero)(&num) && !MSM_F(is_zero)(&a.y)) {
                    L.st |= MSM_LN_DBL; /* P = A: the tangent, slope 3x² / 2y */
                    MSM_F(add)(den, &a.y, &a.y);
                    MSM_F(sqr_inl)(&p.x, &a.x);
                    MSM_F(add)(&num, &p.x, &p.x);
                    MSM_F(add)(&num, &num, &p.x);
                } else {
                    L.st |= MSM_LN_INF; /* P = −A (or a point of order 2 doubled) */
                }
                if (L.st & (MSM_LN_ADD | MSM_LN_DBL)) {
                    lden[q] = *den;
                    lden[nl + q] = num;
                }
            }
        }
    }
    lv->lanes[q] = L;
    *st = L.st;
    return done;
}

/* Backward step of lane q: with inv = 1 / (the product of this round's denominators up to and
 * including this lane's), the lane's affine sum, and inv for the lanes before it. */
G16_HD void MSM_P(lane_finish)(const msm_level *lv, uint64_t q, uint32_t st, MSM_FE *inv)
{
    MSM_P(aff) *lacc = (MSM_P(aff) *)lv->lacc;
    const MSM_FE *lpre = (const MSM_FE *)lv->lpre, *lden = (const MSM_FE *)lv->lden;
    uint64_t nl = (uint64_t)lv->K * lv->TL;
    MSM_P(aff) a = lacc[q], r;
    MSM_FE den = lden[q], num = lden[nl + q], il, lam, u, xp;
    if (st & MSM_LN_FIRSTDEN) {
        il = *inv;
    } else {
        MSM_F(mul_inl)(&il, inv, &lpre[q]);
        MSM_F(mul_inl)(inv, inv, &den);
    }
    if (st & MSM_LN_ADD)
        MSM_F(add)(&xp, &a.x, &den); /* x_P = x_A + (x_P − x_A) */
    else
        xp = a.x;
    MSM_F(mul_inl)(&lam, &num, &il);
    MSM_F(sqr_inl)(&r.x, &lam);
    MSM_F(sub)(&r.x, &r.x, &a.x);
    MSM_F(sub)(&r.x, &r.x, &xp); /* x3 = λ² − x_A − x_P */
    MSM_F(sub)(&u, &a.x, &r.x);
    MSM_F(mul_inl)(&r.y, &lam, &u);
    MSM_F(sub)(&r.y, &r.y, &a.y); /* y3 = λ(x_A − x3) − y_A */
    lacc[q] = r;
}

/*
 * Batch-affine level 0 (msm_core.cuh, step 3; plan K > 1): real thread t runs the K virtual
 * threads t·K .. t·K + K − 1 of acc0_thread (same entry ranges, slots, keys and buckets) as lanes
 * in lock-step: each round every live lane takes its next entry, and the lanes that add share one
 * inversion for their slopes (Montgomery's trick: 3 products per addition, plus λ, λ², y3: 6
 * against the XYZZ mixed addition's 10). Lane state lives in device memory (lv->lanes, lacc, lpre,
 * lden at j·TL + t: adjacent threads' lanes adjacent). The next lane's state is read, and its base
 * prefetched into L2, while the current lane is worked on. Special cases as madd_inl: P = A
 * doubles (tangent), P = −A gives infinity. bench_gpu_ab (bench/RESULTS.md) measured the idea
 * without the lanes' bookkeeping at 0.81x the XYZZ time per addition (K = 32) on the H200; in the
 * MSM, with the lane state and the entries read from device memory, it is slower than XYZZ (K = 32:
 * 1.03x at G1 2^24 random, 1.15x Filecoin-like), so the default is the XYZZ level 0 (msm.cu,
 * G16_MSM_LANES_G1 / _G2; g16__gpu_msm_opts.lanes selects it per run).
 */
G16_HD void MSM_P(acc0_aff_thread)(const msm_level *lv, uint64_t t)
{
    MSM_P(xyzz) *spts = (MSM_P(xyzz) *)lv->opts;
    MSM_FE *lpre = (MSM_FE *)lv->lpre;
    const uint32_t *keys = lv->keys;
    const MSM_P(aff) *bases = (const MSM_P(aff) *)lv->bases;
    uint64_t n = lv->n, TL = lv->TL;
    uint32_t K = lv->K, sent = lv->sent, live = 0;
    G16_NOUNROLL
    for (uint32_t j = 0; j < K; j++) {
        uint64_t vt = t * K + j, q = (uint64_t)j * TL + t;
        msm_lane L;
        L.i = L.end = 0;
        L.cur = L.st = L.kn = L.vn = 0;
        if (vt < lv->T0) {
            uint64_t start = vt * lv->per, end = start + lv->per < n ? start + lv->per : n;
            lv->okeys[2 * vt] = sent;
            lv->okeys[2 * vt + 1] = sent;
            MSM_P(set_inf)(&spts[2 * vt]);
            MSM_P(set_inf)(&spts[2 * vt + 1]);
            if (start < n && keys[start] != sent) {
                L.cur = keys[start];
                L.i = start;
                L.end = end;
                L.kn = L.cur;
                L.vn = lv->vals[start];
                L.st = MSM_LN_LIVE | MSM_LN_FIRST | MSM_LN_INF;
                if (start > 0 && keys[start - 1] == L.cur)
                    L.st |= MSM_LN_HEAD;
                lv->okeys[2 * vt] = L.cur;
                live++;
            }
        }
        lv->lanes[q] = L;
    }
    while (live > 0) {
        MSM_FE run, inv;
        int any = 0;
        msm_lane L = lv->lanes[t];
        if (L.st & MSM_LN_LIVE)
            MSM_P(aff_prefetch)(&bases[L.vn & 0x7fffffffu]);
        G16_NOUNROLL
        for (uint32_t j = 0; j < K; j++) {
            uint64_t q = (uint64_t)j * TL + t;
            msm_lane Ln = L;
            MSM_FE den;
            uint32_t st;
            if (j + 1 < K)
                Ln = lv->lanes[q + TL];
            live -= (uint32_t)MSM_P(lane_step)(lv, L, q, t * K + j, &den, &st);
            if (j + 1 < K && (Ln.st & MSM_LN_LIVE))
                MSM_P(aff_prefetch)(&bases[Ln.vn & 0x7fffffffu]);
            if (st & (MSM_LN_ADD | MSM_LN_DBL)) {
                if (!any) {
                    lv->lanes[q].st = st | MSM_LN_FIRSTDEN;
                    run = den;
                    any = 1;
                } else {
                    lpre[q] = run; /* the product of the denominators before this lane's */
                    MSM_F(mul_inl)(&run, &run, &den);
                }
            }
            L = Ln;
        }
        if (!any)
            continue;
        MSM_F(inv_var)(&inv, &run);
        G16_NOUNROLL
        for (uint32_t j = K; j-- > 0;) {
            uint64_t q = (uint64_t)j * TL + t;
            uint32_t st = lv->lanes[q].st;
            if (st & (MSM_LN_ADD | MSM_LN_DBL))
                MSM_P(lane_finish)(lv, q, st, &inv);
        }
    }
}

/* One thread of a carry level >= 1: the same walk over the previous level's slots, with general
 * additions (calls), a run wholly inside the range added into its bucket. */
G16_HD void MSM_P(accn_thread)(const msm_level *lv, uint64_t t)
{
    const MSM_P(xyzz) *in = (const MSM_P(xyzz) *)lv->in;
    MSM_P(xyzz) *buckets = (MSM_P(xyzz) *)lv->buckets;
    MSM_P(xyzz) *spts = (MSM_P(xyzz) *)lv->opts;
    uint64_t start = t * lv->per, end = start + lv->per < lv->n ? start + lv->per : lv->n;
    uint32_t sent = lv->sent;
    MSM_P(xyzz) acc;
    lv->okeys[2 * t] = sent;
    lv->okeys[2 * t + 1] = sent;
    MSM_P(set_inf)(&spts[2 * t]);
    MSM_P(set_inf)(&spts[2 * t + 1]);
    if (start >= lv->n || lv->keys[start] == sent)
        return;
    uint32_t cur = lv->keys[start];
    int head = start > 0 && lv->keys[start - 1] == cur, first = 1;
    lv->okeys[2 * t] = cur;
    MSM_P(set_inf)(&acc);
    uint64_t i;
    for (i = start; i < end; i++) {
        uint32_t k = lv->keys[i];
        if (k == sent)
            break;
        if (k != cur) {
            if (first && head)
                spts[2 * t] = acc;
            else
                MSM_P(add)(&buckets[cur], &acc);
            first = 0;
            cur = k;
            MSM_P(set_inf)(&acc);
        }
        MSM_P(add)(&acc, &in[i]);
    }
    int tail = i == end && end < lv->n && lv->keys[end] == cur;
    lv->okeys[2 * t + 1] = cur;
    if (first && head)
        spts[2 * t] = acc;
    else if (tail)
        spts[2 * t + 1] = acc;
    else
        MSM_P(add)(&buckets[cur], &acc);
}

G16_HD void MSM_P(acc_thread)(const msm_level *lv, uint64_t t)
{
    if (lv->in)
        MSM_P(accn_thread)(lv, t);
    else
        MSM_P(acc0_thread)(lv, t);
}

/* Weighted bucket sum of segment s of window w (t = w·TR + s): with j the bucket's digit,
 * out[t] = Σ_{j in segment} j·bucket_j, by running sums from the top of the segment, plus
 * (s·L)·(segment total). */
G16_HD void MSM_P(reduce_thread)(const msm_plan *pl, const void *vbuckets, void *vout, uint64_t t)
{
    const MSM_P(xyzz) *buckets = (const MSM_P(xyzz) *)vbuckets;
    MSM_P(xyzz) *out = (MSM_P(xyzz) *)vout;
    uint64_t w = t / pl->TR, s = t % pl->TR;
    const MSM_P(xyzz) *b = buckets + w * pl->B + s * pl->L;
    MSM_P(xyzz) run, acc, hi;
    MSM_P(set_inf)(&run);
    MSM_P(set_inf)(&acc);
    for (uint32_t j = pl->L; j-- > 0;) {
        MSM_P(add)(&run, &b[j]);
        MSM_P(add)(&acc, &run);
    }
    if (s) {
        MSM_P(mul_small)(&hi, &run, (uint32_t)(s * pl->L));
        MSM_P(add)(&acc, &hi);
    }
    out[t] = acc;
}

/* Sums groups of G consecutive points inside each of the segments of seglen points:
 * out[w·outlen + i] = Σ in[w·seglen + i·G + j], j < G, i·G + j < seglen; outlen = ceil(seglen/G). */
G16_HD void MSM_P(sum_thread)(const void *vin, void *vout, uint64_t seglen, uint32_t G, uint64_t t)
{
    const MSM_P(xyzz) *in = (const MSM_P(xyzz) *)vin;
    MSM_P(xyzz) *out = (MSM_P(xyzz) *)vout;
    uint64_t outlen = (seglen + G - 1) / G, w = t / outlen, i = t % outlen;
    MSM_P(xyzz) acc;
    MSM_P(set_inf)(&acc);
    for (uint64_t j = i * G; j < seglen && j < (i + 1) * G; j++)
        MSM_P(add)(&acc, &in[w * seglen + j]);
    out[t] = acc;
}

/* The next set bit of words [*wd, end) at or after the state (*wd, *m: the current word's bits
 * not yet taken): its base index, or UINT64_MAX when there is none. */
G16_HD uint64_t MSM_P(ones_next)(const uint32_t *bits, uint64_t end, uint64_t *wd, uint32_t *m)
{
    while (*m == 0) {
        if (++*wd >= end)
            return UINT64_MAX;
        *m = bits[*wd];
    }
    int b = ctz32(*m);
    *m &= *m - 1;
    return *wd * 32 + (uint64_t)b;
}

/* The scalars equal to one: thread t adds the bases of the set bits of words [tQ, tQ + Q), with
 * the inline mixed addition (registers, as the level-0 accumulation; through the call, the
 * accumulator went through the stack at every product). With pf (a constant at every call:
 * G16_MSM_ONES_PF in msm.cu, both ways in the host tests) the next base is prefetched into L2
 * before the current addition, as level 0 does. */
G16_HD void MSM_P(ones_thread)(const uint32_t *bits, uint64_t nwords, uint32_t Q, const void *vbases, void *vout,
                               uint64_t t, int pf)
{
    const MSM_P(aff) *bases = (const MSM_P(aff) *)vbases;
    MSM_P(xyzz) *out = (MSM_P(xyzz) *)vout;
    MSM_P(xyzz) acc;
    MSM_P(set_inf)(&acc);
    if (pf) {
        uint64_t end = (t + 1) * Q < nwords ? (t + 1) * Q : nwords, wd = t * Q;
        uint32_t m = wd < end ? bits[wd] : 0;
        uint64_t i = wd < end ? MSM_P(ones_next)(bits, end, &wd, &m) : UINT64_MAX;
        if (i != UINT64_MAX)
            MSM_P(aff_prefetch)(&bases[i]);
        while (i != UINT64_MAX) {
            MSM_P(aff) pt;
            MSM_P(aff_load)(&pt, &bases[i]);
            i = MSM_P(ones_next)(bits, end, &wd, &m);
            if (i != UINT64_MAX)
                MSM_P(aff_prefetch)(&bases[i]);
            MSM_P(madd_inl)(&acc, &pt, 0);
        }
        out[t] = acc;
        return;
    }
    for (uint64_t wd = t * Q; wd < nwords && wd < (t + 1) * Q; wd++) {
        uint32_t m = bits[wd];
        while (m) {
            int b = ctz32(m);
            m &= m - 1;
            MSM_P(aff) pt;
            MSM_P(aff_load)(&pt, &bases[wd * 32 + (uint64_t)b]);
            MSM_P(madd_inl)(&acc, &pt, 0);
        }
    }
    out[t] = acc;
}

/* The final combination (one thread): Σ_w 2^(wc)·W[w] by Horner's rule, plus the ones' sum
 * (NULL when there is none). nwin may be 0 (no Pippenger part). */
G16_HD void MSM_P(final_thread)(uint32_t nwin, uint32_t c, const void *vW, const void *vones, void *vout)
{
    const MSM_P(xyzz) *W = (const MSM_P(xyzz) *)vW;
    MSM_P(xyzz) acc;
    MSM_P(set_inf)(&acc);
    for (uint32_t w = nwin; w-- > 0;) {
        for (uint32_t k = 0; k < c && w + 1 < nwin; k++)
            MSM_P(dbl)(&acc, &acc);
        MSM_P(add)(&acc, &W[w]);
    }
    if (vones)
        MSM_P(add)(&acc, (const MSM_P(xyzz) *)vones);
    *(MSM_P(xyzz) *)vout = acc;
}

/* ---------------------------------------------------------------- tree accumulation (msm_core.cuh) */

/* Kinds of a pair (a, b) of a round: the chord addition, the tangent (a = b), the result is a
 * (b is infinity), b (a is infinity), or infinity (a = −b). */
#define MSM_TK_ADD 0u
#define MSM_TK_DBL 1u
#define MSM_TK_A 2u
#define MSM_TK_B 3u
#define MSM_TK_INF 4u

/* The live point at entry o of the slice: the signed base in round 0, else the scratch's. Within
 * a round no thread reads what another writes (it writes only its pairs' first entries, and reads
 * only its pairs' entries), so the scratch takes the read-only path too. */
G16_HD void MSM_P(tree_load)(const msm_tree *tr, uint64_t o, MSM_P(aff) *p)
{
    if (tr->r == 0)
        MSM_P(lane_base)(p, (const MSM_P(aff) *)tr->bases, tr->vals[o]);
    else
        MSM_P(aff_load)(p, (const MSM_P(aff) *)tr->scr + (o - tr->s0));
}

/* Its x coordinate alone (the sign of a base does not change it). */
G16_HD void MSM_P(tree_load_x)(const msm_tree *tr, uint64_t o, MSM_FE *x)
{
    const MSM_P(aff) *p = tr->r == 0 ? (const MSM_P(aff) *)tr->bases + (tr->vals[o] & 0x7fffffffu)
                                     : (const MSM_P(aff) *)tr->scr + (o - tr->s0);
#if defined(G16_PTX)
    union {
        MSM_FE f;
        uint4 v[sizeof(MSM_FE) / 16];
    } u;
    const uint4 *s = (const uint4 *)p;
    G16_UNROLL
    for (int j = 0; j < (int)(sizeof(MSM_FE) / 16); j++)
        u.v[j] = __ldg(s + j);
    *x = u.f;
#else
    *x = p->x;
#endif
}

/* The pair's kind and, for an addition or a doubling, its slope's denominator. */
G16_HD uint32_t MSM_P(tree_kind)(const MSM_P(aff) *a, const MSM_P(aff) *b, MSM_FE *den)
{
    MSM_FE t;
    if (MSM_P(aff_is_inf)(a))
        return MSM_TK_B;
    if (MSM_P(aff_is_inf)(b))
        return MSM_TK_A;
    MSM_F(sub)(den, &b->x, &a->x);
    if (!MSM_F(is_zero)(den))
        return MSM_TK_ADD;
    MSM_F(sub)(&t, &b->y, &a->y);
    if (!MSM_F(is_zero)(&t) || MSM_F(is_zero)(&a->y)) /* a = −b (y = 0 has no tangent: 2-torsion) */
        return MSM_TK_INF;
    MSM_F(add)(den, &a->y, &a->y);
    return MSM_TK_DBL;
}

/* The n pairs (s0 + pos[j], s0 + pos[j] + 2^r) of one thread: the first entry := the pair's sum.
 * Forward: the denominators' running products (pre[j], the product up to j of those that have
 * one), reading only the x coordinates unless they are zero or equal (then the kind needs the
 * points). One inversion. Backward: each slope from the inverse, the points read again. */
G16_HD void MSM_P(tree_batch)(const msm_tree *tr, const uint32_t *pos, uint32_t n)
{
    MSM_FE pre[MSM_TREE_KMAX], run, inv;
    uint8_t kind[MSM_TREE_KMAX];
    uint64_t step = (uint64_t)1 << tr->r;
    MSM_P(aff) *scr = (MSM_P(aff) *)tr->scr;
    uint32_t first = n; /* the first pair with a denominator */
    MSM_F(set_zero)(&run);
    MSM_F(set_zero)(&inv);
    for (uint32_t j = 0; j < n; j++) {
        uint64_t o = tr->s0 + pos[j];
        MSM_FE ax, bx, den;
        uint32_t k;
        MSM_P(tree_load_x)(tr, o, &ax);
        MSM_P(tree_load_x)(tr, o + step, &bx);
        MSM_F(sub)(&den, &bx, &ax);
        if (MSM_F(is_zero)(&ax) || MSM_F(is_zero)(&bx) || MSM_F(is_zero)(&den)) {
            MSM_P(aff) a, b;
            MSM_P(tree_load)(tr, o, &a);
            MSM_P(tree_load)(tr, o + step, &b);
            k = MSM_P(tree_kind)(&a, &b, &den);
        } else {
            k = MSM_TK_ADD;
        }
        kind[j] = (uint8_t)k;
        if (k <= MSM_TK_DBL) {
            if (first == n) {
                run = den;
                first = j;
            } else {
                MSM_F(mul_inl)(&run, &run, &den);
            }
        }
        pre[j] = run;
    }
    if (first < n)
        MSM_F(inv_var)(&inv, &run);
    for (uint32_t j = n; j-- > 0;) {
        uint64_t o = tr->s0 + pos[j];
        uint32_t k = kind[j];
        MSM_P(aff) a, b, r;
        if (k == MSM_TK_A && tr->r > 0)
            continue; /* already in place */
        if (k != MSM_TK_B)
            MSM_P(tree_load)(tr, o, &a);
        if (k != MSM_TK_A && k != MSM_TK_INF)
            MSM_P(tree_load)(tr, o + step, &b);
        if (k <= MSM_TK_DBL) {
            MSM_FE den, num, il, lam, t;
            if (k == MSM_TK_ADD) {
                MSM_F(sub)(&den, &b.x, &a.x);
                MSM_F(sub)(&num, &b.y, &a.y);
            } else {
                MSM_F(add)(&den, &a.y, &a.y);
                MSM_F(sqr_inl)(&num, &a.x);
                MSM_F(add)(&t, &num, &num);
                MSM_F(add)(&num, &num, &t); /* 3x² */
            }
            if (j > first) {
                MSM_F(mul_inl)(&il, &inv, &pre[j - 1]); /* 1/den_j */
                MSM_F(mul_inl)(&inv, &inv, &den);       /* 1/(product of the earlier ones) */
            } else {
                il = inv;
            }
            MSM_F(mul_inl)(&lam, &num, &il);
            MSM_F(sqr_inl)(&r.x, &lam);
            MSM_F(sub)(&r.x, &r.x, &a.x);
            MSM_F(sub)(&r.x, &r.x, &b.x);
            MSM_F(sub)(&t, &a.x, &r.x);
            MSM_F(mul_inl)(&r.y, &lam, &t);
            MSM_F(sub)(&r.y, &r.y, &a.y);
        } else if (k == MSM_TK_A) {
            r = a;
        } else if (k == MSM_TK_B) {
            r = b;
        } else {
            MSM_F(set_zero)(&r.x);
            MSM_F(set_zero)(&r.y);
        }
        scr[o - tr->s0] = r;
    }
}

/* One thread of round r: entries [s0 + t·span, ...) of the slice (msm_tree_span). For each run that meets
 * the range, the run's live points at a + j·2^r with j even in the range; each with a partner
 * (j + 1 live) joins the batch, a last one without stays (round 0 copies its base to the
 * scratch). The batches (up to K pairs) are collected first and added at one place of the loop,
 * so that a warp's threads add theirs together: with the addition inside the collecting loop,
 * each thread reached it at its own iteration and the warp ran the batch once per thread (the
 * first version, H200: G1 2^26 random accumulate 3831 ms against 395 for the XYZZ levels). */
G16_HD void MSM_P(tree_round_thread)(const msm_tree *tr, uint64_t t)
{
    uint64_t step = (uint64_t)1 << tr->r, span = msm_tree_span(tr->r, tr->K);
    uint64_t lo = tr->s0 + t * span, hi = lo + span < tr->s1 ? lo + span : tr->s1;
    uint64_t o = lo, e = 0;
    uint32_t pos[MSM_TREE_KMAX];
    int in_run = 0; /* e is the end of the run holding o, and o one of its live first entries */
    for (;;) {
        uint32_t n = 0;
        while (n < tr->K && o < hi) {
            if (!in_run) {
                uint32_t key = tr->keys[o];
                uint64_t a = tr->boff[key] > tr->s0 ? tr->boff[key] : tr->s0;
                e = tr->bend[key] < tr->s1 ? tr->bend[key] : tr->s1;
                o = a + ((o - a + 2 * step - 1) & ~(2 * step - 1));
                in_run = 1;
                if (o >= e) { /* no live first entry left in this run: the next run */
                    o = e;
                    in_run = 0;
                    continue;
                }
            }
            if (o >= hi)
                break;
            if (o + step < e) {
                pos[n++] = (uint32_t)(o - tr->s0);
            } else if (tr->r == 0) {
                MSM_P(aff) p;
                MSM_P(tree_load)(tr, o, &p);
                ((MSM_P(aff) *)tr->scr)[o - tr->s0] = p;
            }
            o += 2 * step;
            if (o >= e) { /* the next run starts at e (which may be below hi even when o is not) */
                o = e;
                in_run = 0;
            }
        }
        if (n == 0)
            break;
        MSM_P(tree_batch)(tr, pos, n);
    }
}

/* Entry i of the slice, after the rounds: at the first entry of a run, its sum into the bucket
 * (stored, or added when the run goes on in another slice; zeroed buckets are infinity). */
G16_HD void MSM_P(tree_final_thread)(const msm_tree *tr, uint64_t i)
{
    uint32_t key = tr->keys[i];
    if (i > tr->s0 && tr->keys[i - 1] == key)
        return;
    const MSM_P(aff) *p = (const MSM_P(aff) *)tr->scr + (i - tr->s0);
    MSM_P(xyzz) *bk = (MSM_P(xyzz) *)tr->buckets + key;
    if (MSM_P(aff_is_inf)(p))
        return;
    if (tr->boff[key] < tr->s0 || tr->bend[key] > tr->s1) {
        MSM_P(xyzz) acc = *bk;
        MSM_P(madd_inl)(&acc, p, 0);
        *bk = acc;
    } else {
        MSM_P(from_aff)(bk, p, 0);
    }
}
